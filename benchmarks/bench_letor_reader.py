"""Time and memory of reading WEB30K-shaped LETOR files: ordrank's reader beside scikit-learn's and XGBoost's,
on three spellings of the same values.

The lines (written once under ``--dir``, then reused): ``--rows`` lines of ``label qid:Q 1:v ... 136:v``,
every feature written, on raw scales like MSLR-WEB30K's (counts up to 10^6, reals with up to 6 decimals,
some negative, many zeros), grades 0-4, queries of long-tailed size (mean ~120 documents). The values are
float32 numbers, each file spelling them one way: ``%.7g`` (7 significant digits), ``repr`` of the
float32 value as a Python float (17 digits, "0.12345600128173828") and ``%.18e`` (19 digits and an
exponent). Each reader runs in its own child process, so its peak RSS (``os.wait4``) is its own; the
child reports the fastest of three calls' wall and CPU time and its RSS just before the call (imports and compilation
done, on a tiny file, before it), and a digest of X as a dense float64 matrix (after the timing), so the
table shows whether ordrank's X is scikit-learn's bit for bit.

Readers: ordrank ``load_letor`` (float32, float64), scikit-learn ``load_svmlight_file(query_id=True)``
(float64, CSR) and ``xgboost.DMatrix(path + '?format=libsvm')`` (query ids included; CSR, float32).

    python benchmarks/bench_letor_reader.py [--dir build/bench_letor] [--rows 100000]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROWS, FEATURES, MEAN_QUERY = 100_000, 136, 120
REPEATS = 3  # reads per reader: the table shows the fastest
SPELLINGS = {"7 digits": "%.7g".__mod__, "repr, 17 digits": repr, "%.18e": "%.18e".__mod__}
READERS = {"ordrank float32": "ordrank load_letor(dtype=float32)",
           "ordrank float64": "ordrank load_letor(dtype=float64)",
           "sklearn": "scikit-learn load_svmlight_file(query_id=True)",
           "xgboost": "xgboost DMatrix(?format=libsvm)"}


def query_sizes(rng, rows: int) -> np.ndarray:
    """Long-tailed query sizes (lognormal, mean ~MEAN_QUERY) adding up to ``rows``."""
    draws = rng.lognormal(np.log(MEAN_QUERY) - 0.5 * 0.8 ** 2, 0.8, 2 * rows // MEAN_QUERY + 10)
    sizes = np.maximum(1, draws.astype(int))
    sizes = sizes[:np.searchsorted(np.cumsum(sizes), rows) + 1]
    sizes[-1] -= sizes.sum() - rows
    return sizes[sizes > 0]


def feature_columns(rng, n: int) -> list[np.ndarray]:
    """FEATURES columns on raw scales: integer counts, non-negative reals and negative reals (6 decimals)."""
    columns = []
    for j in range(FEATURES):
        kind = j % 4
        zero = rng.random(n) < (0.4 if kind == 0 else 0.15)
        if kind == 0:  # counts (term frequencies, lengths, PageRank-like), up to 10^6
            values = np.minimum(rng.lognormal(2 + j % 7, 1.5, n), 1e6).astype(np.int64)
        elif kind == 3 and j % 8 == 3:  # language-model scores: negative reals
            values = np.round(-rng.lognormal(3, 0.5, n), 6)
        else:  # BM25, TF-IDF, ratios: reals with up to 6 decimals
            values = np.round(rng.lognormal(j % 5 - 1, 1.2, n), 6 - j % 3)
        columns.append(np.where(zero, 0, values))
    return columns


def write_file(path: Path, rows: int, spell, seed: int = 0, batch: int = 20_000) -> None:
    """The MSLR-shaped file, its float32 values written by ``spell`` (a Python float -> str), batch by
    batch with pyarrow's joins."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    sizes = query_sizes(rng, rows)
    qids = np.repeat(np.sort(rng.choice(30_000, len(sizes), replace=False)) + 1, sizes)
    labels = rng.choice(5, rows, p=[0.52, 0.32, 0.13, 0.02, 0.01])
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")

    def as_text(values):
        return pc.cast(pa.array(values), pa.string())

    with open(part, "wb") as out:
        for start in range(0, rows, batch):
            n = min(batch, rows - start)
            parts = [as_text(labels[start:start + n]),
                     pc.binary_join_element_wise("qid", as_text(qids[start:start + n]), ":")]
            for j, values in enumerate(feature_columns(rng, n), 1):
                spelled = pa.array(list(map(spell, values.astype(np.float32).astype(float).tolist())))
                parts.append(pc.binary_join_element_wise(str(j), spelled, ":"))
            lines = pc.binary_join_element_wise(pc.binary_join_element_wise(*parts, " "), "\n", "")
            offsets = np.frombuffer(lines.buffers()[1], np.int32)
            out.write(memoryview(lines.buffers()[2])[offsets[0]:offsets[n]])
    part.rename(path)


def child(reader: str, path: str) -> None:
    """Run one reader, print its timing and X's digest as JSON (the parent measures peak RSS)."""
    import psutil

    if reader.startswith("ordrank"):
        from ordrank.datasets.letor_file import load_letor
        dtype = np.float32 if reader.endswith("32") else np.float64
        tiny = Path(path).with_name("tiny.txt")
        tiny.write_text("1 qid:1 1:0.5 2:3\n0 qid:1 2:1e-3\n")
        load_letor(tiny, dtype=dtype)  # compiled code loaded from numba's cache (or compiled) before timing

        def read():
            return load_letor(path, dtype=dtype)

        def size(data):
            return data.X.nbytes

        def dense(data):
            return data.X.astype(np.float64)
    elif reader == "xgboost":
        import xgboost

        def read():
            return xgboost.DMatrix(path + "?format=libsvm")

        def size(data):
            return data.num_nonmissing() * 8 + (data.num_row() + 1) * 8  # CSR: value, index

        def dense(data):
            return None
    else:
        from sklearn.datasets import load_svmlight_file

        def read():
            return load_svmlight_file(path, query_id=True, zero_based=False)[0]

        def size(X):
            return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes

        def dense(X):
            return X.toarray()
    baseline = psutil.Process().memory_info().rss
    best, data = None, None
    for _ in range(REPEATS):  # the fastest of REPEATS reads (the previous one released first)
        data = None
        before, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        data = read()
        after, cpu_after = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        used = cpu_after.ru_utime + cpu_after.ru_stime - cpu.ru_utime - cpu.ru_stime
        best = (after - before, used) if best is None or after - before < best[0] else best
    X = dense(data)
    digest = None if X is None else hashlib.sha256(np.ascontiguousarray(X + 0.0).tobytes()).hexdigest()
    print(json.dumps({"wall": best[0], "cpu": best[1], "baseline": baseline, "matrix": size(data),
                      "digest": digest}))


def run(reader: str, path: Path) -> dict:
    process = subprocess.Popen([sys.executable, __file__, "--child", reader, str(path)], stdout=subprocess.PIPE)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{reader} failed (exit {process.returncode})")
    return {**json.loads(output), "peak": usage.ru_maxrss * 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", default="build/bench_letor", help="where the files are written (and reused)")
    parser.add_argument("--rows", type=int, default=ROWS, help="lines of each file")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child)
    results = {}
    for spelling, spell in SPELLINGS.items():
        name = spelling.split(",")[0].replace(" ", "_").replace("%.", "")
        path = Path(args.dir) / f"web30k_shaped_{args.rows}_{name}.txt"
        if not path.exists():
            start = time.perf_counter()
            write_file(path, args.rows, spell)
            print(f"wrote {path} in {time.perf_counter() - start:.0f} s")
        print(f"{spelling}: {path}, {path.stat().st_size / 1e9:.2f} GB, {args.rows} lines x {FEATURES} features")
        results[spelling] = {reader: run(reader, path) for reader in READERS}
    short = results["7 digits"]
    print("\n| spelling | reader | wall s | CPU s | time / 7 digits' | time / scikit-learn's | peak RSS GB | "
          "RSS before GB | matrix GB | (peak - before) / matrix | X = scikit-learn's float64 X |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for spelling, by_reader in results.items():
        oracle = by_reader["sklearn"]
        for reader, r in by_reader.items():
            matrix = f"{r['matrix'] / 1e9:.3f}" + (" (CSR)" if reader in ("xgboost", "sklearn") else "")
            same = "" if r["digest"] is None or reader == "sklearn" else \
                "bit for bit" if r["digest"] == oracle["digest"] else ("no" if reader.endswith("64") else "")
            print(f"| {spelling} | {READERS[reader]} | {r['wall']:.2f} | {r['cpu']:.2f} | "
                  f"{r['wall'] / short[reader]['wall']:.2f} | {r['wall'] / oracle['wall']:.2f} | "
                  f"{r['peak'] / 1e9:.2f} | {r['baseline'] / 1e9:.2f} | {matrix} | "
                  f"{(r['peak'] - r['baseline']) / r['matrix']:.2f} | {same} |")


if __name__ == "__main__":
    main()
