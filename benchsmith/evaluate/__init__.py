"""Running models on a benchmark and reporting on it (issue 7)."""
