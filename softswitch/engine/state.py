"""The engine's state, declared once: every array of the world tuple, in tuple order.

The event core keeps all its state in NumPy arrays passed as one tuple (the *world*, engine/jit.py)
because numba compiles array code, not Python objects. Three things must agree on that tuple:
the index constants the compiled code uses (``layout.W_*``), the argument type the ahead-of-time
core is compiled for (engine/aot.py) and the arrays the builder allocates (engine/build.py). All
three come from :data:`WORLD`:

- ``layout.py``'s block of ``W_*`` constants is *generated* from it
  (``python -m qosforge.softswitch.engine.state`` rewrites the block; a test fails while the file
  and the table disagree). numba reads module-level ints as compile-time constants, so the
  constants stay plain literals in layout.py rather than being computed at import.
- aot.py's signature is ``WORLD``'s dtypes and ranks (:func:`numba_signature`).
- build.py allocates every array with :func:`allocate` and hands in the ones a helper computes
  with :func:`place`, which refuses an array whose dtype or shape differs from the row's.

A shape is a tuple of *sizes* (lower-case names, :data:`SIZES`, which the builder measures from
the run), layout constants (upper case: a column count) and plain integers. Adding an array is
one row at the end of :data:`WORLD` (docs/extending/event.md); then regenerate layout.py.
"""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from qosforge.softswitch.engine import layout as L

Dim = str | int


@dataclass(frozen=True)
class WorldArray:
    """One array of the world tuple; its index is its position in :data:`WORLD`."""

    name: str  # the layout constant the compiled code indexes the world with
    dtype: str  # a NumPy / numba scalar type name
    shape: tuple[Dim, ...]
    feature: str  # the part of the engine that owns it (a heading in layout.py)
    doc: str


#: The sizes a shape may name; the builder measures each from the run (engine/build.py).
SIZES: Mapping[str, str] = {
    "packets": "packet slots (the buffers' cells, host queues and receive windows)",
    "events": "event slots (the heap and the lanes share them)",
    "tx": "transmit ports: every switch port, then one host NIC per switch port",
    "ports": "switch ports",
    "queues": "egress queues per port (at least 8)",
    "pgs": "ingress priority groups per port (at least 8)",
    "port_stats": "rows of a port's device counters: max(queues, pgs)",
    "priorities": "IEEE 802.1p priorities (8)",
    "pools": "buffer pools of all switches (at least 1)",
    "wreds": "WRED profiles of all switches (at least 1)",
    "wred_steps": "steps of the ASIC's WRED probability curve",
    "flows": "flow rows: the run's flows, at least 1",
    "listed_flows": "the run's flows (0 or more)",
    "receive_rows": "flows with a receive window (flows, or 1 when no flow has one)",
    "window": "receive window, packets",
    "monitors": "monitored (port, queue) pairs",
    "histogram_bins": "bins of a monitored queue's depth histogram",
    "trace_points": "samples of the monitored queues' time series",
    "bands": "depth bands of the monitored queues' statistics",
    "switches": "switches",
    "leaves": "switches with hosts (at least 1)",
    "ecmp_members": "egress ports of all ECMP groups (at least 1)",
    "queue_histogram_ports": "switch ports with every-queue histograms (ports, or 0: off)",
    "queue_histogram_bins": "bins of the every-queue depth histograms",
    "queue_histogram_rows": "rows of the every-queue histograms: ports x queues, or 0: off",
    "class_map_sets": "distinct sets of classification maps of the switch ports (at least 1)",
    "lane_capacity": "entries of each event lane (engine/build.py lane_capacity)",
    "dependency_flows": "flows, or 0 when no flow waits for another",
    "dependency_rows": "flows + 1, or 0 when no flow waits for another",
    "dependents": "entries of the dependents lists",
    "flowlet_switches": "switches, or 0 when no flow switches flowlets",
    "flowlet_entries": "entries of each switch's flowlet table (engine/build.py flowlet_tables)",
}

_CORE = "core"
_MMU = "buffer (MMU)"
_MONITOR = "monitors"
_FABRIC = "fabric"
_HEAP = "event queue (engine/heap.py)"

#: The world tuple, in order. Never reorder or remove a row (the index is the position): append.
WORLD: tuple[WorldArray, ...] = (
    WorldArray("W_PKI", "int32", ("packets", "PK_COLS"), _CORE, "packet integer columns (P_*)"),
    WorldArray("W_PKF", "float64", ("packets", "PKF_COLS"), _CORE, "packet float columns (PF_*)"),
    WorldArray("W_FREE", "int64", ("packets",), _CORE, "stack of free packet slots"),
    WorldArray("W_ST", "int64", ("ST_COLS",), _CORE, "misc integer state (ST_*)"),
    WorldArray("W_STF", "float64", ("STF_COLS",), _CORE, "misc float state (STF_*)"),
    WorldArray("W_HT", "float64", ("events",), _HEAP, "the event heap's time keys"),
    WorldArray("W_HI", "int64", ("events",), _HEAP, "the event slot of each heap position"),
    WorldArray("W_TXF", "float64", ("tx", "TXF_COLS"), _CORE, "transmit port floats (TXF_*)"),
    WorldArray("W_TXI", "int64", ("tx", "TXI_COLS"), _CORE, "transmit port integers (TXI_*)"),
    WorldArray("W_QI", "int64", ("tx", "queues", "QI_COLS"), _MMU, "egress queue integers (QI_*)"),
    WorldArray("W_QF", "float64", ("tx", "queues", "QF_COLS"), _MMU, "egress queue floats (QF_*)"),
    WorldArray("W_GI", "int64", ("ports", "pgs", "GI_COLS"), _MMU, "ingress PG integers (GI_*)"),
    WorldArray("W_GF", "float64", ("ports", "pgs", "GF_COLS"), _MMU, "ingress PG floats (GF_*)"),
    WorldArray("W_PO", "int64", ("pools", "PO_COLS"), _MMU, "buffer pools (PO_*)"),
    WorldArray("W_WRI", "int64", ("wreds", 3, "WRI_COLS"), _MMU, "WRED per color (WRI_*)"),
    WorldArray("W_WRF", "float64", ("wreds", 3, 2, 2), _MMU,
               "WRED (min, max) bytes per color and curve"),
    WorldArray("W_WRP", "float64", ("wreds", 3, 2, "wred_steps"), _MMU, "WRED step probabilities"),
    WorldArray("W_FLI", "int64", ("flows", "FL_COLS"), _CORE, "flow integer columns (FL_*)"),
    WorldArray("W_FLF", "float64", ("flows", "FL_F_COLS"), _CORE, "flow float columns (FF_*)"),
    WorldArray("W_RCV", "int8", ("receive_rows", "window"), _CORE,
               "receivers' out-of-order bitmaps"),
    WorldArray("W_PRMF", "float64", ("PRM_COLS",), _CORE, "float parameters (PRM_*)"),
    WorldArray("W_PRMI", "int64", ("PRI_COLS",), _CORE, "integer parameters (PRI_*)"),
    WorldArray("W_CNT", "int64", ("C_COLS",), _CORE, "run counters (C_*)"),
    WorldArray("W_DROP", "int64", ("ports", "queues", "DR_COLS"), _MMU, "drops by reason (DR_*)"),
    WorldArray("W_MARK", "int64", ("ports", "queues", 3), _MMU, "ECN marks per color"),
    WorldArray("W_DROPC", "int64", ("ports", "queues", 3), _MMU, "drops per color"),
    WorldArray("W_ENQ", "int64", ("ports", "queues"), _MMU, "enqueued packets"),
    WorldArray("W_DEQB", "int64", ("ports", "queues"), _MMU, "dequeued bytes"),
    WorldArray("W_MON", "int64", ("monitors", 2), _MONITOR, "the monitored (port, queue) pairs"),
    WorldArray("W_MONS", "float64", ("monitors", "MS_COLS"), _MONITOR, "their statistics (MS_*)"),
    WorldArray("W_HIST", "int64", ("monitors", "histogram_bins"), _MONITOR, "their histograms"),
    WorldArray("W_RING", "float64", ("monitors", "trace_points"), _MONITOR, "their time series"),
    WorldArray("W_RINGT", "float64", ("trace_points",), _MONITOR, "the time series' sample times"),
    WorldArray("W_BAND", "int64", ("monitors", 3, 2, "bands", 3), _MONITOR,
               "arrivals, marks and drops by color, ECT and depth band (BD_*)"),
    WorldArray("W_PGMAX", "int64", ("ports", "pgs", 2), _MMU, "each PG's peak occupancy"),
    WorldArray("W_QMAX", "int64", ("ports", "queues"), _MMU, "each queue's peak depth"),
    WorldArray("W_PFCPRIO", "int64", ("ports", "priorities"), _FABRIC,
               "PFC priority -> queue of each switch port (-1 if PFC off)"),
    WorldArray("W_EVENT", "int64", (3,), _HEAP, "the kernel's scratch for the popped event"),
    WorldArray("W_LINK", "int64", ("tx", "LK_COLS"), _FABRIC, "each transmit port's link (LK_*)"),
    WorldArray("W_ROUTE", "int64", ("switches", "leaves", 2), _FABRIC,
               "ECMP group (start, count) in W_ECMP per destination switch with hosts"),
    WorldArray("W_ECMP", "int64", ("ecmp_members",), _FABRIC, "egress ports of the ECMP groups"),
    WorldArray("W_SWI", "int64", ("switches", "SW_COLS"), _FABRIC, "per switch (SW_*)"),
    WorldArray("W_CLS", "int64", ("class_map_sets", "CL_COLS", 64), _FABRIC,
               "the distinct sets of maps that classify a packet (SAI inc/saiport.h QOS_*_MAP);"
               " a switch port's set is its LK_CLS"),
    WorldArray("W_PFCS", "int64", ("tx", "priorities", "PS_COLS"), _FABRIC,
               "PFC state per transmit port and priority (PS_*)"),
    WorldArray("W_PFCT", "float64", ("tx", "priorities", "PT_COLS"), _FABRIC,
               "PFC times per transmit port and priority (PT_*)"),
    WorldArray("W_QHIST", "int64", ("queue_histogram_rows", "queue_histogram_bins"), _MONITOR,
               "rows of the every-queue depth histograms (W_QHIST_ROW)"),
    WorldArray("W_SLOTF", "float64", ("events",), _HEAP, "each event slot's float payload"),
    WorldArray("W_SLOTI", "int64", ("events", "SL_COLS"), _HEAP,
               "each event slot's kind and integer payload (SL_*)"),
    WorldArray("W_SLOTFREE", "int64", ("events",), _HEAP, "free event slots"),
    WorldArray("W_START_S", "float64", ("listed_flows",), _HEAP,
               "flow start times, sorted (the kernel starts flows from here, not the heap)"),
    WorldArray("W_START_FLOW", "int64", ("listed_flows",), _HEAP,
               "the flow of each W_START_S entry; also its start event's sequence number"),
    WorldArray("W_LANE_T", "float64", ("LANES", "lane_capacity"), _HEAP,
               "each event lane's times, a ring"),
    WorldArray("W_LANE_S", "int64", ("LANES", "lane_capacity"), _HEAP,
               "the event slot of each lane entry"),
    WorldArray("W_LANE_N", "int64", ("LANES", 2), _HEAP, "each lane's (head index, length)"),
    WorldArray("W_PORTSTAT", "int64", ("tx", "port_stats", "PSC_COLS"), _CORE,
               "per-port counters a device publishes (softswitch/device/counters.py)"),
    # Flow dependencies (collectives' steps, softswitch/traffic/collectives.py): a flow that
    # waits for others starts when the last of them has delivered all its data
    # (engine/dependencies.py).
    WorldArray("W_DEP_WAIT", "int64", ("dependency_flows",), "flow dependencies",
               "flows it still waits for; -1 once it finished and started its dependents"),
    WorldArray("W_DEP_PTR", "int64", ("dependency_rows",), "flow dependencies",
               "its dependents are W_DEP_NEXT[W_DEP_PTR[f]:W_DEP_PTR[f+1]]"),
    WorldArray("W_DEP_NEXT", "int64", ("dependents",), "flow dependencies",
               "dependents, flow by flow"),
    # Load balancing: each switch's flowlet table, indexed by the flow's hash (CONGA SIGCOMM
    # 2014 §3.4's hash-indexed table; flows that collide share an entry, as in hardware).
    WorldArray("W_FLOWLET_T", "float64", ("flowlet_switches", "flowlet_entries"), "load balancing",
               "when the entry last forwarded a packet"),
    WorldArray("W_FLOWLET_M", "int64", ("flowlet_switches", "flowlet_entries"), "load balancing",
               "the ECMP member index the entry's flowlet uses"),
    # Every-queue depth histograms (softswitch/queue_histograms.py): a row of W_QHIST per switch
    # queue found non-empty at a sample, given out in that order; the empty samples are implied
    # (bin 0 = ST_QHIST_SAMPLES - the row's other bins).
    WorldArray("W_QHIST_ROW", "int64", ("queue_histogram_ports", "queues"), _MONITOR,
               "each switch queue's row of W_QHIST, -1 none yet"),
)

#: The column groups of layout.py: the count constant, and the prefix of its columns. Each
#: group's columns must cover 0..count-1 exactly once (a merge that gives two columns one index
#: fails tests/softswitch/engine/test_state.py). Constants spanning several columns name their
#: width in :data:`COLUMN_WIDTHS`.
COLUMN_GROUPS: Mapping[str, str] = {
    "PK_COLS": "P_", "PKF_COLS": "PF_", "FL_COLS": "FL_", "FL_F_COLS": "FF_", "TXF_COLS": "TXF_",
    "TXI_COLS": "TXI_", "QI_COLS": "QI_", "QF_COLS": "QF_", "GI_COLS": "GI_", "GF_COLS": "GF_",
    "PO_COLS": "PO_", "WRI_COLS": "WRI_", "PRM_COLS": "PRM_", "PRI_COLS": "PRI_", "C_COLS": "C_",
    "DR_COLS": "DR_", "SL_COLS": "SL_", "LK_COLS": "LK_", "SW_COLS": "SW_", "CL_COLS": "CL_",
    "PSC_COLS": "PSC_", "PS_COLS": "PS_", "PT_COLS": "PT_", "ST_COLS": "ST_", "STF_COLS": "STF_",
    "MS_COLS": "MS_", "W_LEN": "W_",
}
#: Constants that start a run of columns, and the constant giving the run's length.
COLUMN_WIDTHS: Mapping[str, str] = {
    "FL_SB_START": "SACK_BLOCKS", "FL_SB_END": "SACK_BLOCKS", "C_LOSSLESS_BY_REASON": "DR_COLS",
}
#: Enumerations without a count constant: their values must be 0..n-1, each once.
ENUMERATIONS: tuple[str, ...] = ("EV_", "K_", "BD_")


def _members(namespace: Mapping[str, object], prefix: str) -> dict[str, int]:
    return {name: value for name, value in namespace.items()
            if name.startswith(prefix) and isinstance(value, int) and not name.endswith("_COLS")
            and name != "W_LEN"}


def _uncovered(prefix: str, members: dict[str, int], count: int,
               widths: Mapping[str, int]) -> list[str]:
    """Why ``members`` (with their widths) do not cover 0..count-1 exactly once."""
    holders: dict[int, list[str]] = {}
    for name, start in members.items():
        for column in range(start, start + widths.get(name, 1)):
            holders.setdefault(column, []).append(name)
    problems = [f"{prefix}*: column {column} is {' and '.join(sorted(names))}"
                for column, names in sorted(holders.items()) if len(names) > 1]
    missing = sorted(set(range(count)) - set(holders))
    beyond = sorted(column for column in holders if not 0 <= column < count)
    if missing:
        problems.append(f"{prefix}*: no constant names column(s) {missing} of {count}")
    if beyond:
        problems.append(f"{prefix}*: column(s) {beyond} lie outside 0..{count - 1}")
    return problems


def layout_conflicts(namespace: Mapping[str, object]) -> list[str]:
    """Every column group of layout.py (``vars(layout)``) whose constants do not number its
    columns 0..count-1 exactly once; empty when the layout is sound. Two branches that each
    append a column at the same index merge without a textual conflict: this finds them."""
    problems: list[str] = []
    for count_name, prefix in COLUMN_GROUPS.items():
        count = namespace.get(count_name)
        if not isinstance(count, int):
            problems.append(f"layout.py has no {count_name}")
            continue
        widths = {name: int(str(namespace[width]))
                  for name, width in COLUMN_WIDTHS.items() if name.startswith(prefix)}
        problems += _uncovered(prefix, _members(namespace, prefix), count, widths)
    for prefix in ENUMERATIONS:
        members = _members(namespace, prefix)
        problems += _uncovered(prefix, members, len(members), {})
    return problems


def _constant(name: str) -> int:
    value = getattr(L, name, None)
    if not isinstance(value, int):
        raise KeyError(f"engine/layout.py has no integer constant {name}")
    return value


def shape_of(array: WorldArray, sizes: Mapping[str, int]) -> tuple[int, ...]:
    """``array``'s shape for a world whose sizes are ``sizes``."""
    dims: list[int] = []
    for dim in array.shape:
        if isinstance(dim, int):
            dims.append(dim)
        elif dim.isupper():
            dims.append(_constant(dim))
        else:
            dims.append(int(sizes[dim]))
    return tuple(dims)


def allocate(sizes: Mapping[str, int]) -> list[np.ndarray]:
    """Every array of the world, zeroed (``np.zeros`` maps untouched pages lazily, so an array a
    builder helper then replaces through :func:`place` costs no memory)."""
    unknown = {dim for a in WORLD for dim in a.shape if isinstance(dim, str) and dim.islower()}
    missing = sorted(unknown - set(sizes))
    if missing:
        raise KeyError(f"the world's sizes lack {', '.join(missing)} (engine/state.py SIZES)")
    return [np.zeros(shape_of(a, sizes), dtype=a.dtype) for a in WORLD]


def place(world: list[np.ndarray], index: int, array: np.ndarray) -> None:
    """Put a computed array at ``index``, refusing one that differs from its row in WORLD."""
    declared = world[index]
    if array.dtype != declared.dtype or array.shape != declared.shape:
        row = WORLD[index]
        raise ValueError(f"{row.name}: built {array.dtype}{list(array.shape)}, declared "
                         f"{declared.dtype}{list(declared.shape)} (engine/state.py WORLD)")
    world[index] = np.ascontiguousarray(array)


def numba_signature() -> list[tuple[str, int]]:
    """(dtype, ndim) of each array in tuple order: the ahead-of-time core's argument type."""
    return [(a.dtype, len(a.shape)) for a in WORLD]


_BEGIN = "# --- the world tuple passed to every compiled function (index = position) ---"
_END = "# --- end of the world tuple ---"
_WIDTH = 100


def _shape_text(array: WorldArray) -> str:
    return ", ".join(str(dim) for dim in array.shape)


def layout_block() -> str:
    """The ``W_*`` block of layout.py, as generated from :data:`WORLD`."""
    lines = [_BEGIN,
             "# Generated from engine/state.py WORLD by",
             "# `python -m qosforge.softswitch.engine.state`: edit the table there, never these",
             "# lines (docs/extending/event.md)."]
    feature = ""
    for index, array in enumerate(WORLD):
        if array.feature != feature:
            feature = array.feature
            lines.append(f"# {feature}")
        line = f"{array.name} = {index}  # {array.dtype} [{_shape_text(array)}]: {array.doc}"
        if len(line) > _WIDTH:
            # ruff's line length (pyproject.toml): the description goes on the lines above.
            lines.extend(textwrap.wrap(array.doc, _WIDTH, initial_indent="# ",
                                       subsequent_indent="# "))
            line = f"{array.name} = {index}  # {array.dtype} [{_shape_text(array)}]"
        lines.append(line)
    lines.append(f"W_LEN = {len(WORLD)}")
    lines.append(_END)
    return "\n".join(lines) + "\n"


def _layout_path() -> Path:
    return Path(__file__).resolve().parent / "layout.py"


def current_layout_block(text: str) -> str:
    """The ``W_*`` block as it stands in layout.py's ``text``."""
    match = re.search(re.escape(_BEGIN) + r".*?" + re.escape(_END) + r"\n", text, re.DOTALL)
    if match is None:
        raise ValueError("engine/layout.py lacks the generated world block's marker lines")
    return match.group(0)


def write_layout(path: Path | None = None) -> bool:
    """Rewrite layout.py's ``W_*`` block from :data:`WORLD`; True when the file changed."""
    target = path or _layout_path()
    text = target.read_text()
    updated = text.replace(current_layout_block(text), layout_block())
    if updated == text:
        return False
    target.write_text(updated)
    return True


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    path = Path(args[0]) if args else None
    changed = write_layout(path)
    print(f"{path or _layout_path()}: {'rewritten' if changed else 'already current'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["COLUMN_GROUPS", "COLUMN_WIDTHS", "ENUMERATIONS", "SIZES", "WORLD", "WorldArray",
           "allocate", "layout_block", "layout_conflicts", "numba_signature", "place", "shape_of",
           "write_layout"]
