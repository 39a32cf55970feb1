"""Learning to rank at web scale on this machine: LETOR's protocol on MSLR-WEB10K- and WEB30K-shaped data.

    python benchmarks/bench_web_scale.py                      # both shapes, every learner (about 1 h)
    python benchmarks/bench_web_scale.py --scales 1 --learners RankSVM LambdaMART-LightGBM
    python benchmarks/bench_web_scale.py --publish            # also results/letor_web/ (the committed tables)

Each (shape, learner) is one run of ``python run.py +experiment=letor_web dataset.scale=S only=[L]`` in
its own process (generated data, query-level normalization, model selection on vali, test), timed from
outside with ``os.wait4``: wall and CPU seconds and peak resident memory (``ru_maxrss``) of the whole
process, data included. A first process per shape only generates and
normalizes the data (no learner): the data's own share. LightGBM and XGBoost run in the same way on the same
2 cores (``n_jobs: 2`` in the experiment; the ordrank learners use what numpy and numba use). The table
printed: per learner and shape, wall, CPU, peak RSS, peak RSS ÷ the fold's float32 matrices (training,
validation and test X) and test NDCG@10, and the growth from WEB10K's shape (scale 1) to WEB30K's (scale
3.15, 3.15× the documents). Targets: at WEB30K's shape every run's peak RSS ≤ 1.5× the matrices (model
selection included), RankSVM (its C grid) and linear RankNet ≤ 5 min each, growth ≤ 3.5×.

``--publish`` writes each shape's table (the runs' tidy tables, learner after learner) to
``results/letor_web/mslr_shaped_x<S>.parquet`` and the measured times to ``results/letor_web/times.csv``,
from which ``experiments/report_letor_web.py`` draws docs/results/web_scale.md. Times depend on the load.
"""
from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from ordrank.results.files import write_table

REPO = Path(__file__).resolve().parents[1]
DATA_ROW = "(data: generate + normalize)"
LEARNERS = ["RankSVM", "RankBoost", "LambdaMART-LightGBM", "XGBoost-ndcg", "RankNet-linear", "RankNet-1hidden"]
DATA_ONLY = """
import resource, sys, time
from ordrank.datasets.mslr_shaped import MslrShaped
from ordrank.features import QueryLevelNorm
from ordrank.protocols.query_folds import per_query
fold = per_query(QueryLevelNorm(), MslrShaped(scale=float(sys.argv[1])).fold(1), in_place=True)  # as the protocol
print(len(fold.train) + len(fold.vali) + len(fold.test), fold.train.X.nbytes + fold.vali.X.nbytes + fold.test.X.nbytes)
"""


def timed(command: list[str]) -> tuple[dict, str]:
    """Run ``command``; its wall and CPU seconds, peak RSS (GB) and standard output."""
    load = os.getloadavg()[0]
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise RuntimeError(f"{' '.join(command)} failed ({child.returncode}):\n{output[-3000:]}")
    return {"wall": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime,
            "peak_rss_gb": usage.ru_maxrss * 1024 / 1e9, "load_before": load,
            "load_after": os.getloadavg()[0], "date": datetime.date.today().isoformat()}, output


def run_learner(scale: float, learner: str, out: Path) -> tuple[dict, pd.DataFrame]:
    folder = out / f"x{scale:g}" / learner
    row, _ = timed([sys.executable, "run.py", "+experiment=letor_web", f"dataset.scale={scale:g}",
                    f"only=[{learner}]", f"hydra.run.dir={folder}"])
    table = pd.read_parquet(folder / "results.parquet")
    ndcg = table[table.metric == "ndcg@10"]
    row |= {"ndcg@10": float(ndcg.value.iloc[0]), "status": str(ndcg.status.iloc[0]),
            "params": str(ndcg.params.iloc[0])}
    return row, table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", nargs="+", type=float, default=[1.0, 3.15])
    parser.add_argument("--learners", nargs="+", default=LEARNERS, choices=LEARNERS)
    parser.add_argument("--out", type=Path, default=REPO / "build" / "web_scale")
    parser.add_argument("--publish", action="store_true", help="write results/letor_web/ (tables and times)")
    args = parser.parse_args(argv)
    rows, tables = [], {}
    for scale in args.scales:
        data, output = timed([sys.executable, "-c", DATA_ONLY, str(scale)])
        n_docs, n_bytes = map(int, output.split()[-2:])
        rows.append({"scale": scale, "learner": DATA_ROW, "documents": n_docs,
                     "matrix_gb": n_bytes / 1e9, **data})
        print(f"scale {scale:g}: {n_docs:,} documents, {n_bytes / 1e9:.2f} GB float32; data alone "
              f"{data['wall']:.0f} s, {data['peak_rss_gb']:.2f} GB ({data['peak_rss_gb'] * 1e9 / n_bytes:.2f}× "
              "the matrices)", flush=True)
        for learner in args.learners:
            row, table = run_learner(scale, learner, args.out)
            tables.setdefault(scale, []).append(table)
            rows.append({"scale": scale, "learner": learner, "documents": n_docs, "matrix_gb": n_bytes / 1e9,
                         **row})
            print(f"  {learner}: {row['wall']:.0f} s wall, {row['cpu']:.0f} s CPU, {row['peak_rss_gb']:.2f} GB "
                  f"({row['peak_rss_gb'] / (n_bytes / 1e9):.2f}× the matrices), NDCG@10 {row['ndcg@10']:.4f} "
                  f"({row['status']})", flush=True)
    times = pd.DataFrame(rows)
    print()
    print(report(times))
    if args.publish:
        publish(times, tables, REPO / "results" / "letor_web")
    return 0


def publish(times: pd.DataFrame, tables: dict, results: Path) -> None:
    """Each shape's table and the times into ``results``, replacing only the (shape, learner) rows this
    run measured (a rerun of some learners keeps the others' rows), learners in LEARNERS' order."""
    results.mkdir(parents=True, exist_ok=True)
    order = {name: k for k, name in enumerate([DATA_ROW, *LEARNERS])}
    for scale, parts in tables.items():
        path = results / f"mslr_shaped_x{scale:g}.parquet"
        new = pd.concat(parts, ignore_index=True)
        if path.is_file():
            old = pd.read_parquet(path)
            new = pd.concat([old[~old.algorithm.isin(new.algorithm)], new], ignore_index=True)
        new = new.sort_values("algorithm", key=lambda a: a.map(order), kind="stable").reset_index(drop=True)
        write_table(new, path)
    path = results / "times.csv"
    if path.is_file():
        old = pd.read_csv(path)
        measured = set(zip(times.scale, times.learner))
        times = pd.concat([old[[(s, n) not in measured for s, n in zip(old.scale, old.learner)]], times])
    times = times.sort_values(["scale", "learner"], key=lambda c: c.map(order) if c.name == "learner" else c,
                              kind="stable")
    times.to_csv(path, index=False, float_format="%.4g")
    print(f"\nwrote {results}/; every shape and learner now there:\n")
    print(report(times))


def report(times: pd.DataFrame) -> str:
    """The markdown table: per learner and shape, the run's wall time, its learner's share (wall minus the
    data's own run), CPU, peak RSS, peak RSS ÷ the fold's float32 matrices and NDCG@10; and the growth of
    the learner's share between shapes."""
    scales = sorted(times.scale.unique())
    data = times[times.learner == DATA_ROW].set_index("scale").wall
    head = ["learner"] + [f"{what} ×{s:g}" for s in scales
                          for what in ("wall s", "learner s", "CPU s", "peak GB", "RSS ÷ X", "NDCG@10")]
    if len(scales) > 1:
        head.append(f"learner s ×{scales[-1]:g} / ×{scales[0]:g}")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for learner, group in times.groupby("learner", sort=False):
        by = group.set_index("scale")
        own = {s: by.loc[s].wall - (0 if learner == DATA_ROW else data.get(s, float("nan"))) for s in by.index}
        cells = [learner]
        for s in scales:
            r = by.loc[s] if s in by.index else None
            cells += ["–"] * 6 if r is None else [f"{r.wall:.0f}", f"{own[s]:.0f}", f"{r.cpu:.0f}",
                                                   f"{r.peak_rss_gb:.2f}", f"{r.peak_rss_gb / r.matrix_gb:.2f}",
                                                   "" if pd.isna(r.get("ndcg@10")) else f"{r['ndcg@10']:.4f}"]
        if len(scales) > 1:
            ok = scales[0] in own and scales[-1] in own
            cells.append(f"{own[scales[-1]] / own[scales[0]]:.2f}" if ok else "–")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
