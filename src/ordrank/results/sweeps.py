"""Sweeps: the state of each job of a ``-m`` sweep folder, collecting the finished tables into one
(``python -m ordrank.results collect``)."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ordrank.results.tables import CORE, ERROR, FINISHED, concat_tables, key_columns
from ordrank.results.files import partial_path, read_table, timings_path, write_table

def duplicate_key_columns(table: pd.DataFrame) -> list[str]:
    """What identifies a row across jobs: its key columns and its job's configuration (``config.*``)."""
    return key_columns(table) + sorted(c for c in table.columns if c.startswith("config."))


def collect(paths) -> pd.DataFrame:
    """Concatenate the tables of many runs (e.g. a ``-m`` sweep) into one; refuse duplicate rows.

    A duplicate is the same key columns from the same configuration twice (e.g. a job's folder
    copied, or ``only=[A,B]`` and ``only=A`` of one sweep point); rows that differ only in their
    ``config.*`` columns are different sweep points and are kept.
    """
    paths = [Path(p) for p in paths]
    tables = [read_table(p) for p in paths]
    if not tables:
        raise ValueError("no results tables to collect")
    for path, part in zip(paths, tables):
        lacking = [c for c in [*CORE, "metric", "value"] if c not in part.columns]
        if lacking:  # merged, its rows would get NaN metrics
            raise ValueError(f"{path} is not a results table: it lacks the column(s) {lacking} "
                             f"(has {list(part.columns)[:8]}); leave it out of the folder collected")
    table = concat_tables(tables)
    keys = duplicate_key_columns(table)
    twice = table.duplicated(keys, keep=False)
    if twice.any():
        raise ValueError(_duplicates_message(table, twice, paths, tables))
    return table


def _job_overrides(path: Path) -> str:
    """The Hydra overrides of the job whose folder holds the table ``path`` (as typed), if known."""
    import yaml

    overrides = path.parent / ".hydra" / "overrides.yaml"
    if not overrides.is_file():
        return "not a Hydra job"
    return " ".join(map(str, yaml.safe_load(overrides.read_text()) or [])) or "no overrides"


def _duplicates_message(table, twice, paths, tables) -> str:
    """Which tables share rows (with their jobs' overrides), the first rows, and the ways out."""
    source = np.repeat(np.arange(len(tables)), [len(t) for t in tables])
    colliding = sorted({int(i) for i in source[twice.to_numpy()]})
    named = "; ".join(f"{paths[i]} ({_job_overrides(paths[i])})" for i in colliding[:6])
    more = f"; and {len(colliding) - 6} more" if len(colliding) > 6 else ""
    shown = table.loc[twice, key_columns(table)].drop_duplicates().head(5).to_string(index=False)
    return (f"{int(twice.sum())} rows occur more than once (same key columns and config) among "
            f"{len(tables)} tables: they come from {named}{more}. Keep one run of each: move the "
            "older job folder out of the folder collected (or delete it), or run a new sweep into its "
            f"own folder (hydra.sweep.dir=multirun/<new name>) and collect that; first ones:\n{shown}")


@dataclass
class Job:
    """One job of a sweep: its folder (``None`` when it never started), state and a one-line detail."""

    folder: Path | None
    state: str          # "finished" | "failed" | "missing"
    detail: str = ""
    overrides: list = field(default_factory=list)


def _job_state(folder: Path, name: str) -> Job:
    import yaml

    overrides_file = folder / ".hydra" / "overrides.yaml"
    overrides = (yaml.safe_load(overrides_file.read_text()) or []) if overrides_file.is_file() else []
    table, partial = folder / name, partial_path(folder / name)
    if table.is_file() and (folder / FINISHED).is_file():
        return Job(folder, "finished", "", overrides)
    kept = ""
    if partial.is_file():
        kept = f"; {len(read_table(partial))} rows of finished pieces kept in {partial.name}"
    if (folder / ERROR).is_file():
        first = (folder / ERROR).read_text(encoding="utf-8").splitlines()[:1] or ["(empty ERROR file)"]
        return Job(folder, "failed", first[0] + kept, overrides)
    why = "a table without a FINISHED marker" if table.is_file() else "no finished table"
    return Job(folder, "missing", f"{why} and no ERROR (killed, or still running){kept}", overrides)


def expected_jobs(sweep_dir: Path) -> list[list[str]] | None:
    """Each job's overrides, in job-number order, of the sweep recorded in ``<sweep_dir>/multirun.yaml``.

    Expanded the way Hydra's basic sweeper does (``hydra.sweeper.params`` and the command line's
    sweep overrides) for it and its subclasses; ``None`` when the file is absent or the sweep cannot
    be expanded (another sweeper).
    """
    from omegaconf import OmegaConf

    path = sweep_dir / "multirun.yaml"
    if not path.is_file():
        return None
    try:
        from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
        from hydra.core.override_parser.overrides_parser import OverridesParser

        from hydra.utils import get_class

        hydra_cfg = OmegaConf.load(path).hydra
        if not issubclass(get_class(str(hydra_cfg.sweeper.get("_target_", ""))), BasicSweeper):
            return None  # (the project's sweeper, hydra_plugins.ordrank_sweeper, is a BasicSweeper)
        params = hydra_cfg.sweeper.get("params") or {}
        arguments = [f"{k}={v}" for k, v in params.items()] + list(hydra_cfg.overrides.task)
        overrides = OverridesParser.create().parse_overrides(arguments)
        return [job for batch in BasicSweeper.split_arguments(overrides, None) for job in batch]
    except Exception as error:  # noqa: BLE001 - the check is skipped, and said so
        print(f"note: cannot expand the sweep in {path} ({error}); only job folders are checked",
              file=sys.stderr)
        return None


def sweep_jobs(folder: str | os.PathLike, name: str = "results.parquet") -> list[Job]:
    """Every job under ``folder``: each folder holding ``.hydra/``, and each job that a sweep's
    ``multirun.yaml`` lists but that has no folder (it never started)."""
    folder = Path(folder)
    jobs = [_job_state(hydra.parent, name) for hydra in sorted(folder.rglob(".hydra")) if hydra.is_dir()]
    for multirun in sorted(folder.rglob("multirun.yaml")):
        expected = expected_jobs(multirun.parent)
        if expected is None:
            continue
        present = {frozenset(job.overrides) for job in jobs
                   if job.folder is not None and job.folder.is_relative_to(multirun.parent)}
        for number, overrides in enumerate(expected):
            if frozenset(overrides) not in present:
                jobs.append(Job(None, "missing", f"job #{number} of {multirun.parent} has no folder "
                                                 "(never started)", list(overrides)))
    return jobs


def main(argv=None) -> int:
    """``python -m ordrank.results collect SOURCE [SOURCE ...] -o OUT``: merge the finished tables of
    sweeps (a SOURCE that is a folder) and tables already merged (a SOURCE that is a ``.parquet`` or
    ``.csv`` file, e.g. the committed table that new sweeps add to), with their timings tables (into
    OUT's :func:`timings_path`); the external learner pieces the jobs computed go into ``external_cache.parquet``
    beside OUT (:func:`ordrank.results.external_cache.merge`).

    Writes the merged table of the finished jobs (atomically; OUT may be one of the SOURCEs), lists
    failed jobs (with their one-line error) and missing ones (killed or never started) on stderr, and
    returns 1 when there are any (0 when every job finished, 2 when nothing can be written, e.g.
    duplicate rows).
    """
    import argparse

    parser = argparse.ArgumentParser(prog="python -m ordrank.results")
    sub = parser.add_subparsers(dest="command", required=True)
    collect_cmd = sub.add_parser("collect", help="merge the finished tables of sweep folders and tables")
    collect_cmd.add_argument("sources", nargs="+", type=Path, metavar="SOURCE",
                             help="a sweep folder, or a table file (.parquet / .csv) to merge as it is")
    collect_cmd.add_argument("-o", "--out", type=Path, required=True)
    collect_cmd.add_argument("--name", default="results.parquet", help="table file name to look for")
    args = parser.parse_args(argv)
    if args.out.is_dir() or args.out.suffix not in (".parquet", ".csv"):
        print(f"error: -o {args.out} must be a table file ending in .parquet or .csv"
              + (" (it is a folder)" if args.out.is_dir() else ""), file=sys.stderr)
        return 2
    jobs, paths = [], []
    for source in args.sources:
        if source.is_file() and source.suffix in (".parquet", ".csv"):
            paths.append(source)
        elif source.is_dir():
            found = sweep_jobs(source, args.name)
            job_folders = {job.folder for job in found if job.folder is not None}
            paths += sorted(job.folder / args.name for job in found if job.state == "finished")
            paths += sorted(p for p in source.rglob(args.name)  # tables outside Hydra job folders
                            if p.parent not in job_folders and p.resolve() != args.out.resolve())
            jobs += found
        else:
            print(f"error: {source} is neither a folder nor a .parquet / .csv table", file=sys.stderr)
            return 2
    problems = [job for job in jobs if job.state != "finished"]
    for state in ("failed", "missing"):
        listed = [job for job in problems if job.state == state]
        if listed:
            print(f"{state} jobs ({len(listed)}):", file=sys.stderr)
        for job in listed:
            where = job.folder if job.folder is not None else " ".join(job.overrides)
            print(f"  {where}: {job.detail}", file=sys.stderr)
    if not paths:
        print(f"error: no finished {args.name} under {' '.join(map(str, args.sources))}", file=sys.stderr)
        return 2
    try:
        table = collect(paths)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    timed = [timings_path(p) for p in paths if timings_path(p).is_file()]
    if timed:  # the jobs' timings tables, merged beside the output (its timings_path)
        try:
            timings = collect(timed)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        write_table(timings.sort_values(key_columns(timings), kind="stable", ignore_index=True),
                    timings_path(args.out))
    else:
        timings_path(args.out).unlink(missing_ok=True)
    write_table(table.sort_values(key_columns(table), kind="stable", ignore_index=True), args.out)
    from ordrank.results.external_cache import FILE, located, merge  # jobs' external pieces -> cache beside OUT

    job_files = [located(job.folder / FILE) for job in jobs if job.state == "finished"]
    cache_line = merge([path for path in job_files if path.is_file()], args.out)
    n_jobs, n_files = len(jobs), sum(source.is_file() for source in args.sources)
    merged = f"{n_jobs} jobs" if jobs else f"{len(paths)} tables"
    merged += f" and {n_files} table file(s)" if jobs and n_files else ""
    print(f"collected {len(paths)} tables ({len(table)} rows) of {merged} -> {args.out}")
    if cache_line:
        print(cache_line)
    if problems:
        failed = sum(job.state == "failed" for job in problems)
        print(f"incomplete: {failed} failed and {len(problems) - failed} missing of {n_jobs} jobs (listed "
              "above); start the sweep again with resume=true to run only those", file=sys.stderr)
        return 1
    return 0
