"""(being written) lowering rules for subtensor ops."""
