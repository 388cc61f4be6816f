"""RED/WRED step-curve least-squares fitting (DESIGN.md §4)."""
