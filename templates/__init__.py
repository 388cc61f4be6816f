"""Jinja2 templates rendered by the backends (package data)."""
