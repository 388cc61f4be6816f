"""A dependency cycle in words: the buffers on it, and for each of its edges a route that closes
it (which hosts' traffic arrives on one link and waits for the next), so an operator can see why
the fabric's routes turn around the loop and where to break it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qosforge.compiler.deadlock.graph import route_blocks
from qosforge.compiler.deadlock.links import BoolArray, FabricLinks
from qosforge.compiler.deadlock.routes import RouteBlock

#: Cycles and routes named in a one-line error; the check command lists them all.
SHOWN_IN_ERROR = 4


@dataclass(frozen=True)
class ClosingRoute:
    """A route that uses one edge of a cycle: packets from ``source`` to ``destination`` arrive at
    ``waits_at`` on ``arrives_on`` and wait there for buffer behind ``leaves_on``."""

    source: str
    destination: str
    path: tuple[str, ...]
    """The switches from the source's to the destination's, one shortest path (ECMP picks one)."""
    waits_at: str
    arrives_on: str
    """``switch:port``, the ingress buffer the packet is held in."""
    leaves_on: str
    """``switch:port``, the egress the packet waits behind (paused by the next buffer)."""

    def describe(self) -> str:
        return f"hosts on {self.source} to hosts on {self.destination} via {' > '.join(self.path)} (held at {self.arrives_on}, waiting on {self.leaves_on})"


@dataclass(frozen=True)
class DependencyCycle:
    """A cycle of ingress buffers, each waiting for the next (the last for the first)."""

    buffers: tuple[str, ...]
    """``switch:ingress port`` of each buffer, in the order the dependencies run."""
    links: tuple[int, ...]
    routes: tuple[ClosingRoute, ...]
    """One route per edge: buffer i -> buffer i+1 (and the last -> the first)."""

    @property
    def switches(self) -> tuple[str, ...]:
        return tuple(buffer.partition(":")[0] for buffer in self.buffers)

    def describe(self) -> str:
        return " -> ".join((*self.buffers, self.buffers[0]))

    def to_json(self) -> dict[str, object]:
        return {
            "buffers": list(self.buffers),
            "switches": list(self.switches),
            "routes": [
                {"source": r.source, "destination": r.destination, "path": list(r.path), "waits_at": r.waits_at,
                 "arrives_on": r.arrives_on, "leaves_on": r.leaves_on}
                for r in self.routes
            ],
        }


def explain_cycles(links: FabricLinks, cycles: list[tuple[int, ...]], alive: BoolArray | None = None) -> tuple[DependencyCycle, ...]:
    """Name the buffers of each cycle (sequences of directed links) and find a closing route for
    each of its edges among the routes over the links that are ``alive``."""
    if not cycles:
        return ()
    up = np.ones(links.n_links, dtype=bool) if alive is None else alive
    blocks = route_blocks(links, up)
    explained = []
    for cycle in cycles:
        edges = zip(cycle, (*cycle[1:], cycle[0]), strict=True)
        explained.append(DependencyCycle(
            buffers=tuple(links.port_name(link, egress=False) for link in cycle),
            links=cycle,
            routes=tuple(_closing_route(links, blocks, first, second) for first, second in edges),
        ))
    return tuple(explained)


def _closing_route(links: FabricLinks, blocks: list[RouteBlock], first: int, second: int) -> ClosingRoute:
    for block in blocks:
        rows = np.flatnonzero(block.carries[:, first] & block.on_route[:, second])
        if rows.size:
            row = int(rows[0])
            path = [*_upstream(links, block, row, int(links.tail[first])), int(links.head[first])]
            path += _downstream(links, block, row, int(links.head[second]))
            names = tuple(links.switch_names[s] for s in path)
            return ClosingRoute(names[0], names[-1], names, links.switch_names[int(links.head[first])],
                                links.port_name(first, egress=False), links.port_name(second, egress=True))
    raise AssertionError(f"no route uses the turn {first} -> {second} the graph holds")


def _upstream(links: FabricLinks, block: RouteBlock, row: int, switch: int) -> list[int]:
    """From ``switch`` back to a host-facing switch whose traffic reaches it (the route's source)."""
    destination = int(block.destinations[row])
    path = [switch]
    while not (links.has_hosts[path[0]] and path[0] != destination):
        feeding = np.flatnonzero(block.carries[row] & (links.head == path[0]))
        path.insert(0, int(links.tail[int(feeding[0])]))
    return path


def _downstream(links: FabricLinks, block: RouteBlock, row: int, switch: int) -> list[int]:
    """From ``switch`` to the destination along the first next hop of each ECMP group."""
    destination = int(block.destinations[row])
    path = [switch]
    while path[-1] != destination:
        hop = np.flatnonzero(block.on_route[row] & (links.tail == path[-1]))
        path.append(int(links.head[int(hop[0])]))
    return path


__all__ = ["SHOWN_IN_ERROR", "ClosingRoute", "DependencyCycle", "explain_cycles"]
