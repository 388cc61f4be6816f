"""Analytic transport and buffer models: pure functions with units in, dataclasses out
(docs/architecture.md §3)."""
