"""(being written) lowering rules for assertion ops."""
