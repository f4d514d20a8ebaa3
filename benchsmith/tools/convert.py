"""convert tools (being written)."""
