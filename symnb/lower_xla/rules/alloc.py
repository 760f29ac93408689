"""(being written) lowering rules for alloc ops."""
