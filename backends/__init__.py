"""Renderers from the compiler IR to SONiC config_db, SAI and OpenConfig
(docs/architecture.md §5)."""
