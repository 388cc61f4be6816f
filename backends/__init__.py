"""Renderers from the compiler IR to SONiC config_db, SAI and OpenConfig (DESIGN.md §5)."""
