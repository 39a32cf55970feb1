"""Progress bars for long protocols: tqdm on stderr, shown only where someone can watch them.

``ORDRANK_PROGRESS`` decides: unset or ``auto`` = a bar when stderr is a terminal (so logs, sweeps
and tests stay clean), ``1`` = always, ``0`` = never. Bars never change a result.
"""
from __future__ import annotations

import os
import sys

from tqdm import tqdm

SETTINGS = {"auto": None, "1": False, "0": True}  # value -> tqdm's `disable` (None: off unless a TTY)


def progress(total: int, desc: str, unit: str = "piece") -> tqdm:
    """A bar over ``total`` pieces of work (items done, rate, time left), written to stderr."""
    setting = os.environ.get("ORDRANK_PROGRESS", "auto").strip().lower()
    if setting not in SETTINGS:
        raise ValueError(f"ORDRANK_PROGRESS must be one of {sorted(SETTINGS)}, got {setting!r}")
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=SETTINGS[setting],
                leave=False, dynamic_ncols=True)
