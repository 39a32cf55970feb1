"""Refit SVORIM or SVOREX on a committed svor_benchmark partition at the (C, γ) its CV chose, beside
skordinal's C SMO, with and without the C code's 0.001 on the Gram diagonal.

    python experiments/svor_refits.py calhousing 10 --splits 0 1 2 3 [--constraints explicit]
        [--table results/svor_benchmark/benchmark.parquet]

For each partition of ORCA's files (``dataset.source=orca``; the data directory is ``ORDRANK_DATA``,
else ``data/``): the test MAE the committed table holds for ordrank's learner and for skordinal's,
whether their model selections chose the same (C, γ), then fresh fits at ordrank's (C, γ) — skordinal's,
and ordrank's with the interior point (CLARABEL) and SMO, each with ``diagonal_jitter`` 0 (the textbook
dual, the experiment's setting) and 0.001 (the C code's problem) — with the test MAE and the share of
test predictions equal to skordinal's. It shows whether a gap in the report's "Against the
yardsticks" section is the jitter (docs/protocols.md, "The C code's diagonal jitter"). Run on demand
(not a test); seconds per partition at ORCA's sizes.
"""
from __future__ import annotations

import argparse
import json
import os

import numpy as np
import pandas as pd
from skordinal.classifiers import SVOR as SkordinalSVOR
from sklearn.preprocessing import StandardScaler

from ordrank.algorithms.batch.svor import SVOR
from ordrank.datasets.partitions import BenchmarkData

NAMES = {"implicit": ("SVORIM", "skordinal-SVORIM"), "explicit": ("SVOREX", "skordinal-SVOREX")}
FITS = {"CLARABEL": dict(solver="CLARABEL"), "CLARABEL+J": dict(solver="CLARABEL", diagonal_jitter=0.001),
        "SMO": dict(solver="SMO"), "SMO+J": dict(solver="SMO", diagonal_jitter=0.001)}


def committed(table: pd.DataFrame, name: str, bins: int, algorithm: str, split: int):
    rows = table[(table.dataset == name) & (table.bins == bins) & (table.algorithm == algorithm)
                 & (table.split == split) & (table.metric == "mae")]
    if len(rows) != 1:
        raise SystemExit(f"the table has {len(rows)} MAE rows for {algorithm} on {name} with {bins} ranks, "
                         f"partition {split}")
    return rows.value.iloc[0], json.loads(rows.params.iloc[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset")
    parser.add_argument("bins", type=int)
    parser.add_argument("--splits", type=int, nargs="+", default=[0])
    parser.add_argument("--constraints", choices=sorted(NAMES), default="explicit")
    parser.add_argument("--table", default="results/svor_benchmark/benchmark.parquet")
    args = parser.parse_args(argv)
    ours, theirs = NAMES[args.constraints]
    table = pd.read_parquet(args.table)
    data = BenchmarkData(args.dataset, args.bins, "orca", os.environ.get("ORDRANK_DATA", "data"))
    print(f"{ours} against {theirs} on {args.dataset} with {args.bins} ranks; test MAE (share of test "
          f"predictions equal to skordinal's); J = diagonal_jitter 0.001")
    print(f"{'split':>5} {'(C, γ)':>12} {'same':>5} {'table':>7} {'table C':>8} {'skordinal':>9} "
          + " ".join(f"{k:>17}" for k in FITS))
    for split in args.splits:
        mae_ours, params = committed(table, args.dataset, args.bins, ours, split)
        mae_theirs, params_theirs = committed(table, args.dataset, args.bins, theirs, split)
        X, y, X_test, y_test = data.split(split)
        scaler = StandardScaler().fit(X)
        X, X_test = scaler.transform(X), scaler.transform(X_test)
        common = dict(constraints=args.constraints, kernel="rbf", C=params["C"], gamma=params["gamma"], tol=1e-3)
        theirs_predicted = SkordinalSVOR(**common).fit(X, y).predict(X_test)
        cells = []
        for options in FITS.values():
            predicted = SVOR(**common, **options).fit(X, y).predict(X_test)
            cells.append(f"{np.abs(predicted - y_test).mean():.4f} ({np.mean(predicted == theirs_predicted):.4f})")
        print(f"{split:>5} {'(%g, %g)' % (params['C'], params['gamma']):>12} {str(params == params_theirs):>5} "
              f"{mae_ours:>7.4f} {mae_theirs:>8.4f} {np.abs(theirs_predicted - y_test).mean():>9.4f} "
              + " ".join(f"{c:>17}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
