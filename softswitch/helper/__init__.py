"""Helpers that build a world for the software switch's engine (softswitch/engine, the model).

As ns-3 separates models from helpers: the engine knows ports, links, routes and state arrays;
the helpers compile intents into switch configurations (``compiled``), lay out topologies and
compute routes (``topology``), assemble a fabric from a compiled intent (``fabric``) and
describe scenarios (``single_switch``, ``fabric_scenarios``).
"""
