"""The engine's state declared once (engine/state.py): layout.py's world indices are the table's,
every column group is dense, the builder's arrays are the declared ones, and adding an array is
one row."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine import state
from qosforge.softswitch.engine.build import build_fabric_world, build_world
from qosforge.softswitch.engine.state import WORLD, WorldArray
from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell
from qosforge.softswitch.traffic.spec import RunSpec

LAYOUT = Path(state.__file__).with_name("layout.py")


def test_layout_world_indices_are_the_ones_generated_from_the_table() -> None:
    text = LAYOUT.read_text()
    assert state.current_layout_block(text) == state.layout_block(), (
        "engine/layout.py's world block is stale: run `python -m qosforge.softswitch.engine.state`")
    for index, array in enumerate(WORLD):
        assert getattr(L, array.name) == index
    assert L.W_LEN == len(WORLD)


def test_every_shape_names_a_known_size_or_a_layout_constant() -> None:
    for array in WORLD:
        assert array.name.startswith("W_") and np.dtype(array.dtype).kind in "iuf", array.name
        for dim in array.shape:
            if isinstance(dim, str) and dim.islower():
                assert dim in state.SIZES, (array.name, dim)
            elif isinstance(dim, str):
                assert isinstance(getattr(L, dim), int), (array.name, dim)
    assert len({array.name for array in WORLD}) == len(WORLD)


def test_the_layout_column_groups_and_enumerations_are_dense() -> None:
    assert state.layout_conflicts(vars(L)) == []


def test_two_columns_with_one_index_are_reported() -> None:
    # What a merge of two branches that each appended a flow column looks like.
    merged = {**vars(L), "FL_MINE": L.FL_COLS, "FL_THEIRS": L.FL_COLS, "FL_COLS": L.FL_COLS + 1}
    conflicts = state.layout_conflicts(merged)
    assert any("FL_" in line and "FL_MINE" in line and "FL_THEIRS" in line for line in conflicts)
    gap = {**vars(L), "EV_LATE": 99}
    assert any("EV_" in line for line in state.layout_conflicts(gap))
    widened = {**vars(L), "C_COLS": L.C_COLS + 1}
    assert any("C_" in line for line in state.layout_conflicts(widened))


def _check_world(world: tuple[np.ndarray, ...]) -> None:
    assert len(world) == len(WORLD)
    for array, row in zip(world, WORLD, strict=True):
        assert array.dtype == np.dtype(row.dtype) and array.ndim == len(row.shape), row.name
        assert array.flags.c_contiguous, row.name
        for dim, extent in zip(row.shape, array.shape, strict=True):
            if isinstance(dim, int):
                assert extent == dim, row.name
            elif dim.isupper():
                assert extent == getattr(L, dim), row.name


def test_the_builder_makes_the_declared_arrays() -> None:
    config, flows, run = dumbbell(DumbbellSpec(flows=3, transport="dctcp", bandwidth_bps=10e9,
                                               rtt_s=1e-4, buffer_bytes=150_000,
                                               ecn_threshold_bytes=30_000))
    monitored = dataclasses.replace(run, monitors=((0, 3),), queue_histograms=True)
    for world in (build_world(config, flows, run), build_world(config, flows, monitored),
                  build_world(config, (), RunSpec(duration_s=1e-3))):
        _check_world(world)
    # Flows that wait for others (a collective's steps) fill the dependency arrays.
    first = flows[0]
    waiting = (dataclasses.replace(first, size_packets=10),
               dataclasses.replace(flows[1], size_packets=10, after=(0,)))
    world = build_world(config, waiting, run)
    _check_world(world)
    assert world[L.W_DEP_WAIT].tolist() == [0, 1] and world[L.W_DEP_NEXT].tolist() == [1]


def test_place_refuses_an_array_unlike_its_declaration() -> None:
    world = state.allocate({size: 2 for size in state.SIZES})
    state.place(world, L.W_ECMP, np.arange(2, dtype=np.int64))
    with pytest.raises(ValueError, match="W_ECMP: built int32"):
        state.place(world, L.W_ECMP, np.arange(2, dtype=np.int32))
    with pytest.raises(ValueError, match=r"W_FLI: built int64\[2, 3\]"):
        state.place(world, L.W_FLI, np.zeros((2, 3), dtype=np.int64))
    with pytest.raises(KeyError, match="flows"):
        state.allocate({size: 2 for size in state.SIZES if size != "flows"})


def test_adding_an_array_is_one_row_and_a_regeneration(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "layout.py"
    copy.write_text(LAYOUT.read_text())
    row = WorldArray("W_TOY", "int64", ("ports", 2), "toy", "a test's array")
    monkeypatch.setattr(state, "WORLD", (*WORLD, row))
    assert state.write_layout(copy)
    text = copy.read_text()
    assert f"W_TOY = {len(WORLD)}  # int64 [ports, 2]: a test's array\n" in text
    assert f"W_LEN = {len(WORLD) + 1}\n" in text
    assert text.replace(state.current_layout_block(text), "") == LAYOUT.read_text().replace(
        state.current_layout_block(LAYOUT.read_text()), "")
    assert state.numba_signature()[-1] == ("int64", 2)
    world = state.allocate({size: 3 for size in state.SIZES})
    assert world[-1].shape == (3, 2)
    assert not state.write_layout(copy)  # already current


def test_the_fabric_builder_checks_every_computed_array(monkeypatch: pytest.MonkeyPatch) -> None:
    # A helper whose array disagrees with the table is caught at build time, not in the kernel.
    config, flows, run = dumbbell(DumbbellSpec(flows=2, transport="newreno", bandwidth_bps=10e9,
                                               rtt_s=1e-4, buffer_bytes=150_000))
    wrong = tuple(dataclasses.replace(a, dtype="float64") if a.name == "W_FLI" else a
                  for a in WORLD)
    monkeypatch.setattr(state, "WORLD", wrong)
    from qosforge.softswitch.engine.build import single_switch

    with pytest.raises(ValueError, match="W_FLI"):
        build_fabric_world((config,), single_switch(len(config.ports)), flows, run)
