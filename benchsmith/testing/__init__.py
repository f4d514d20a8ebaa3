"""Test helpers shipped with benchsmith (fake servers and fixtures)."""
