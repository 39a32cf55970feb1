"""Reproduce every paper experiment with one command: run, aggregate, draw, rewrite the results pages' tables.

    python experiments/reproduce.py                  # = make reproduce: every experiment at full size
    python experiments/reproduce.py --quick          # = make reproduce-quick: the same code paths at small
                                                     #   sizes, written under build/quick/ (git-ignored)
    python experiments/reproduce.py --list           # the registry, with the data each entry needs and
                                                     #   its sizes from the configs (--quick: quick sizes)
    python experiments/reproduce.py prank_synthetic svor_benchmark   # some entries only (= --only)
    python experiments/reproduce.py svor_benchmark_papers_sizes --launcher ray   # or slurm (docs/cluster.md)
    python experiments/reproduce.py svor_benchmark_papers_sizes --dry-run --fresh   # what it would cost
    python experiments/reproduce.py svor_benchmark dataset.name=housing   # overrides, as run.py -m takes them
    python experiments/reproduce.py --from-tables         # no runs: reports, figures and the pages' tables only
    python experiments/reproduce.py --timings t.json # also write each step's wall and CPU seconds
                                                     #   (benchmarks/bench_reproduce.py -> docs/speed.md)
    python experiments/reproduce.py --external rerun    # = make reproduce EXTERNAL=rerun: refit external learners
                                                     #   (default: their pieces from each sweep's external cache)

Steps, in order:

1. compose every entry's configuration (a bad override stops here) and check that every data set the
   chosen entries need is under the data directory ($ORDRANK_DATA, else data/) -- before any work,
   naming the fetch command of each missing one;
2. run each entry: a single run in this process (Hydra's compose API + ``ordrank.app.run``) published
   to ``<out>/results/<experiment>/<dataset>.parquet``, or a sweep: one job per sweep point x learner
   on an engine (``--launcher local|ray|slurm``, ``ordrank.launch``), each job's rows added to
   ``<out>/results/<experiment>/benchmark.parquet`` as it finishes. That table is the resume point: a
   job whose rows it holds is skipped. ``--fresh`` (``make reproduce``) recomputes every job into a
   scratch table under ``build/sweeps/`` (the resume point of a killed run), which replaces the
   committed table when the last job is in;
3. regenerate the reports and figures from the tables (``experiments/plot_*.py``,
   ``experiments/report_*.py``; with entries named, only those their tables feed), then the generated
   tables of the results pages (one per paper, ``docs/results/<page>.md``, :data:`PAGES`), between
   ``<!-- BEGIN table:NAME -->`` and ``<!-- END table:NAME -->``.

The registry (entries, quick sizes, data; figures; pages' tables): ``experiments/reproduce_registry.py``.
The output root ``--out`` is the repository for a full run (so it rewrites the committed results,
figures and docs/results pages) and ``build/quick`` for ``--quick`` (a copy of docs/results/ is
rewritten there, under ``<out>/docs/results``).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")  # as run.py (see there), before numpy loads

from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

from ordrank.datasets.fetch import require
from ordrank.launch.driver import JobsFailed, TableBusy
from ordrank.launch.sweep import key_value
from ordrank.progress import StepTimes

REPO = Path(__file__).resolve().parents[1]
QUICK_OUT = REPO / "build" / "quick"


def _registry():
    """experiments/reproduce_registry.py beside this file, as a module (registered in sys.modules
    under a name of its path, so a fresh clone's copy never stands in for this one's)."""
    path = Path(__file__).resolve().with_name("reproduce_registry.py")
    name = f"reproduce_registry_{abs(hash(str(path)))}"
    if name not in sys.modules:  # its dataclasses look their module up there
        spec = importlib.util.spec_from_file_location(name, path)
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


registry = _registry()
Entry, REGISTRY, FIGURES, draw_all = registry.Entry, registry.REGISTRY, registry.FIGURES, registry.draw_all
PAGES, RESULTS_PAGES, PAPERS_SIZES = registry.PAGES, registry.RESULTS_PAGES, registry.PAPERS_SIZES
page_tables, update_pages, sweep_table = registry.page_tables, registry.update_pages, registry.sweep_table
papers_sizes_table, papers_sizes_markdown = registry.papers_sizes_table, registry.papers_sizes_markdown


def compose(overrides: list[str], hydra_config: bool = False):
    from hydra import compose as hydra_compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        return hydra_compose("config", overrides=overrides, return_hydra_config=hydra_config)


SIZES = ("n_sequences", "n_rounds", "min_ratings", "n_targets", "n_repetitions", "n_train", "m", "p", "folds")


def describe(entry: Entry, quick: bool, data_dir: str) -> str:
    """What ``entry`` runs, counted from its composed configuration (``--list`` prints it, so it
    cannot drift from the configs): a sweep's data sets, bin counts, benchmarks (data set x bins),
    partitions, jobs (sweep point x learner, ``ordrank.launch``); a single run's learners and protocol sizes."""
    from omegaconf import OmegaConf

    from ordrank.launch.sweep import compose_jobs

    if not entry.sweep:
        cfg = compose([*entry.config_overrides(quick), f"data_dir={data_dir}"])
        sizes = {k: OmegaConf.to_container(cfg.protocol)[k] for k in SIZES if k in cfg.protocol}
        shown = ", ".join(f"{k}={'null' if v is None else v}" for k, v in sizes.items())  # null: the default
        return f"{cfg.dataset.name}: {len(cfg.algorithms)} learners; {shown}"
    cfg, jobs = compose_jobs(compose, [*entry.config_overrides(quick), f"data_dir={data_dir}"])
    points = [dict(job.values) for job in jobs]

    def values(key):  # a swept key's values, else the configuration's one value
        return {point[key] if key in point else str(OmegaConf.select(cfg, key)) for point in points}

    names, bins, splits = values("dataset.name"), values("dataset.bins"), values("protocol.splits")
    benchmarks = {(point.get("dataset.name"), point.get("dataset.bins")) for point in points}
    n_learners = len({job.learner for job in jobs})
    return (f"{len(names)} data sets x {len(bins)} bin count{'s' * (len(bins) > 1)} "
            f"({', '.join(sorted(bins, key=int))}) = {len(benchmarks)} benchmarks x {len(splits)} partitions "
            f"x {n_learners} learners = {len(jobs)} jobs")


def check_data(entries, data_dir: str) -> None:
    """Stop before any work when a data set the entries read is missing or incomplete: FileNotFoundError
    naming each such set and its fetch command (``ordrank.datasets.fetch.require``)."""
    names = sorted({name for entry in entries for name in entry.data})
    if names:
        require(names, data_dir)


def figure_scripts(out: Path, quick: bool, chosen: list[str]) -> list[tuple[str, list[str]]]:
    """The FIGURES rows to run and their arguments: with entries ``chosen``, only the rows they feed."""
    scripts = []
    for script, arguments, needs, fed_by in FIGURES:
        if chosen and not set(fed_by) & set(chosen):
            continue
        table = needs(out, quick)
        if table is not None and not table.is_file():
            print(f"skipping {script}: {table} not found")
        else:
            scripts.append((script, arguments(out, quick)))
    return scripts


EXTERNAL_LINES: list[str] = []  # per experiment with external learners: pieces cached / computed


def run_single(entry: Entry, cfg, out: Path) -> Path:
    """One Hydra job (``cfg``, composed by :func:`main`) in this process, published to ``<out>/results``;
    returns the published table."""
    from ordrank.app import run
    from ordrank.results.external_cache import FILE, located, merge, tally
    from ordrank.results import publish

    workdir = out / "outputs" / entry.name
    path = run(cfg, workdir)
    published = publish(path, out / "results", cfg.experiment, cfg.dataset.name)
    job_files = [located(workdir / FILE)] if located(workdir / FILE).is_file() else []
    if merge(job_files, published):  # its external learners' pieces (LETOR's) into the cache beside its table
        EXTERNAL_LINES.append(f"{entry.name}: {tally(job_files)}")
    return published


def run_sweep(entry: Entry, args, data_dir: str, out: Path, overrides=()) -> Path | None:
    """The sweep entry's jobs on ``args.launcher`` into its table (``--fresh``: all of them, through a
    scratch table); None after a dry run. Raises when a job failed (the others' rows are in)."""
    from ordrank.launch.sweep import Engine, default_workers, run

    table = sweep_table(entry.name, out, args.quick)
    engine = Engine(args.launcher, args.workers or default_workers(), args.address, args.slurm_folder,
                    dict(args.slurm or ()))
    outcome = run(compose, [*entry.config_overrides(args.quick), f"data_dir={data_dir}", f"external={args.external}",
                            *overrides], table, engine, fresh=args.fresh, scratch=out / "build" / "sweeps",
                  dry_run=args.dry_run, say=tqdm.write)
    if outcome is None:
        return None
    EXTERNAL_LINES.append(f"{entry.name}: {outcome.external_summary}")
    if not outcome.complete:
        failed = "\n".join(f"  {job.name}: {message}" for job, message in outcome.failed)
        raise JobsFailed(f"{entry.name}: {len(outcome.failed)} of {outcome.total} jobs failed (the others' "
                           f"rows are in {table if not args.fresh else 'the scratch table'}); the same command "
                           f"runs only the rest:\n{failed}")
    return table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes, written under --out")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"output root (default: the repository; with --quick {QUICK_OUT.relative_to(REPO)})")
    parser.add_argument("--data-dir", default=os.environ.get("ORDRANK_DATA", "data"),
                        help="where the data sets are (default: $ORDRANK_DATA, else data/)")
    parser.add_argument("targets", nargs="*", metavar="ENTRY|KEY=VALUE",
                        help="registry entries to run (default: every default entry), and Hydra overrides for "
                             "their sweeps (a setting, or the values of a sweep axis: dataset.name=bank2)")
    parser.add_argument("--only", nargs="+", metavar="ENTRY", default=[], help="the same as naming entries")
    parser.add_argument("--launcher", choices=("local", "ray", "slurm"), default="local",
                        help="where sweep jobs run (docs/cluster.md): local processes, a Ray cluster, SLURM")
    parser.add_argument("--workers", type=int, default=None,
                        help="local: processes (default $ORDRANK_JOBS, else every core); ray: CPUs of a local Ray; "
                             "slurm: array tasks at once")
    parser.add_argument("--address", default=None, help="ray: the cluster's address (default $RAY_ADDRESS)")
    parser.add_argument("--slurm-folder", type=Path, default=None,
                        help="slurm: submitit's folder, shared with the nodes (default: .submitit beside the table)")
    parser.add_argument("--slurm", nargs="+", type=key_value, metavar="KEY=VALUE",
                        help="slurm: submitit parameters, e.g. slurm_partition=cpu timeout_min=240 mem_gb=8")
    parser.add_argument("--fresh", action="store_true",
                        help="sweeps: recompute every job (through a scratch table) instead of adding the missing ones")
    parser.add_argument("--dry-run", action="store_true",
                        help="sweeps: print the jobs that would run, their CPU hours and wall time on N workers")
    parser.add_argument("--list", action="store_true",
                        help="print the registry, each entry's sizes from its config (with --quick: the quick ones), "
                             "and exit")
    parser.add_argument("--external", choices=("cached", "rerun"), default="cached",
                        help="cached: external learners' pieces from each sweep's external_cache.parquet when there; "
                             "rerun: fit them")
    parser.add_argument("--from-tables", action="store_true",
                        help="run nothing: rebuild reports, figures and the results pages' tables from the tables")
    parser.add_argument("--timings", type=Path, metavar="FILE",
                        help="write each step's wall and CPU seconds to FILE (JSON)")
    args = parser.parse_args(argv)

    if args.list:  # with --quick: the quick sizes
        data_dir = str(Path(args.data_dir).resolve())
        for entry in REGISTRY:
            data = ", ".join(entry.data) or "no data"
            print(f"{entry.name:32s} {'sweep' if entry.sweep else 'run  '}  [{data}]  {entry.paper}")
            print(f"{'':32s} {describe(entry, args.quick, data_dir)}")
        return 0
    names = [e.name for e in REGISTRY]
    overrides = [t for t in args.targets if "=" in t]
    chosen = [*args.only, *(t for t in args.targets if "=" not in t)]
    unknown = sorted(set(chosen) - set(names))
    if unknown:
        parser.error(f"unknown entries {unknown}; choose from {names}")
    entries = [e for e in REGISTRY if e.name in chosen] if chosen else [e for e in REGISTRY if e.default]
    if overrides and any(not e.sweep for e in entries):
        parser.error(f"overrides {overrides} are for sweep entries; {[e.name for e in entries if not e.sweep]} "
                     "are single runs")
    out = (args.out or (QUICK_OUT if args.quick else REPO)).resolve()
    data_dir = str(Path(args.data_dir).resolve())
    if args.dry_run:
        for entry in (e for e in entries if e.sweep):
            run_sweep(entry, args, data_dir, out, overrides)
        return 0

    started = time.perf_counter()
    timings = StepTimes()
    if args.from_tables:
        entries = []
    # 1. before any work: every configuration composes (a single entry's is the one its run uses;
    # results_dir: where its external cache is read), every data set is there
    configs = {entry.name: compose([*entry.config_overrides(args.quick), f"data_dir={data_dir}",
                                    f"external={args.external}", f"results_dir={out / 'results'}"])
               for entry in entries if not entry.sweep}
    try:
        check_data(entries, data_dir)
    except FileNotFoundError as error:
        print(f"reproduce: nothing was run.\n{error}", file=sys.stderr)
        return 2

    # 2. the experiments
    out.mkdir(parents=True, exist_ok=True)
    with tqdm(entries, desc="experiments", unit="exp", position=0, dynamic_ncols=True,
              disable=not entries) as bar, logging_redirect_tqdm():  # log lines above the bars
        for entry in bar:
            bar.set_postfix_str(entry.name)
            timings.start(entry.name)
            try:
                path = (run_sweep(entry, args, data_dir, out, overrides) if entry.sweep
                        else run_single(entry, configs[entry.name], out))
            except (TableBusy, JobsFailed) as error:  # said in one message; the finished jobs' rows are in
                print(f"error: {error}", file=sys.stderr)
                return 2 if isinstance(error, TableBusy) else 1
            timings.stop()
            tqdm.write(f"{entry.name}: {path}")

    # 3. reports, figures and the results pages' tables, from the tables only
    timings.start("reports, figures and tables")
    draw_all(figure_scripts(out, args.quick, chosen))
    pages = out / RESULTS_PAGES
    if out != REPO:  # --quick, --out: a copy of the pages is rewritten, never the committed ones
        shutil.copytree(REPO / RESULTS_PAGES, pages, dirs_exist_ok=True)
    try:
        tables = page_tables(out, args.quick)
    except FileNotFoundError as error:  # --only left some table out: keep the pages as they are
        print(f"results pages' tables not rewritten: {error}")
    else:
        changed = [page.name for page in update_pages(pages, tables)]
        done = f"rewritten in {', '.join(changed)}" if changed else "already up to date"
        print(f"{pages}: generated tables {done}")
    timings.stop()
    if args.timings:
        timings.write(args.timings, args.quick)
    for line in EXTERNAL_LINES:  # which rows came from the external caches (docs/sweeps.md)
        print(f"external learners ({args.external}) {line}")
    print(f"done in {time.perf_counter() - started:.0f} s; outputs under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
