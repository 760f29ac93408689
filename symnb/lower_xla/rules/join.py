"""(being written) lowering rules for join ops."""
