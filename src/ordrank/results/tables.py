"""The tidy table's schema: key columns, config columns, finalizing a protocol's rows, summaries."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

CORE = ["experiment", "dataset", "algorithm"]
KEYS = [*CORE, "seed", "step", "metric"]  # the online protocols' keys
COLUMNS = [*KEYS, "value"]
FINISHED = "FINISHED"  # in a job's folder: its table is complete; holds its config hash
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


def summarize(table: pd.DataFrame, by=("experiment", "dataset", "algorithm", "step", "metric")):
    """Mean, standard error and count over seeds."""
    grouped = table.groupby(list(by), sort=True)["value"]
    out = grouped.agg(mean="mean", sem="sem", n="count").reset_index()
    return out
