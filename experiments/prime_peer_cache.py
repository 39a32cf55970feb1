"""Prime the peer caches from the committed tables: ``python experiments/prime_peer_cache.py [EXPERIMENT ...]``.

For each experiment (default: every one below), each block of its committed table (a data set and
its bins for the batch sweeps; the whole table for LETOR) is composed as its jobs are and its data
loaded ($ORDRANK_DATA, else data/); each peer learner is then run through the protocol's own
``iter_run`` with a cache that only records the key of each piece it is asked for (nothing is
fitted), so the keys are exactly those a job computes. The committed rows of that piece (results
and timings tables), in the order the protocol yields them, become the cache entry. A piece whose
committed ``config.*`` columns differ from the configuration composed now is left out (and counted).
Writes ``results/<experiment>/peer_cache.parquet`` (atomically). The keys record the *installed*
peer versions: prime only from tables those versions made (after an upgrade, let the sweep compute
the new version's pieces instead; docs/sweeps.md, Peer cache).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from ordrank.metrics.ordinal import SCORINGS
from ordrank.results.peer_cache import FILE, ROW_COLUMNS, cache_table, peer_package

REPO = Path(__file__).resolve().parents[1]
# experiment -> (its config under conf/experiment, its committed table, the block columns -> overrides)
SWEEP_BLOCK = {"dataset": "dataset.name", "bins": "dataset.bins"}
EXPERIMENTS = {
    "svor_benchmark": ("svor_benchmark", "benchmark.parquet", SWEEP_BLOCK),
    "svor_benchmark_chu": ("svor_benchmark_chu", "benchmark.parquet", SWEEP_BLOCK),
    "boost_benchmark": ("boost_benchmark", "benchmark.parquet", SWEEP_BLOCK),
    "svor_benchmark_papers_sizes": ("svor_benchmark/papers_sizes", "benchmark.parquet", SWEEP_BLOCK),
    "letor_ohsumed": ("letor_ohsumed", "letor_ohsumed.parquet", {}),
}


class _Recorder:
    """A stand-in cache: records each piece's ``(piece, key, package)``, fits nothing."""

    def __init__(self):
        self.pieces = []

    def rows(self, key_package, piece, compute):
        if key_package is not None:
            self.pieces.append((piece, *key_package))
        return []


def _blocks(table: pd.DataFrame, block: dict):
    if not block:
        yield [], table
        return
    for values, rows in table.groupby(list(block), sort=True):
        yield [f"{block[c]}={v.item() if hasattr(v, 'item') else v}" for c, v in zip(block, values)], rows


def prime(experiment: str, results: Path, data_dir: str, conf: Path = REPO / "conf") -> tuple[Path, str]:
    """Write ``<results>/<experiment>/peer_cache.parquet`` from the committed table; (path, summary)."""
    from hydra import compose, initialize_config_dir

    from ordrank.app import build
    from ordrank.config_columns import run_config
    from ordrank.results import flatten_config, read_table, read_timings, write_table

    config_name, table_name, block = EXPERIMENTS[experiment]
    table_path = results / experiment / table_name
    table = read_table(table_path)
    timings = read_timings(table_path)
    table = pd.concat([table, timings], ignore_index=True) if timings is not None else table
    parts, stale = [], 0
    for overrides, rows_of_block in _blocks(table, block):
        with initialize_config_dir(config_dir=str(conf), version_base="1.3"):
            cfg = compose("config", overrides=[f"+experiment={config_name}", *overrides,
                                               f"data_dir={data_dir}", "only=null"])
        built = build(cfg)
        protocol, dataset = built["protocol"], built["dataset"]
        config = flatten_config(run_config(cfg))
        pieces_key = protocol.keys[-1]  # split, fold: what a job's protocol setting picks
        config = {k: v for k, v in config.items() if not k.startswith(f"config.protocol.{pieces_key}")}
        order = [*getattr(protocol, "metrics", SCORINGS), *getattr(protocol, "timing_metrics", ())]
        grids = protocol.grids
        for name, learner in built["learners"].items():
            if peer_package(learner) is None or name not in set(rows_of_block["algorithm"]):
                continue
            protocol.peer_cache, protocol.grids = (recorder := _Recorder()), {
                k: v for k, v in grids.items() if k == name}  # iter_run runs this learner alone
            for _ in protocol.iter_run(dataset, {name: learner}, seed=cfg.seed):
                pass
            mine = rows_of_block[rows_of_block["algorithm"] == name]
            for piece, key, package in recorder.pieces:
                rows = mine[np.logical_and.reduce([mine[k] == v for k, v in piece.items()])]
                same = all(column in rows and (rows[column] == value).all() for column, value in config.items())
                if rows.empty or not same or sorted(rows["metric"]) != sorted(order):
                    stale += not rows.empty
                    continue
                rows = rows.sort_values("metric", key=lambda m: m.map(order.index), kind="stable")
                parts.append(rows[ROW_COLUMNS].assign(cache_key=key, package=package,
                                                      piece=json.dumps(piece, sort_keys=True)))
    target = results / experiment / FILE
    if not parts:
        return target, f"{experiment}: no peer piece to cache ({stale} left out)"
    cache = cache_table(parts).reset_index(drop=True)
    if cache["cache_key"].nunique() != len(parts):
        raise ValueError(f"{experiment}: two peer pieces share a key; {target} not written")
    write_table(cache, target)
    packages = ", ".join(sorted(cache["package"].unique()))
    return target, (f"{experiment}: {len(parts)} peer pieces ({len(cache)} rows; {packages}) -> {target} "
                    f"({target.stat().st_size / 1024:.0f} KiB); {stale} left out (config or rows differ)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python experiments/prime_peer_cache.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    cmd = parser
    cmd.add_argument("experiments", nargs="*", default=list(EXPERIMENTS), metavar="EXPERIMENT",
                     help=f"default: {' '.join(EXPERIMENTS)}")
    cmd.add_argument("--results", type=Path, default=REPO / "results")
    cmd.add_argument("--data-dir", default=os.environ.get("ORDRANK_DATA", "data"))
    args = parser.parse_args(argv)
    unknown = sorted(set(args.experiments) - set(EXPERIMENTS))
    if unknown:
        parser.error(f"unknown experiments {unknown}; choose from {list(EXPERIMENTS)}")
    for experiment in args.experiments:
        print(prime(experiment, args.results, str(Path(args.data_dir).resolve()))[1], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
