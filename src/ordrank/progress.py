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

import psutil
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
    each experiment, then the rebuild from the tables), with the 1-minute load average before and after, written as
    JSON for benchmarks/bench_reproduce.py.

    A step's CPU seconds are those of every process that did its work: this process, the children it
    waited for (a sweep's ``run.py -m``, with the joblib workers that one waited for), and the
    descendants still alive when the step ends (the loky workers of joblib's reusable pool, which
    live on for the next step and are never waited for). In kernel counts, with no sampling:

        CPU = Δ getrusage(SELF) + Δ getrusage(CHILDREN)
              + Σ over descendants alive at the end: their CPU then − their CPU at the start (0 if new)
              − Σ over descendants alive at the start and gone at the end: their CPU at the start,

    a descendant's CPU being its own plus its waited-for children's (psutil's ``cpu_times``). The
    last sum takes out what a process that ended in the step (so counted whole by its waiter) had
    used before the step began. A descendant that ends in the step without being waited for by this
    process or one of its descendants (an orphan, adopted by init) is not counted."""

    def __init__(self):
        self.steps = []
        self._descendants = {}

    @staticmethod
    def _cpu() -> float:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    @staticmethod
    def _descendant_cpu() -> dict[tuple[int, float], float]:
        """{(pid, start time): CPU seconds, its own and its waited-for children's} of every live
        descendant of this process."""
        found = {}
        for process in psutil.Process().children(recursive=True):
            try:
                with process.oneshot():
                    key, times = (process.pid, process.create_time()), process.cpu_times()
            except psutil.NoSuchProcess:  # ended (and was waited for) since the listing
                continue
            found[key] = times.user + times.system + times.children_user + times.children_system
        return found

    def start(self, name: str) -> None:
        cpu = self._cpu()  # before the descendants: one waited for in between is counted once, at most
        self._descendants = self._descendant_cpu()
        self.steps.append({"step": name, "wall": -time.perf_counter(), "cpu": -cpu,
                           "load_before": os.getloadavg()[0]})

    def stop(self) -> None:
        step, cpu, now = self.steps[-1], self._cpu(), self._descendant_cpu()
        before = self._descendants
        cpu += sum(seconds - before.get(key, 0.0) for key, seconds in now.items())
        cpu -= sum(seconds for key, seconds in before.items() if key not in now)
        step["wall"] = round(step["wall"] + time.perf_counter(), 1)
        step["cpu"] = round(step["cpu"] + cpu, 1)
        step["load_after"] = os.getloadavg()[0]

    def write(self, path: Path, quick: bool) -> None:
        from ordrank.results.files import atomic_path

        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp:
            Path(tmp).write_text(json.dumps({"quick": quick, "steps": self.steps}, indent=1) + "\n",
                                 encoding="utf-8")
