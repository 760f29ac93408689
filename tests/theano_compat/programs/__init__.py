"""Real Theano programs (issue 38), written as their authors wrote them for Theano 1.0
with ``theano`` renamed ``symnb``; ``tests/theano_compat/test_programs.py`` runs each and
checks its numbers against NumPy.

- ``rnn_lm``, ``gru_lm``: the WildML RNN and GRU language-model tutorials;
- ``lstm_sentiment``: deeplearning.net's ``lstm.py`` (masks, adadelta, MRG dropout);
- ``sentence_cnn``: Kim (2014)'s sentence CNN;
- ``dropout_mlp``: a dropout MLP (momentum by ``ifelse``, max-norm, dict updates);
- ``vae``: a variational autoencoder with Adam;
- ``hessian_free``: Gauss-Newton products by ``Rop``/``Lop``, conjugate gradient by ``scan``;
- ``attention_nmt``: dl4mt's attention encoder-decoder;
- ``stacked_da``: deeplearning.net's ``SdA.py``/``dA.py``;
- ``doc_pages``: Theano's documentation pages (scan, extending with Python ops, printing,
  givens, profiling, test values, floatX).

Edits beyond the renaming, each because the original cannot run on Python 3.11 / NumPy 2
or under Theano itself: ``sentence_cnn.as_floatX`` uses ``np.asarray`` (NumPy 2 removed
``np.cast``); ``vae``'s ``epoch`` is a floatX scalar (``b1 ** int32_epoch`` is float64
under Theano's rule, and Theano refuses that float64 update of a float32 parameter too).
"""
