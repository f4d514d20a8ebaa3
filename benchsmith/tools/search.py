"""search tools (being written)."""
