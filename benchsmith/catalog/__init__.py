"""Dataset catalog: cards, profiling, search and loaders (issue 4)."""
