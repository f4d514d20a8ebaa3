"""audio tools (being written)."""
