"""Theano's sparse matrices (``symnb.sparse``'s machinery): the type, the ops, the
variables and shared variables. The public names are ``symnb.sparse``'s."""
