"""Per-thread stdout capture: points running in threads of one worker never mix their JSON."""

from __future__ import annotations

import sys
import threading

from qosforge.campaigns.capture import captured_stdout


def test_capture_is_per_thread() -> None:
    results: dict[int, str] = {}
    barrier = threading.Barrier(4)

    def worker(index: int) -> None:
        with captured_stdout() as buffer:
            barrier.wait()
            for _ in range(200):
                sys.stdout.write(f"{index}")
        results[index] = buffer.getvalue()

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {index: str(index) * 200 for index in range(4)}
