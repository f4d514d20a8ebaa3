"""Agents: one module per graph node."""
