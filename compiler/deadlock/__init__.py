"""Deadlock freedom of the lossless classes (docs/architecture.md §5, docs/deadlock.md).

PFC makes a class lossless by pausing, and pauses can wait on each other around a cycle of
switch buffers until nothing moves. This package builds the buffer dependency graph of the
fabric's routes (:mod:`.links` the fabric, :mod:`.routes` the ECMP shortest paths the software
switch uses, :mod:`.graph` the dependencies and their cycles, :mod:`.explain` a cycle in words),
checks it at compile time (:mod:`.check`) and under every single or double link failure
(:mod:`.failures`, ``qosforge check deadlock``). A package rather than one module: the pieces
are used apart (the sweep reuses routes and graph incrementally) and together pass 500 lines.
"""

from qosforge.compiler.deadlock.check import (
    check_deadlock_free,
    check_routes_reach_every_host,
    fabric_cycles,
)
from qosforge.compiler.deadlock.explain import DependencyCycle
from qosforge.compiler.deadlock.links import FabricLinks, fabric_links

__all__ = ["DependencyCycle", "FabricLinks", "check_deadlock_free", "check_routes_reach_every_host",
           "fabric_cycles", "fabric_links"]
