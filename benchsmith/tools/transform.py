"""transform tools (being written)."""
