"""Writing and reading tables: atomic writes, publishing, the timings table beside a results
table, a job's partial table and ERROR file."""
from __future__ import annotations

import json
import os
import platform
import shutil
import tempfile
import traceback
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ordrank.results.tables import ERROR

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


# The libraries whose versions a results table records (its parquet metadata, :func:`table_versions`)
VERSIONED = ("numpy", "scipy", "pandas", "scikit-learn", "cvxpy", "clarabel", "numba", "statsmodels",
             "skordinal", "mord", "lightgbm", "xgboost-cpu", "ranx", "pytrec-eval-terrier")
VERSIONS_KEY = b"ordrank.versions"


def library_versions() -> dict[str, str]:
    """Python's version and each of :data:`VERSIONED`'s installed version ("not installed" where absent)."""
    versions = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def table_versions(path: str | os.PathLike) -> dict[str, str] | None:
    """The library versions that made the parquet table ``path``: from its jobs table when it has one
    (:func:`jobs_path`; a library's versions over the jobs, comma-separated where they differ,
    ``unknown`` for jobs run before versions were recorded), else from the table's own metadata
    (None in a table written before versions were recorded)."""
    path = Path(path)
    results = path.with_name(path.name.replace(".timings.", ".")) if ".timings." in path.name else path
    jobs = read_jobs(results)  # a timings table's jobs are its results table's
    if jobs is not None and "versions" in jobs:
        recorded = [None if v == "unknown" else json.loads(v) for v in jobs["versions"]]
        names = sorted({name for v in recorded if v for name in v} or {"python", *VERSIONED})
        return {name: ", ".join(sorted({"unknown" if v is None else v.get(name, "not installed")
                                        for v in recorded})) for name in names}
    recorded = (pq.read_schema(path).metadata or {}).get(VERSIONS_KEY)
    return None if recorded is None else json.loads(recorded)


def write_table(table: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write ``table`` to ``path`` (.parquet or .csv) atomically: a temp file, then a rename. A parquet
    table records the versions of the libraries that made it in its metadata (:func:`table_versions`)."""
    path = Path(path)
    if path.suffix not in (".parquet", ".csv"):
        raise ValueError(f"unknown table format {path.suffix!r} for {path}: use .parquet or .csv")
    with atomic_path(path) as tmp:
        if path.suffix == ".parquet":
            arrow = pa.Table.from_pandas(table, preserve_index=False)
            recorded = json.dumps(library_versions(), sort_keys=True).encode()
            arrow = arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), VERSIONS_KEY: recorded})
            pq.write_table(arrow, tmp, compression="zstd")
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


def jobs_path(path: str | os.PathLike) -> Path:
    """The jobs table beside a results table: ``benchmark.parquet`` → ``benchmark.jobs.parquet``: one
    row a job of a sweep run through ``ordrank.launch`` (where and with which libraries it ran)."""
    path = Path(path)
    return path.with_name(f"{path.stem}.jobs{path.suffix}")


def read_jobs(path: str | os.PathLike) -> pd.DataFrame | None:
    """The jobs table beside the results table ``path``, or None where there is none."""
    jobs = jobs_path(path)
    return read_table(jobs) if jobs.is_file() else None


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
