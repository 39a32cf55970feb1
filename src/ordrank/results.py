"""Tidy (long) results tables: the schema, atomic writes, publishing, aggregation of many runs.

One row per (experiment, dataset, algorithm, <protocol keys>, metric) with the measured ``value``,
then any extra columns a protocol adds (``user``, ``params``, ``status``), then the run's resolved
configuration as ``config.*`` columns. The protocol keys are ``seed, step`` for online curves and
``bins, split`` for train/test partitions. Figures and reports are group-bys of these tables.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

CORE = ["experiment", "dataset", "algorithm"]
PROTOCOL_KEYS = ["seed", "step", "bins", "split", "query"]  # canonical order of the protocol keys
KEYS = [*CORE, "seed", "step", "metric"]  # the online protocols' keys
COLUMNS = [*KEYS, "value"]


def key_columns(table: pd.DataFrame, keys=None) -> list[str]:
    """The identifying columns of ``table``: core, the protocol keys (given, or those present), metric."""
    keys = [k for k in PROTOCOL_KEYS if k in table.columns] if keys is None else list(keys)
    return [*CORE, *keys, "metric"]


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
    """Copy a run's table, byte for byte, to ``<results_dir>/<experiment>/<name><suffix>`` atomically."""
    path = Path(path)
    target = Path(results_dir) / experiment / f"{name}{path.suffix}"
    with atomic_path(target) as tmp:
        shutil.copyfile(path, tmp)
    return target


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"results table {path} not found")
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def collect(paths) -> pd.DataFrame:
    """Concatenate the tables of many runs (e.g. a ``-m`` sweep) into one."""
    tables = [read_table(p) for p in paths]
    if not tables:
        raise ValueError("no results tables to collect")
    return pd.concat(tables, ignore_index=True)


def summarize(table: pd.DataFrame, by=("experiment", "dataset", "algorithm", "step", "metric")):
    """Mean, standard error and count over seeds."""
    grouped = table.groupby(list(by), sort=True)["value"]
    out = grouped.agg(mean="mean", sem="sem", n="count").reset_index()
    return out


def main(argv=None):
    """``python -m ordrank.results collect SWEEP_DIR -o OUT``: merge a sweep's per-job tables."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m ordrank.results")
    sub = parser.add_subparsers(dest="command", required=True)
    collect_cmd = sub.add_parser("collect", help="concatenate every results table under a folder")
    collect_cmd.add_argument("folder", type=Path)
    collect_cmd.add_argument("-o", "--out", type=Path, required=True)
    collect_cmd.add_argument("--name", default="results.parquet", help="table file name to look for")
    args = parser.parse_args(argv)
    paths = sorted(args.folder.rglob(args.name))
    table = collect(paths)
    write_table(table.sort_values(key_columns(table), kind="stable", ignore_index=True), args.out)
    print(f"collected {len(paths)} tables, {len(table)} rows -> {args.out}")


if __name__ == "__main__":
    main()
