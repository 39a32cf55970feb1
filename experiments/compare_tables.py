"""What moved between two sets of results tables: per table, algorithm and metric, how many rows
changed value and by how much, and which rows or columns one side lacks.

    python experiments/compare_tables.py OLD_RESULTS_DIR NEW_RESULTS_DIR [--timings] [--tol 0]

e.g. the committed tables against those of a `make reproduce` in a fresh clone:
``python experiments/compare_tables.py results ../clone/results``. Rows are matched on the table's key
columns (experiment, dataset, algorithm, the protocol's keys, metric); the timings tables (measured
seconds, never equal twice) are left out unless ``--timings``.

``--external-caches`` compares the external caches instead (``results/<experiment>/external_cache.parquet``, e.g.
the committed ones against those a `make reproduce EXTERNAL=rerun` refitted): every cached row matched
piece by piece (cache_key) by the cache's own rule, values, chosen parameters and status, the measured
seconds (fit_seconds, cv_seconds) aside; pieces one side lacks are counted.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from ordrank.results.external_cache import TIMINGS, same_rows
from ordrank.results.tables import key_columns


def tables(root: Path, timings: bool, external_caches: bool = False) -> dict[str, Path]:
    found = {}
    for path in sorted(root.rglob("*.parquet")):
        name = path.relative_to(root).as_posix()
        if (path.name == "external_cache.parquet") != external_caches or (".timings." in path.name and not timings):
            continue
        found[name] = path
    return found


def compare_caches(old: pd.DataFrame, new: pd.DataFrame) -> str:
    """One line: pieces matched on cache_key and how many differ by the cache's own rule
    (:func:`~ordrank.results.external_cache.same_rows`: values, parameters, status; seconds aside)."""
    old_pieces, new_pieces = (dict(tuple(t.groupby("cache_key", sort=True))) for t in (old, new))
    both = sorted(set(old_pieces) & set(new_pieces))
    differ = [key for key in both if not same_rows(old_pieces[key], new_pieces[key])]
    rows = sum(int((~old_pieces[key]["metric"].isin(TIMINGS)).sum()) for key in both)
    only_old, only_new = len(set(old_pieces) - set(new_pieces)), len(set(new_pieces) - set(old_pieces))
    line = (f"{len(both)} pieces ({rows} rows) matched, {len(differ)} pieces differ; pieces only in the old "
            f"cache: {only_old}, only in the new: {only_new}")
    return line + "".join(f"\n  differs: {key} {old_pieces[key]['piece'].iloc[0]}" for key in differ[:20])


def compare(old: pd.DataFrame, new: pd.DataFrame, tol: float) -> tuple[pd.DataFrame, list[str]]:
    """Per (algorithm, metric): rows, moved (|Δ| > tol), max |Δ|; and notes on unmatched rows/columns."""
    notes = []
    try:
        keys = key_columns(old)
    except ValueError:  # a table of another layout (e.g. ranknet_figure1's curves): every column but value
        keys = [c for c in old.columns if c != "value"]
        notes.append(f"not laid out by finalize: rows matched on {keys}")
    keys = [k for k in keys if k in new.columns]
    gone, added = sorted(set(old.columns) - set(new.columns)), sorted(set(new.columns) - set(old.columns))
    if gone or added:
        notes.append(f"columns only in the old table: {gone}; only in the new: {added}")
    both = old[[*keys, "value"]].merge(new[[*keys, "value"]], on=keys, how="outer", suffixes=("_old", "_new"),
                                       indicator=True)
    for side, label in (("left_only", "only in the old table"), ("right_only", "only in the new table")):
        count = int((both["_merge"] == side).sum())
        if count:
            notes.append(f"{count} rows {label}")
    both = both[both["_merge"] == "both"]
    delta = (both["value_new"].astype(float) - both["value_old"].astype(float)).abs()
    both = both.assign(delta=delta.fillna(0.0), moved=delta.fillna(0.0) > tol)
    groups = [c for c in ("algorithm", "metric") if c in both.columns] or keys[:1]
    per = both.groupby(groups, sort=True).agg(
        rows=("delta", "size"), moved=("moved", "sum"), max_delta=("delta", "max")).reset_index()
    return per, notes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--timings", action="store_true", help="compare the timings tables too")
    parser.add_argument("--tol", type=float, default=0.0, help="a value moved when |Δ| > tol (default 0)")
    parser.add_argument("--external-caches", action="store_true", help="compare the external caches instead")
    args = parser.parse_args(argv)
    old, new = (tables(root, args.timings, args.external_caches) for root in (args.old, args.new))
    for name in sorted(set(old) ^ set(new)):
        print(f"{name}: only in {args.old if name in old else args.new}")
    if args.external_caches:
        for name in sorted(set(old) & set(new)):
            print(f"{name}: {compare_caches(pd.read_parquet(old[name]), pd.read_parquet(new[name]))}")
        return 0
    for name in sorted(set(old) & set(new)):
        per, notes = compare(pd.read_parquet(old[name]), pd.read_parquet(new[name]), args.tol)
        moved = per[per["moved"] > 0]
        print(f"\n## {name}: {int(per['rows'].sum())} rows matched, {int(per['moved'].sum())} moved")
        for note in notes:
            print(f"- {note}")
        if len(moved):
            print("| algorithm | metric | rows | moved | max abs change |\n|---|---|---:|---:|---:|")
            for row in moved.to_dict("records"):
                change = np.format_float_positional(row["max_delta"], 3, fractional=False)
                name = " | ".join(str(row.get(c, "")) for c in ("algorithm", "metric"))
                print(f"| {name} | {row['rows']} | {row['moved']} | {change} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
