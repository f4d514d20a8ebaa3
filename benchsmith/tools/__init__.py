"""Tools: the registry and the deterministic tools that realize items (issue 3)."""
