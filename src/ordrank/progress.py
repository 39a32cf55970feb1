"""Progress bars for long protocols, and the seconds each step of a long command took.

Bars: tqdm on stderr, shown only where someone can watch them.

``ORDRANK_PROGRESS`` decides: unset or ``auto`` = a bar when stderr is a terminal (so logs, sweeps
and tests stay clean), ``1`` = always, ``0`` = never. Bars never change a result.
"""
from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

from tqdm import tqdm

SETTINGS = {"auto": None, "1": False, "0": True}  # value -> tqdm's `disable` (None: off unless a TTY)


def progress(total: int, desc: str, unit: str = "piece") -> tqdm:
    """A bar over ``total`` pieces of work (items done, rate, time left), written to stderr."""
    setting = os.environ.get("ORDRANK_PROGRESS", "auto").strip().lower()
    if setting not in SETTINGS:
        raise ValueError(f"ORDRANK_PROGRESS must be one of {sorted(SETTINGS)}, got {setting!r}")
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=SETTINGS[setting],
                leave=False, dynamic_ncols=True)


class StepTimes:
    """Wall and CPU seconds of each step of a command (``experiments/reproduce.py --timings FILE``:
    each experiment, then the redraw), with the 1-minute load average before and after, written as
    JSON for benchmarks/bench_reproduce.py.

    CPU seconds are this process's plus its finished children's (a sweep's ``run.py -m`` and the
    joblib workers it waited for), from ``resource.getrusage``."""

    def __init__(self):
        self.steps = []

    @staticmethod
    def _cpu() -> float:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    def start(self, name: str) -> None:
        self.steps.append({"step": name, "wall": -time.perf_counter(), "cpu": -self._cpu(),
                           "load_before": os.getloadavg()[0]})

    def stop(self) -> None:
        step = self.steps[-1]
        step["wall"] = round(step["wall"] + time.perf_counter(), 1)
        step["cpu"] = round(step["cpu"] + self._cpu(), 1)
        step["load_after"] = os.getloadavg()[0]

    def write(self, path: Path, quick: bool) -> None:
        from ordrank.results import atomic_path

        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp:
            Path(tmp).write_text(json.dumps({"quick": quick, "steps": self.steps}, indent=1) + "\n",
                                 encoding="utf-8")
