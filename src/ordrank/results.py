"""Tidy (long) results tables: the schema, atomic writes, publishing, aggregation of many runs.

One row per (experiment, dataset, algorithm, <protocol keys>, metric) with the measured ``value``,
then any extra columns a protocol adds (``user``, ``params``, ``status``), then the run's resolved
configuration as ``config.*`` columns. The protocol keys are ``seed, step`` for online curves,
``bins, split`` for train/test partitions and ``seed, n_train, m, p`` for subset ranking: each
protocol class declares them (its ``keys`` attribute) and :func:`finalize` writes them between
``algorithm`` and ``metric``, so a table says which of its columns are keys (:func:`protocol_keys`)
and a new protocol needs no edit here. Figures and reports are group-bys of these tables.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

CORE = ["experiment", "dataset", "algorithm"]
KEYS = [*CORE, "seed", "step", "metric"]  # the online protocols' keys
COLUMNS = [*KEYS, "value"]
FINISHED = "FINISHED"  # in a job's folder: its table is complete; holds the config's fingerprint
ERROR = "ERROR"        # in a job's folder: why its last attempt failed (removed when one succeeds)


def protocol_keys(table: pd.DataFrame) -> list[str]:
    """The protocol keys of a table laid out by :func:`finalize`: the columns between the core
    columns (experiment, dataset, algorithm) and ``metric, value``. Any other layout is refused."""
    columns = [str(c) for c in table.columns]
    core = len(CORE)
    if columns[:core] != CORE or "metric" not in columns or \
            columns[columns.index("metric") + 1:columns.index("metric") + 2] != ["value"]:
        raise ValueError(f"not a results table: its columns must start with {', '.join(CORE)}, then the "
                         f"protocol keys, then metric, value (as finalize writes them); got {columns[:10]}")
    return columns[core:columns.index("metric")]


def key_columns(table: pd.DataFrame, keys=None) -> list[str]:
    """The identifying columns of ``table``: core, the protocol keys (given, or the table's), metric."""
    keys = protocol_keys(table) if keys is None else list(keys)
    return [*CORE, *keys, "metric"]


def concat_tables(tables) -> pd.DataFrame:
    """Tables (of one protocol or several) as one, laid out as :func:`finalize` does: the union of
    their protocol keys (in order of appearance) between the core columns and ``metric, value``."""
    keys = list(dict.fromkeys(k for t in tables for k in protocol_keys(t)))
    table = pd.concat(tables, ignore_index=True)
    ordered = [*CORE, *keys, "metric", "value"]
    return table[ordered + [c for c in table.columns if c not in ordered]]


def curve_records(curves: np.ndarray, steps: np.ndarray, **constants) -> pd.DataFrame:
    """Long table of per-seed curves: ``curves[i, j]`` is seed i's value at ``steps[j]``."""
    n_seeds, n_steps = curves.shape
    table = pd.DataFrame({
        "seed": np.repeat(np.arange(n_seeds), n_steps),
        "step": np.tile(np.asarray(steps, dtype=np.int64), n_seeds),
        "value": curves.ravel().astype(np.float64),
    })
    for name, value in constants.items():
        table.insert(0, name, value)
    return table


def flatten_config(config: dict, prefix: str = "config") -> dict:
    """Nested config → ``{"config.a.b": scalar}``; lists and other non-scalars become JSON text."""
    flat = {}
    for key, value in config.items():
        name = f"{prefix}.{key}"
        if isinstance(value, dict):
            flat.update(flatten_config(value, name))
        elif value is None or isinstance(value, (bool, int, float, str)):
            flat[name] = value if value is not None else "null"
        else:
            flat[name] = json.dumps(value)
    return flat


def finalize(table: pd.DataFrame, experiment: str, dataset: str, config: dict,
             keys=("seed", "step")) -> pd.DataFrame:
    """Add the experiment/dataset keys and config columns; order columns and rows canonically.

    ``keys`` are the protocol's key columns (``protocol.keys``).
    """
    table = table.assign(experiment=experiment, dataset=dataset)
    ordered = key_columns(table, keys)
    missing = set(ordered + ["value"]) - set(table.columns)
    if missing:
        raise ValueError(f"results table lacks required columns {sorted(missing)}")
    extra = [c for c in table.columns if c not in ordered and c != "value"]
    table = table[ordered + ["value"] + extra]
    config_cols = pd.DataFrame({k: [v] * len(table) for k, v in flatten_config(config).items()})
    table = pd.concat([table.reset_index(drop=True), config_cols], axis=1)
    return table.sort_values(ordered, kind="stable", ignore_index=True)


@contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temp path beside ``path``; on success it becomes ``path`` (chmod by umask, rename).

    Readers never see a half-written file, and a failure leaves the old file (if any) untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield tmp
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_table(table: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write ``table`` to ``path`` (.parquet or .csv) atomically: a temp file, then a rename."""
    path = Path(path)
    if path.suffix not in (".parquet", ".csv"):
        raise ValueError(f"unknown table format {path.suffix!r} for {path}: use .parquet or .csv")
    with atomic_path(path) as tmp:
        if path.suffix == ".parquet":
            table.to_parquet(tmp, index=False, engine="pyarrow", compression="zstd")
        else:
            table.to_csv(tmp, index=False, float_format="%.17g")
    return path


def publish(path: str | os.PathLike, results_dir: str | os.PathLike, experiment: str,
            name: str) -> Path:
    """Copy a run's table, byte for byte, to ``<results_dir>/<experiment>/<name><suffix>`` atomically,
    and its timings table (:func:`timings_path`) beside it; a stale timings table there is removed
    when the run has none."""
    path = Path(path)
    target = Path(results_dir) / experiment / f"{name}{path.suffix}"
    if timings_path(path).is_file():
        with atomic_path(timings_path(target)) as tmp:
            shutil.copyfile(timings_path(path), tmp)
    else:
        timings_path(target).unlink(missing_ok=True)
    with atomic_path(target) as tmp:
        shutil.copyfile(path, tmp)
    return target


def timings_path(path: str | os.PathLike) -> Path:
    """The timings table beside a results table: ``benchmark.parquet`` → ``benchmark.timings.parquet``.

    Measured seconds differ between two runs of the same config, so a protocol that measures them
    names those metrics (its ``timing_metrics``) and the app writes their rows here, leaving the
    results table byte for byte the same on a rerun. Same schema as the results table."""
    path = Path(path)
    return path.with_name(f"{path.stem}.timings{path.suffix}")


def split_timings(table: pd.DataFrame, metrics) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the rows whose metric is not among ``metrics``, the rows whose metric is), each re-indexed."""
    timed = table["metric"].isin(list(metrics))
    return table[~timed].reset_index(drop=True), table[timed].reset_index(drop=True)


def read_timings(path: str | os.PathLike) -> pd.DataFrame | None:
    """The timings table beside the results table ``path``, or None where there is none."""
    timings = timings_path(path)
    return read_table(timings) if timings.is_file() else None


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"results table {path} not found")
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def partial_path(path: str | os.PathLike) -> Path:
    """Where a run keeps its finished pieces until it is done: ``results.parquet`` → ``results.partial.parquet``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.partial{path.suffix}")


def write_error(folder: str | os.PathLike, error: BaseException, overrides=None, note: str = "") -> Path:
    """Record why a job failed in ``<folder>/ERROR`` (atomically).

    Line 1 is the exception's one-line message (``Type: message``); then the job's overrides, an
    optional note (e.g. what was kept), and the traceback.
    """
    message = " ".join(str(error).split()) or "(no message)"
    lines = [f"{type(error).__name__}: {message}",
             "overrides: " + (" ".join(map(str, overrides)) if overrides is not None else "(not a Hydra job)")]
    if note:
        lines.append(note)
    lines += ["", *traceback.format_exception(error)]
    target = Path(folder) / ERROR
    with atomic_path(target) as tmp:
        Path(tmp).write_text("\n".join(line.rstrip("\n") for line in lines) + "\n", encoding="utf-8")
    return target


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
    sweep overrides); ``None`` when the file is absent or the sweep cannot be expanded (another sweeper).
    """
    from omegaconf import OmegaConf

    path = sweep_dir / "multirun.yaml"
    if not path.is_file():
        return None
    try:
        from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
        from hydra.core.override_parser.overrides_parser import OverridesParser

        hydra_cfg = OmegaConf.load(path).hydra
        if not str(hydra_cfg.sweeper.get("_target_", "")).endswith("BasicSweeper"):
            return None
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


def summarize(table: pd.DataFrame, by=("experiment", "dataset", "algorithm", "step", "metric")):
    """Mean, standard error and count over seeds."""
    grouped = table.groupby(list(by), sort=True)["value"]
    out = grouped.agg(mean="mean", sem="sem", n="count").reset_index()
    return out


def main(argv=None) -> int:
    """``python -m ordrank.results collect SOURCE [SOURCE ...] -o OUT``: merge the finished tables of
    sweeps (a SOURCE that is a folder) and tables already merged (a SOURCE that is a ``.parquet`` or
    ``.csv`` file, e.g. the committed table that new sweeps add to), with their timings tables (into
    OUT's :func:`timings_path`); the peer pieces the jobs computed go into ``peer_cache.parquet``
    beside OUT (:func:`ordrank.peer_cache.merge`).

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
    from ordrank.peer_cache import FILE, merge  # the jobs' peer pieces, into the cache beside OUT

    peers = merge([job.folder / FILE for job in jobs if job.state == "finished" and (job.folder / FILE).is_file()],
                  args.out)
    n_jobs, n_files = len(jobs), sum(source.is_file() for source in args.sources)
    merged = f"{n_jobs} jobs" if jobs else f"{len(paths)} tables"
    merged += f" and {n_files} table file(s)" if jobs and n_files else ""
    print(f"collected {len(paths)} tables ({len(table)} rows) of {merged} -> {args.out}")
    if peers:
        print(peers)
    if problems:
        failed = sum(job.state == "failed" for job in problems)
        print(f"incomplete: {failed} failed and {len(problems) - failed} missing of {n_jobs} jobs (listed "
              "above); start the sweep again with resume=true to run only those", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
