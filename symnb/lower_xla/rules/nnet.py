"""(being written) lowering rules for nnet ops."""
