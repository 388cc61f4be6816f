"""Intent loading, validation, topology resolution, class planning and the IR
(docs/architecture.md §1)."""
