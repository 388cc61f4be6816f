"""Analytic transport and buffer models: pure functions with units in, dataclasses out (DESIGN.md §3)."""
