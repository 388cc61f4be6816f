"""Intent loading, validation, topology resolution, class planning and the IR (DESIGN.md §1)."""
