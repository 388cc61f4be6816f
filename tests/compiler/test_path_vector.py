"""The converged routes (compiler/path_vector.py) against a referee: BGP run the slow, plain
way, every router holding whole AS paths as tuples and exchanging its best path with every
neighbour each round until nothing changes (RFC 4271 §9.1: loop detection on receipt, the
shortest AS path best, ties to the lowest router ID; multipath over equal paths)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qosforge.compiler.path_vector import (
    SMALL_FABRIC_SWITCHES,
    converged_routes,
    level_hops,
    reversed_switch_graph,
)
from qosforge.compiler.routing import BgpSettings


@dataclass(frozen=True)
class Links:
    n_switches: int
    tail: np.ndarray
    head: np.ndarray


def _links(edges: list[tuple[int, int]], n: int) -> Links:
    """Both directions of every edge: link 2i is a->b, 2i+1 is b->a."""
    tail = [end for a, b in edges for end in (a, b)]
    head = [end for a, b in edges for end in (b, a)]
    return Links(n, np.array(tail, dtype=np.int64), np.array(head, dtype=np.int64))


def referee(
    links: Links, alive: np.ndarray, destination: int, bgp: BgpSettings
) -> tuple[list[float], set[int]]:
    """(hops per switch, the links on a route) toward ``destination``, by plain path-vector
    rounds."""
    asn = [int(a) for a in bgp.asn]
    advertised: dict[int, tuple[int, ...]] = {destination: (asn[destination],)}
    routes: dict[int, set[int]] = {}
    for _ in range(4 * links.n_switches + 4):
        fresh: dict[int, tuple[int, ...]] = {destination: (asn[destination],)}
        fresh_routes: dict[int, set[int]] = {}
        for switch in range(links.n_switches):
            if switch == destination:
                continue
            offers = [
                (len(advertised[int(v)]), int(v), link, advertised[int(v)])
                for link, (u, v) in enumerate(zip(links.tail, links.head, strict=True))
                if u == switch
                and alive[link]
                and int(v) in advertised
                and advertised[int(v)].count(asn[switch]) <= bgp.allowas_in
            ]
            if not offers:
                continue
            best = min(offers)
            fresh[switch] = (asn[switch], *best[3])
            fresh_routes[switch] = {
                link
                for length, _, link, path in offers
                if length == best[0] and (bgp.multipath_relax or path == best[3])
            }
        if fresh == advertised and fresh_routes == routes:
            hops = [
                float(len(advertised[s]) - 1) if s in advertised else np.inf
                for s in range(links.n_switches)
            ]
            return hops, set().union(*routes.values()) if routes else set()
        advertised, routes = fresh, fresh_routes
    raise AssertionError("the referee's BGP did not converge")


@st.composite
def fabrics(draw: st.DrawFn) -> tuple[Links, np.ndarray, BgpSettings]:
    n = draw(st.integers(2, 8))
    edges = [(draw(st.integers(0, i - 1)), i) for i in range(1, n)]
    edges += [
        (a, b)
        for a, b in draw(
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=8)
        )
        if a != b
    ]
    links = _links(edges, n)
    # Few ASNs, so switches share them (a tier) and loop detection bites.
    asn = np.array(
        draw(st.lists(st.integers(65000, 65000 + n), min_size=n, max_size=n)), dtype=np.int64
    )
    dead = draw(st.sets(st.integers(0, len(edges) - 1), max_size=2))
    alive = np.array([i // 2 not in dead for i in range(2 * len(edges))], dtype=bool)
    bgp = BgpSettings(asn, draw(st.integers(0, 2)), draw(st.booleans()))
    return links, alive, bgp


@settings(max_examples=150, deadline=None)
@given(case=fabrics())
def test_the_fixpoint_equals_plain_bgp_rounds(case: tuple[Links, np.ndarray, BgpSettings]) -> None:
    links, alive, bgp = case
    destinations = np.arange(links.n_switches)
    converged = converged_routes(links, destinations, alive, bgp)
    for row, destination in enumerate(destinations):
        hops, on_route = referee(links, alive, int(destination), bgp)
        assert converged.hops[row].tolist() == hops
        assert set(np.flatnonzero(converged.on_route[row]).tolist()) == on_route


@settings(max_examples=150, deadline=None)
@given(case=fabrics(), directed=st.booleans())
def test_small_fabrics_get_scipys_hop_counts_without_scipy(
    case: tuple[Links, np.ndarray, BgpSettings], directed: bool
) -> None:
    """The numpy search small fabrics use equals scipy's compiled BFS (the referee), one-way
    links included, and shortest-path routes follow from it as from scipy's."""
    from scipy.sparse.csgraph import shortest_path

    links, alive, _ = case
    if directed:  # drop every other reverse link: some switches become unreachable
        alive = alive & (np.arange(alive.size) % 4 != 1)
    destinations = np.arange(links.n_switches)
    expected = shortest_path(
        reversed_switch_graph(links, alive), directed=True, unweighted=True, indices=destinations
    )
    assert np.array_equal(level_hops(links, destinations, alive), expected)
    assert links.n_switches <= SMALL_FABRIC_SWITCHES
    small = converged_routes(links, destinations, alive, None)
    big = converged_routes(links, destinations, alive, None, reversed_switch_graph(links, alive))
    assert np.array_equal(small.hops, big.hops)
    assert np.array_equal(small.on_route, big.on_route)


def _leaf_spine(leaves: int, spines: int) -> Links:
    return _links(
        [(leaf, leaves + spine) for leaf in range(leaves) for spine in range(spines)],
        leaves + spines,
    )


def test_spines_sharing_an_asn_never_route_down_and_up_again() -> None:
    """RFC 7938 §5.2.1 on a 4-leaf, 2-spine fabric: with leaf 3 - spine 1 down, spine 1 hears
    leaf 3's prefix only through another leaf, as [leaf, spine ASN, leaf 3], and drops it; leaf
    4, whose link to spine 2 is down too, is left without a route. Shortest paths would bounce."""
    links = _leaf_spine(4, 2)
    dead = {(2, 4), (3, 5)}  # leaf3-spine1, leaf4-spine2 (switches 0-3 leaves, 4-5 spines)
    alive = np.array(
        [
            (int(a), int(b)) not in dead and (int(b), int(a)) not in dead
            for a, b in zip(links.tail, links.head, strict=True)
        ]
    )
    asn = np.array([65001, 65002, 65003, 65004, 65534, 65534], dtype=np.int64)
    ebgp = converged_routes(links, np.array([2]), alive, BgpSettings(asn, 0, True))
    assert ebgp.hops[0].tolist() == [2, 2, 0, np.inf, np.inf, 1]  # spine1 and leaf4: no route
    shortest = converged_routes(links, np.array([2]), alive, None)
    assert shortest.hops[0].tolist() == [2, 2, 0, 4, 3, 1]  # leaf4 > spine1 > leaf > spine2 > leaf3
    relaxed = converged_routes(links, np.array([2]), alive, BgpSettings(asn, 1, True))
    assert relaxed.hops[0].tolist() == [2, 2, 0, 4, 3, 1]  # allowas-in 1 lets the bounce through


def test_without_multipath_relax_only_identical_as_paths_share_the_load() -> None:
    """Switch 0 reaches 3 over 1 and over 2 (two hops each); 1 and 2 have different ASNs, so the
    AS paths differ: ECMP over both with multipath-relax, only the best (lowest router ID)
    without."""
    links = _links([(0, 1), (0, 2), (1, 3), (2, 3)], 4)
    asn = np.array([65001, 65010, 65020, 65003], dtype=np.int64)
    alive = np.ones(8, dtype=bool)
    relaxed = converged_routes(links, np.array([3]), alive, BgpSettings(asn, 0, True))
    strict = converged_routes(links, np.array([3]), alive, BgpSettings(asn, 0, False))
    assert set(np.flatnonzero(relaxed.on_route[0] & (links.tail == 0))) == {0, 2}
    assert set(np.flatnonzero(strict.on_route[0] & (links.tail == 0))) == {0}
    same = BgpSettings(np.array([65001, 65010, 65010, 65003], dtype=np.int64), 0, False)
    assert set(
        np.flatnonzero(
            converged_routes(links, np.array([3]), alive, same).on_route[0] & (links.tail == 0)
        )
    ) == {0, 2}
