"""The bundled software switch model (DESIGN.md §6)."""
