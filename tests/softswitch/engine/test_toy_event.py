"""docs/extending/event.md, followed on a copy of the engine: a new event kind with its own state
array, added through the documented steps, runs under the numba JIT, does what it should and
changes nothing else in the run.

The copy is compiled without ``forceinline`` (engine/jit.py: LLVM's inlining of every engine
function into the event loop, which its docstring says changes no result): comparing the copy's
run with the installed, inlined core's checks that claim too. The first run compiles the copy
(about 160 CPU seconds, measured on a loaded 2-core machine); the copy lives in pytest's cache
folder and its files are rewritten only when their text changes, so numba's cache makes the runs
after it cheap (about 3 CPU seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from qosforge.softswitch.engine import layout as L
from qosforge.softswitch.engine.build import single_switch
from qosforge.softswitch.engine.state import WORLD
from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell
from qosforge.softswitch.simulation import SegmentedRun

pytestmark = pytest.mark.slow

ENGINE = Path(L.__file__).resolve().parent
PACKAGE = "qosforge_toy_engine"
PERIOD_S = 1e-4
SPEC = DumbbellSpec(flows=2, transport="dctcp", bandwidth_bps=10e9, rtt_s=1e-4,
                    buffer_bytes=150_000, ecn_threshold_bytes=30_000, duration_s=2.05e-3,
                    warmup_s=5e-4, seed=7)

# The steps of docs/extending/event.md, as (file, anchor, text put before the anchor).
# Step 1: the event kind, and the columns of its state array.
#: The next integer after the last ``EV_*`` kind.
TOY_KIND = 1 + max(value for name, value in vars(L).items() if name.startswith("EV_"))
LAYOUT_KIND = ("layout.py", "\n# --- packet integer columns",
               f"EV_TOY = {TOY_KIND}  # a test's periodic tick\n")
LAYOUT_COLUMNS = ("layout.py", "# link table columns (W_LINK)\n",
                  "# toy tick counters (W_TOY)\nTOY_TICKS = 0\nTOY_LAST = 1\nTOY_COLS = 2\n")
# Step 2: the array, one row at the end of the table (step 3 regenerates layout.py from it).
STATE_ROW = ("state.py", ")\n\n#: The column groups",
             '    WorldArray("W_TOY", "int64", ("TOY_COLS",), "toy tick", "ticks, last tick"),\n')
# Step 4: the handler, compiled with the engine's options.
HANDLER = f'''"""A test's periodic tick: counts itself into W_TOY and schedules the next one."""

from __future__ import annotations

from qosforge.softswitch.engine.heap import schedule
from qosforge.softswitch.engine.jit import World, compiled
from qosforge.softswitch.engine.layout import EV_TOY, PRM_END, TOY_LAST, TOY_TICKS, W_PRMF, W_TOY

PERIOD_S = {PERIOD_S!r}


@compiled
def toy_tick(w: World, now: float, tick: int) -> None:
    toy = w[W_TOY]
    toy[TOY_TICKS] += 1
    toy[TOY_LAST] = tick
    following = (tick + 1) * PERIOD_S
    if following <= w[W_PRMF][PRM_END]:
        schedule(w, following, EV_TOY, tick + 1, 0, 0.0)
'''
# Step 5: the kernel's dispatch.
KERNEL_IMPORT = ("kernel.py", "from qosforge.softswitch.engine.pfc_time import pause_time\n",
                 "from qosforge.softswitch.engine.layout import EV_TOY\n"
                 "from qosforge.softswitch.engine.toy import toy_tick\n")
KERNEL_BRANCH = ("kernel.py", "    while stf[STF_NEXT_SAMPLE] <= end:\n",
                 "        elif kind == EV_TOY:\n            toy_tick(w, now, a)\n")
# Step 6: the first event, pushed when the run is built.
BUILD_PUSH = ("build.py", "    for pause in run.pauses:\n",
              "    push(*queue, 0.0, L.EV_TOY, 0, 0, 0.0)\n")

RUNNER = '''import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from qosforge.softswitch.helper.single_switch import DumbbellSpec, dumbbell
from PACKAGE import layout as L
from PACKAGE.build import build_world, schedule_initial_events
from PACKAGE.core import kernel
spec = DumbbellSpec(**json.loads(sys.argv[2]))
config, flows, run = dumbbell(spec)
world = build_world(config, flows, run)
schedule_initial_events(world, flows, run)
core = kernel(allow_ahead_of_time=False)
core.seed_kernel(run.seed)
core.run_kernel(world)
np.savez(sys.argv[3], *world)
print(L.W_TOY, L.W_LEN)
'''.replace("PACKAGE", PACKAGE)


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _insert(sources: dict[str, str], step: tuple[str, str, str]) -> None:
    name, anchor, text = step
    assert sources[name].count(anchor) == 1, f"{name} no longer has one {anchor!r}"
    sources[name] = sources[name].replace(anchor, text + anchor)


def _toy_engine(root: Path) -> Path:
    """The engine with the toy event added, as package :data:`PACKAGE` under ``root``."""
    sources = {path.name: path.read_text() for path in ENGINE.glob("*.py")}
    for step in (LAYOUT_KIND, LAYOUT_COLUMNS, STATE_ROW, KERNEL_IMPORT, KERNEL_BRANCH, BUILD_PUSH):
        _insert(sources, step)
    sources["toy.py"] = HANDLER
    inlined = "_njit(cache=True, _nrt=False, forceinline=True)"
    assert sources["jit.py"].count(inlined) == 1
    sources["jit.py"] = sources["jit.py"].replace(inlined, "_njit(cache=True, _nrt=False)")
    package = root / PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    for name, text in sources.items():
        _write_if_changed(package / name, text.replace("qosforge.softswitch.engine", PACKAGE))
    # Step 3: regenerate layout.py's world block from the table.
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run([sys.executable, "-m", f"{PACKAGE}.state"], check=True, env=env,
                   capture_output=True, cwd=root)
    return package


ToyRun = tuple[dict[int, np.ndarray], int, int]


@pytest.fixture(scope="module")
def toy_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> ToyRun:
    root = Path(request.config.cache.mkdir("toy-event-engine"))
    package = _toy_engine(root)
    assert f"W_TOY = {L.W_LEN}  # int64 [TOY_COLS]" in (package / "layout.py").read_text()
    out = tmp_path_factory.mktemp("toy") / "world.npz"
    fields = {name: getattr(SPEC, name) for name in SPEC.__dataclass_fields__}
    done = subprocess.run([sys.executable, "-c", RUNNER, str(root), json.dumps(fields), str(out)],
                          check=True, capture_output=True, text=True, timeout=1800)
    toy_index, world_len = (int(word) for word in done.stdout.split()[-2:])
    with np.load(out) as saved:
        world = {i: saved[f"arr_{i}"] for i in range(world_len)}
    return world, toy_index, world_len


def test_the_toy_event_runs_and_counts_every_tick(toy_run: ToyRun) -> None:
    world, toy_index, world_len = toy_run
    assert (toy_index, world_len) == (L.W_LEN, L.W_LEN + 1)  # one array appended
    ticks, last = world[toy_index]
    # Ticks at 0, 0.1 ms, ..., 2.0 ms: the run ends at 2.05 ms.
    assert (ticks, last) == (21, 20)


def test_the_toy_event_changes_nothing_else(toy_run: ToyRun) -> None:
    world, _, _ = toy_run
    config, flows, run = dumbbell(SPEC)
    plain = SegmentedRun((config,), single_switch(len(config.ports)), flows, run)
    plain.advance(run.duration_s, timed=False)
    assert plain.world[L.W_CNT][L.C_DELIVERED_BYTES] > 0  # the run carried traffic
    # The event queue's own arrays hold which slot each event took, and the toy's events take
    # slots too: everything else must be identical.
    queue = {i for i, row in enumerate(WORLD) if row.feature == "event queue (engine/heap.py)"}
    queue -= {L.W_START_S, L.W_START_FLOW}
    assert {L.W_HT, L.W_SLOTI, L.W_LANE_S, L.W_EVENT} <= queue
    for index in sorted(set(range(L.W_LEN)) - queue):
        expected = plain.world[index].copy()
        if index == L.W_CNT:
            expected[L.C_EVENTS] += 21  # the toy's events, and nothing else
        if index == L.W_ST:
            expected[L.ST_SEQ] += 21  # each pushed event takes the next sequence number
        np.testing.assert_array_equal(world[index], expected, err_msg=WORLD[index].name)
