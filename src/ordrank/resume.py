"""Resuming a single run: reuse the finished pieces an interrupted attempt left in its partial table.

A sweep started again with ``resume=true`` skips its finished jobs; a single run started again in
the same folder (``hydra.run.dir``) with ``resume=true`` keeps the pieces its earlier attempt
finished (``results.partial.parquet``) and computes only the others, when the protocol can skip
pieces (``finished_pieces`` and ``iter_run(..., skip=...)``) and the configuration is the same.
"""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from ordrank.results.tables import flatten_config
from ordrank.results.files import read_table

log = logging.getLogger(__name__)


def reusable_pieces(partial: Path, config: dict, protocol):
    """The rows of an earlier attempt's partial table that this run would compute again, and the
    protocol's names of those pieces: ``(rows, skip)``, or ``(None, set())`` when there are none.

    Rows are reused only when their ``config.*`` columns are exactly this run's configuration and
    the protocol can skip pieces (it has ``finished_pieces``); they are returned as the protocol
    yields them (without the experiment, dataset and config columns that finalize adds again)."""
    if not partial.is_file() or not hasattr(protocol, "finished_pieces"):
        return None, set()
    try:
        rows = read_table(partial)
    except Exception as error:  # noqa: BLE001 - an unreadable partial table is recomputed
        log.warning("partial table %s cannot be read (%s): its pieces are recomputed", partial, error)
        return None, set()
    expected = flatten_config(config)
    columns = {c for c in rows.columns if c.startswith("config.")}
    if columns != set(expected) or rows.empty:
        return None, set()
    same = np.ones(len(rows), dtype=bool)
    for column, value in expected.items():
        same &= (rows[column] == value).to_numpy()
    if not same.all():
        return None, set()
    rows = rows.drop(columns=["experiment", "dataset", *sorted(columns)]).reset_index(drop=True)
    return rows, protocol.finished_pieces(rows)


def mark_interrupted_jobs(sweep_dir: str | Path, reason: BaseException, name: str = "results.parquet") -> list[Path]:
    """Write an ERROR file in every job folder of the sweep ``sweep_dir`` that started but has
    neither a finished table nor an ERROR (its worker was ended with the sweep, e.g. by Ctrl-C of the
    launching process: joblib's workers are killed without unwinding); return those folders."""
    from ordrank.results.files import partial_path, write_error
    from ordrank.results.sweeps import sweep_jobs

    marked = []
    for job in sweep_jobs(sweep_dir, name):
        if job.state != "missing" or job.folder is None:
            continue
        partial = partial_path(job.folder / name)
        note = (f"kept: {len(read_table(partial))} rows of finished pieces in {partial.name}"
                if partial.is_file() else "kept: nothing (no piece had finished)")
        write_error(job.folder, reason, job.overrides, f"{note}; the sweep was stopped while this job ran")
        marked.append(job.folder)
    return marked


try:
    from hydra.experimental.callback import Callback
except ImportError:  # pragma: no cover - Hydra is a dependency
    Callback = object


class RememberSweep(Callback):
    """A Hydra callback (conf/config.yaml, ``hydra.callbacks``): remembers, in the launching process,
    the folder of the sweep that runs, so that a Ctrl-C there can mark the jobs it interrupted."""

    folder: Path | None = None

    def on_multirun_start(self, config, **kwargs) -> None:
        RememberSweep.folder = Path(config.hydra.sweep.dir)
