"""(being written) lowering rules for shape ops."""
