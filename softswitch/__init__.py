"""The bundled software switch model (docs/architecture.md §6)."""
