"""The benchmark folder writer and its exports (issue 5)."""
