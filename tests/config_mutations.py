"""Mutations of a config_db document that the lint and SONiC-check tests break a clean config
with: each returns a function that changes the config in place (imported by putting tests/ on
``sys.path``, as tests/deliver/gnmi_fixtures.py is)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Config = dict[str, Any]
Mutation = Callable[[Config], None]


def set_field(table: str, key: str, field: str, value: Any) -> Mutation:
    """``table|key.field = value`` (the table and key created when missing)."""

    def mutate(config: Config) -> None:
        config.setdefault(table, {}).setdefault(key, {})[field] = value

    return mutate


def drop(table: str, key: str, field: str | None = None) -> Mutation:
    """Remove ``table|key`` (or only its ``field``)."""

    def mutate(config: Config) -> None:
        if field is None:
            del config[table][key]
        else:
            del config[table][key][field]

    return mutate


def rekey(table: str, old: str, new: str) -> Mutation:
    def mutate(config: Config) -> None:
        config[table][new] = config[table].pop(old)

    return mutate


def rename_table(old: str, new: str) -> Mutation:
    def mutate(config: Config) -> None:
        config[new] = config.pop(old)

    return mutate


def all_of(*mutations: Mutation) -> Mutation:
    def mutate(config: Config) -> None:
        for mutation in mutations:
            mutation(config)

    return mutate
