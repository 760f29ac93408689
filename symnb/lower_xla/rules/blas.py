"""(being written) lowering rules for blas ops."""
