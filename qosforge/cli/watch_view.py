"""The live terminal view of ``qosforge watch`` (rich ``Live``): per switch, port and class, the
counters watched next to what the design predicted. Redrawn at most four times a second from
the main thread; the streams add samples under ``lock``."""

from __future__ import annotations

import threading
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.table import Table

from qosforge.api.watch import Counter, CounterKey

MAX_ROWS = 40


def _bytes(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def table(expectations: dict[str, Any], observations: dict[str, Any]) -> Table:
    """One row per (switch, port, class) with any activity, busiest queues first."""
    grid = Table(title="qosforge watch: observed vs predicted", expand=False)
    for column in ("switch", "port", "class", "queue wm B", "K B", "ECN marks", "q drops", "PG hr wm B", "xoff B", "PG drops", "PFC rx pause ms"):
        grid.add_column(column, justify="right" if column not in ("switch", "port", "class") else "left")
    rows: list[tuple[float, list[str]]] = []
    for name, observation in observations.items():
        expectation = expectations[name]
        ports = sorted({key.port for (_, key) in observation.series})
        for port in ports:
            for cls in expectation.classes:
                queue_key = CounterKey(port, cls.queue)
                wm = observation.get(Counter.QUEUE_WATERMARK_BYTES, queue_key)
                marks = observation.get(Counter.QUEUE_ECN_MARKED_PACKETS, queue_key)
                drops = observation.get(Counter.QUEUE_DROPPED_PACKETS, queue_key)
                pg_key = CounterKey(port, cls.priority_group) if cls.priority_group is not None else None
                hr = observation.get(Counter.PG_HEADROOM_WATERMARK_BYTES, pg_key) if pg_key else None
                pg_drops = observation.get(Counter.PG_DROPPED_PACKETS, pg_key) if pg_key else None
                pause = observation.get(Counter.PFC_RX_PAUSE_US, pg_key) if pg_key else None
                headroom = expectation.headroom.get(port)
                activity = float(wm.peak if wm else 0) + float(hr.peak if hr else 0)
                if activity == 0 and not (drops and drops.peak) and not (pause and pause.peak):
                    continue
                rows.append((activity, [
                    name, port, cls.name,
                    _bytes(wm.peak if wm else None),
                    _bytes(cls.marking.min.value if cls.marking else None),
                    "-" if marks is None else f"{marks.last.value:,}",
                    "-" if drops is None else f"{drops.last.value:,}",
                    _bytes(hr.peak if hr else None),
                    _bytes(headroom.xoff.value if headroom and cls.lossless else None),
                    "-" if pg_drops is None else f"{pg_drops.last.value:,}",
                    "-" if pause is None else f"{int(pause.last.value) / 1000:,.1f}",
                ]))
    for _, row in sorted(rows, key=lambda item: -item[0])[:MAX_ROWS]:
        grid.add_row(*row)
    if not rows:
        grid.caption = "no queue or priority group has been busy yet"
    return grid


class LiveView:
    def __init__(self, expectations: dict[str, Any], observations: dict[str, Any], lock: threading.Lock) -> None:
        self.expectations = expectations
        self.observations = observations
        self.lock = lock
        self.live = Live(console=Console(stderr=False), refresh_per_second=4, transient=False)

    def start(self) -> None:
        self.live.start()

    def refresh(self) -> None:
        with self.lock:
            view = table(self.expectations, self.observations)
        self.live.update(view)

    def stop(self) -> None:
        self.live.stop()


__all__ = ["LiveView", "table"]
