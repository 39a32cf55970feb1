"""Reproduce every paper experiment with one command: run, aggregate, redraw, rewrite the results pages' tables.

    python experiments/reproduce.py                  # = make reproduce: every experiment at full size
    python experiments/reproduce.py --quick          # = make reproduce-quick: the same code paths at small
                                                     #   sizes, written under build/quick/ (git-ignored)
    python experiments/reproduce.py --list           # the registry, with the data each entry needs and
                                                     #   its sizes from the configs (--quick: quick sizes)
    python experiments/reproduce.py --only prank_synthetic svor_benchmark   # some entries only
    python experiments/reproduce.py --redraw         # no runs: reports, figures and the pages' tables only
    python experiments/reproduce.py --timings t.json # also write each step's wall and CPU seconds
                                                     #   (benchmarks/bench_reproduce.py -> docs/speed.md)
    python experiments/reproduce.py --peers rerun    # = make reproduce PEERS=rerun: fit the peers again
                                                     #   (default: their pieces from each sweep's peer cache)

Steps, in order:

1. compose every entry's configuration (a bad override stops here) and check that every data set the
   chosen entries need is under the data directory ($ORDRANK_DATA, else data/) -- before any work,
   naming the fetch command of each missing one;
2. run each entry: a single run in this process (Hydra's compose API + ``ordrank.app.run``) published
   to ``<out>/results/<experiment>/<dataset>.parquet``, or a sweep (``run.py -m`` with the joblib
   launcher, one job per data set x partition; a sweep started again runs only the unfinished jobs)
   whose tables are collected into one; a progress bar counts entries and sweep jobs;
3. regenerate the reports and every figure from the tables (``experiments/plot_*.py``,
   ``experiments/report_*.py``), then the generated tables of the results pages (one per paper,
   ``docs/results/<page>.md``, :data:`PAGES`), between ``<!-- BEGIN table:NAME -->`` and
   ``<!-- END table:NAME -->``.

The output root ``--out`` is the repository for a full run (so it rewrites the committed results,
figures and docs/results pages) and ``build/quick`` for ``--quick`` (a copy of docs/results/ is
rewritten there, under ``<out>/docs/results``).
"""
from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

from ordrank.datasets.fetch import require
from ordrank.progress import StepTimes

REPO = Path(__file__).resolve().parents[1]
QUICK_OUT = REPO / "build" / "quick"


@dataclass(frozen=True)
class Entry:
    """One paper experiment: ``+experiment=<experiment>`` with ``overrides``.

    ``quick`` overrides shrink it for ``--quick`` (``quick_experiment`` replaces the experiment when
    set); ``data`` names the data sets it reads (``ordrank.datasets.fetch`` names); ``sweep`` runs it
    with ``run.py -m`` and collects the jobs' tables into ``<experiment>/benchmark.parquet``.
    """

    name: str
    experiment: str
    overrides: tuple = ()
    quick: tuple = ()
    quick_experiment: str | None = None
    data: tuple = ()
    sweep: bool = False
    paper: str = ""

    def config_overrides(self, quick: bool) -> list[str]:
        experiment = self.quick_experiment if quick and self.quick_experiment else self.experiment
        return [f"+experiment={experiment}", *self.overrides, *(self.quick if quick else ())]


GENERATOR_QUICK = ("dataset.n_users=3000", "dataset.n_items=400", "protocol.n_targets=40")
MOVIELENS = ("dataset=movielens_100k",)
PREDTRON_QUICK = ("protocol.n_repetitions=3", "protocol.n_test=50")  # + a two-point grid per entry

REGISTRY = [
    Entry("prank_synthetic", "prank_synthetic",
          quick=("protocol.n_sequences=10", "protocol.n_rounds=700"),
          paper="Crammer & Singer 2001, Figure 4 (left)"),
    Entry("prank_eachmovie100", "prank_eachmovie100", quick=GENERATOR_QUICK,
          paper="Crammer & Singer 2001, Figure 4 (middle), EachMovie-style generator"),
    Entry("prank_eachmovie200", "prank_eachmovie200", quick=GENERATOR_QUICK,
          paper="Crammer & Singer 2001, Figure 4 (right), EachMovie-style generator"),
    Entry("prank_eachmovie100_movielens", "prank_eachmovie100", MOVIELENS,
          quick=("protocol.n_targets=40",), data=("movielens-100k",),
          paper="Crammer & Singer 2001, Figure 4 (middle), MovieLens-100K"),
    Entry("prank_eachmovie200_movielens", "prank_eachmovie200", MOVIELENS,
          quick=("protocol.n_targets=40",), data=("movielens-100k",),
          paper="Crammer & Singer 2001, Figure 4 (right), MovieLens-100K"),
    Entry("predtron_subset_n", "predtron_subset_n",
          quick=PREDTRON_QUICK + ("protocol.n_train=[10,20]", "algorithms.RankSVM.tol=1e-3"),
          paper="Jain, Natarajan & Tewari 2015 (Predtron), Figure 1 (a)"),
    Entry("predtron_subset_m", "predtron_subset_m", quick=PREDTRON_QUICK + ("protocol.m=[10,16]",),
          paper="Jain, Natarajan & Tewari 2015 (Predtron), Figure 1 (b)"),
    Entry("predtron_l1_vs_l2", "predtron_l1_vs_l2", quick=PREDTRON_QUICK + ("protocol.p=[500,1000]",),
          paper="Jain, Natarajan & Tewari 2015 (Predtron), Figure 1 (c)"),
    Entry("letor_ohsumed", "letor_ohsumed", quick_experiment="letor_ohsumed_quick", data=("letor3-ohsumed",),
          paper="Qin, Liu, Xu & Li 2010 (LETOR 3.0 OHSUMED): RankSVM, RankNet and peers"),
    Entry("svor_benchmark", "svor_benchmark", quick_experiment="svor_benchmark_quick",
          data=("orca",), sweep=True,
          paper="Chu & Keerthi 2005; Li & Lin 2006: SVOR, the reductions and their reference codes"),
    Entry("svor_benchmark_chu", "svor_benchmark_chu", quick_experiment="svor_benchmark_chu_quick",
          data=("chu",), sweep=True,
          paper="Chu & Keerthi 2005 protocol on Chu's equal-length partitions"),
    Entry("boost_benchmark", "boost_benchmark", quick_experiment="boost_benchmark_quick",
          data=("orca",), sweep=True,
          paper="Li & Lin 2006 (seed 003): Reduction-Boost vs RankBoost, ORBoost beside; svor_benchmark's data"),
]
# Figures and reports, drawn from the tables once every entry has run: (script, arguments(out, quick))
def svor_report(table, name):
    """The FIGURES entry of report_svor_benchmark.py on the table ``table(out, quick)``: its report
    beside the table, figures ``<name>_scatter.png`` and ``<name>_cd.png``."""
    return ("report_svor_benchmark.py", lambda out, quick: [
        "--table", str(table(out, quick)), "--out", str(table(out, quick).parent),
        "--figure", str(out / "figures" / f"{name}_scatter.png"),
        "--cd-figure", str(out / "figures" / f"{name}_cd.png")], table)


# (script, its arguments, the table it needs or None); a script whose table is missing is skipped
FIGURES = [
    ("plot_figure4.py", lambda out, quick: ["--results", str(out / "results"),
                                            "--figures", str(out / "figures")],
     lambda out, quick: None),  # draws every panel whose table exists
    ("plot_figure1.py", lambda out, quick: ["--results", str(out / "results"),
                                            "--figures", str(out / "figures")],
     lambda out, quick: None),  # skips the figure when a Predtron table is missing
    ("ranknet_figure1.py", lambda out, quick: ["--results", str(out / "results"),
                                               "--figures", str(out / "figures")],
     lambda out, quick: None),  # closed forms: writes its own table, then draws from it
    svor_report(lambda out, quick: benchmark_table(out, quick), "svor_benchmark"),
    svor_report(lambda out, quick: chu_table(out, quick), "svor_benchmark_chu"),
    svor_report(lambda out, quick: papers_sizes_table(out), "svor_benchmark_papers_sizes"),  # opt-in
    ("report_boost_benchmark.py", lambda out, quick: [
        "--table", str(boost_table(out, quick)), "--out", str(boost_table(out, quick).parent),
        "--figure", str(out / "figures" / "boost_benchmark_scatter.png")],
     lambda out, quick: boost_table(out, quick)),
    ("plot_letor.py", lambda out, quick: [
        "--results", str(out / "results"), "--figures", str(out / "figures"),
        "--table", str(letor_table(out, quick).relative_to(out / "results"))],
     lambda out, quick: letor_table(out, quick)),
]


PAPERS_SIZES = "svor_benchmark_papers_sizes"  # the opt-in variant's experiment name
RESULTS_PAGES = Path("docs") / "results"  # one page per paper, under the output root
PAGES = {  # page -> the generated tables it holds (marker names)
    "prank.md": ("prank_synthetic", "prank_eachmovie"),
    "svor_benchmark.md": ("svor_benchmark", "svor_benchmark_5bins", "svor_benchmark_statistics",
                          "svor_benchmark_chu", "svor_benchmark_chu_5bins", "svor_benchmark_chu_statistics",
                          PAPERS_SIZES),
    "boost_benchmark.md": ("boost_benchmark",),
    "predtron.md": ("predtron_subset_n", "predtron_subset_m", "predtron_l1_vs_l2"),
    "letor.md": ("letor_ohsumed", "letor_ohsumed_published"),
}


def letor_table(out: Path, quick: bool) -> Path:
    entry = next(e for e in REGISTRY if e.name == "letor_ohsumed")
    experiment = entry.quick_experiment if quick else entry.experiment
    return out / "results" / experiment / "letor_ohsumed.parquet"


def sweep_table(name: str, out: Path, quick: bool) -> Path:
    """The collected table of the registry's sweep entry ``name`` (its quick experiment's with ``quick``)."""
    entry = next(e for e in REGISTRY if e.name == name)
    experiment = entry.quick_experiment if quick else entry.experiment
    return out / "results" / experiment / "benchmark.parquet"


def benchmark_table(out: Path, quick: bool) -> Path:
    return sweep_table("svor_benchmark", out, quick)


def chu_table(out: Path, quick: bool) -> Path:
    return sweep_table("svor_benchmark_chu", out, quick)


def boost_table(out: Path, quick: bool) -> Path:
    return sweep_table("boost_benchmark", out, quick)


def papers_sizes_table(out: Path) -> Path:
    """The opt-in ``svor_benchmark/papers_sizes`` table (not in the registry: run and collect by hand)."""
    return out / "results" / PAPERS_SIZES / "benchmark.parquet"


def page_tables(out: Path, quick: bool) -> dict[str, str]:
    """The results pages' generated tables, {marker name: markdown}, from the tables under ``out/results``."""
    from ordrank.reports import (ReportSpec, online_comparison_markdown,
                                 online_final_markdown)
    from ordrank.results import read_table

    results = out / "results"
    eachmovie = [
        ("generator, ≥ 100 ratings", "prank_eachmovie100/eachmovie_style.parquet"),
        ("generator, ≥ 200 ratings", "prank_eachmovie200/eachmovie_style.parquet"),
        ("MovieLens-100K, ≥ 100", "prank_eachmovie100/movielens_100k.parquet"),
        ("MovieLens-100K, ≥ 200", "prank_eachmovie200/movielens_100k.parquet"),
    ]
    figure1 = load_script("plot_figure1.py")
    benchmark = read_table(benchmark_table(out, quick))  # its report: section says what the page shows
    chu = read_table(chu_table(out, quick))
    predtron = {Path(path).parts[0]: figure1.markdown(read_table(results / path), letter)
                for letter, (path, *_) in figure1.PANELS.items()}  # marker = the experiment
    return {
        **predtron,
        "prank_synthetic": online_final_markdown(
            read_table(results / "prank_synthetic" / "crammer_singer.parquet"), unit="sequences"),
        "prank_eachmovie": online_comparison_markdown(
            [(label, read_table(results / path)) for label, path in eachmovie]),
        **svor_readme_tables(benchmark, ReportSpec.of_table(benchmark, REPO / "conf")),
        **svor_readme_tables(chu, ReportSpec.of_table(chu, REPO / "conf"), "svor_benchmark_chu"),
        "svor_benchmark_chu_statistics": load_script("report_svor_benchmark.py").statistics_markdown(chu),
        PAPERS_SIZES: papers_sizes_markdown(papers_sizes_table(out)),
        "svor_benchmark_statistics": load_script("report_svor_benchmark.py").statistics_markdown(benchmark),
        "boost_benchmark": load_script("report_boost_benchmark.py").markdown(read_table(boost_table(out, quick))),
        **letor_readme_tables(read_table(letor_table(out, quick))),
    }


def svor_readme_tables(benchmark, spec, marker="svor_benchmark") -> dict[str, str]:
    """A benchmark's page tables: the report section's rows (10 ranks, marker ``marker``) and the
    same columns at 5 ranks (``<marker>_5bins``; a one-line note when the table has none)."""
    import dataclasses

    from ordrank.reports import benchmark_readme_markdown

    tables = {marker: benchmark_readme_markdown(benchmark, spec=spec),
              f"{marker}_5bins": "No results with 5 ranks in this table.\n"}  # e.g. --quick's
    if "bins" in benchmark and (benchmark["bins"] == 5).any():
        five = dataclasses.replace(spec, readme_where={**spec.readme_where, "bins": 5}, readme_subset="5 ranks")
        tables[f"{marker}_5bins"] = benchmark_readme_markdown(benchmark, spec=five)
    return tables


def papers_sizes_markdown(path: Path) -> str:
    """The opt-in papers-size block's page table: every (data set, ranks) it has, with how many
    of the 20 partitions ran; a note where it has not been run."""
    import dataclasses

    from ordrank.reports import ReportSpec, benchmark_readme_markdown
    from ordrank.results import read_table

    if not path.is_file():
        return f"Not run here: no `{path.name}` in `results/{PAPERS_SIZES}/`.\n"
    table = read_table(path)
    spec = ReportSpec.of_table(table, REPO / "conf")
    parts = [benchmark_readme_markdown(table, spec=dataclasses.replace(
        spec, readme_where={"bins": bins}, readme_subset=f"{int(bins)} ranks"))
        for bins in sorted(table["bins"].unique())]
    counts = table.groupby(["dataset", "bins"])["split"].nunique()
    ran = "; ".join(f"{name} with {int(bins)} ranks {n} of 20" for (name, bins), n in counts.items())
    return "\n".join(parts) + f"\nPartitions run: {ran}.\n"


def letor_readme_tables(table) -> dict[str, str]:
    """The LETOR page's tables: ordrank's methods, and the published baselines beside them."""
    letor = load_script("plot_letor.py")
    tables = {"letor_ohsumed": letor.markdown(table)}
    if letor.PUBLISHED.is_file():
        tables["letor_ohsumed_published"] = letor.published_markdown(table, letor.published_table())
    return tables


def update_pages(folder: Path, tables: dict[str, str]) -> list[Path]:
    """Rewrite the generated tables of the results pages in ``folder`` (each table in its page of
    :data:`PAGES`); return the pages that changed."""
    page_of = {name: page for page, names in PAGES.items() for name in names}
    unplaced = sorted(set(tables) - set(page_of))
    if unplaced:
        raise ValueError(f"generated tables {unplaced} have no page in PAGES (experiments/reproduce.py)")
    changed = []
    for page, names in PAGES.items():
        named = {name: tables[name] for name in names if name in tables}
        if named and update_page(folder / page, named):
            changed.append(folder / page)
    return changed


def update_page(path: Path, tables: dict[str, str]) -> bool:
    """Rewrite the generated tables of the page at ``path`` (atomically); return whether it changed."""
    from ordrank.reports import replace_block
    from ordrank.results import atomic_path

    before = path.read_text(encoding="utf-8")
    text = before
    for name, content in tables.items():
        text = replace_block(text, name, content, where=str(path))
    if text != before:
        with atomic_path(path) as tmp:
            Path(tmp).write_text(text, encoding="utf-8")
    return text != before


def compose(overrides: list[str], hydra_config: bool = False):
    from hydra import compose as hydra_compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        return hydra_compose("config", overrides=overrides, return_hydra_config=hydra_config)


def sweep_jobs(entry: Entry, quick: bool, data_dir: str) -> list[dict]:
    """The jobs of a sweep entry: one {key: value} per combination of its sweeper params."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    cfg = compose([*entry.config_overrides(quick), f"data_dir={data_dir}"], hydra_config=True)
    params = {str(k): str(v) for k, v in cfg.hydra.sweeper.params.items()}
    parsed = OverridesParser.create().parse_overrides([f"{k}={v}" for k, v in params.items()])
    axes = {o.key_or_group: ([str(v) for v in o.sweep_iterator()] if o.is_sweep_override()
                             else [o.get_value_element_as_str()]) for o in parsed}
    return [dict(zip(axes, values)) for values in itertools.product(*axes.values())]


SIZES = ("n_sequences", "n_rounds", "min_ratings", "n_targets", "n_repetitions", "n_train", "m", "p", "folds")


def describe(entry: Entry, quick: bool, data_dir: str) -> str:
    """What ``entry`` runs, counted from its composed configuration (``--list`` prints it, so it
    cannot drift from the configs): a sweep's data sets, bin counts, benchmarks (data set x bins),
    partitions, jobs (``sweep_jobs``) and learners; a single run's learners and protocol sizes."""
    from omegaconf import OmegaConf

    cfg = compose([*entry.config_overrides(quick), f"data_dir={data_dir}"])
    learners = f"{len(cfg.algorithms)} learners"
    if not entry.sweep:
        sizes = {k: OmegaConf.to_container(cfg.protocol)[k] for k in SIZES if k in cfg.protocol}
        shown = ", ".join(f"{k}={'null' if v is None else v}" for k, v in sizes.items())  # null: the default
        return f"{cfg.dataset.name}: {learners}; {shown}"
    jobs = sweep_jobs(entry, quick, data_dir)

    def values(key):  # a swept key's values, else the configuration's one value
        return {job[key] if key in job else str(OmegaConf.select(cfg, key)) for job in jobs}

    names, bins, splits = values("dataset.name"), values("dataset.bins"), values("protocol.splits")
    benchmarks = {(job.get("dataset.name"), job.get("dataset.bins")) for job in jobs}
    return (f"{len(names)} data sets x {len(bins)} bin count{'s' * (len(bins) > 1)} "
            f"({', '.join(sorted(bins, key=int))}) = "
            f"{len(benchmarks)} benchmarks x {len(splits)} partitions = {len(jobs)} jobs, {learners}")


def needed_data(entries) -> list[str]:
    return sorted({name for entry in entries for name in entry.data})


def check_data(names: list[str], data_dir: str) -> None:
    """Stop before any work when a data set is missing or incomplete, saying how to get each one.

    ``ordrank.datasets.fetch.require`` raises FileNotFoundError naming each such set and its fetch
    command (``python -m ordrank.data fetch NAME``).
    """
    if names:
        require(names, data_dir)


def load_script(name: str):
    """Import ``experiments/<name>`` as a module (its ``main(argv)`` is called in this process)."""
    path = REPO / "experiments" / name
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PEER_LINES: list[str] = []  # per experiment with peers: its pieces from the peer cache / computed (the summary)


def run_single(entry: Entry, quick: bool, data_dir: str, out: Path, peers: str = "cached") -> Path:
    """One Hydra job in this process, published to ``<out>/results``; returns the published table."""
    from ordrank.app import run
    from ordrank.results.peer_cache import FILE, merge, tally
    from ordrank.results import publish

    cfg = compose([*entry.config_overrides(quick), f"data_dir={data_dir}", f"peers={peers}",
                   f"results_dir={out / 'results'}"])  # results_dir: where the peer cache is read
    workdir = out / "outputs" / entry.name
    path = run(cfg, workdir)
    published = publish(path, out / "results", cfg.experiment, cfg.dataset.name)
    job_files = [workdir / FILE] if (workdir / FILE).is_file() else []
    if merge(job_files, published):  # its peers' pieces (LETOR's) into the cache beside its table
        PEER_LINES.append(f"{entry.name}: {tally(job_files)}")
    return published


def run_sweep(entry: Entry, quick: bool, data_dir: str, out: Path, bar_position: int = 1,
              peers: str = "cached") -> Path:
    """``run.py -m`` with the joblib launcher in a subprocess (log in ``<out>/logs``), a bar over its
    jobs (counted by their FINISHED markers), then the jobs' tables collected into one table."""
    from ordrank.results import main as results_main

    cfg = compose([*entry.config_overrides(quick), f"data_dir={data_dir}"], hydra_config=True)
    sweep_dir = out / cfg.hydra.sweep.dir  # the experiment's own sweep folder (multirun/<experiment>[/bins..])
    jobs = sweep_jobs(entry, quick, data_dir)
    command = [sys.executable, str(REPO / "run.py"), "-m", *entry.config_overrides(quick),
               "hydra/launcher=joblib", f"data_dir={data_dir}", f"hydra.sweep.dir={sweep_dir}",
               f"peers={peers}", f"results_dir={out / 'results'}"]  # the peer cache: results/<experiment>/
    log = out / "logs" / f"{entry.name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)

    def finished():
        return sum(1 for _ in sweep_dir.rglob("FINISHED")) if sweep_dir.is_dir() else 0

    with open(log, "w", encoding="utf-8") as handle, \
            tqdm(total=len(jobs), desc=f"{entry.name} jobs", unit="job", position=bar_position,
                 leave=False, dynamic_ncols=True) as bar:
        process = subprocess.Popen(command, cwd=REPO, stdout=handle, stderr=subprocess.STDOUT)
        while process.poll() is None:
            bar.n = min(finished(), len(jobs))
            bar.refresh()
            time.sleep(1.0)
        bar.n = min(finished(), len(jobs))
        bar.refresh()
    if process.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-30:]
        raise RuntimeError(f"{entry.name}: `{' '.join(command)}` failed (exit {process.returncode}); "
                           f"last lines of {log}:\n" + "\n".join(tail))
    table = benchmark_table(out, quick) if entry.name == "svor_benchmark" else \
        out / "results" / cfg.experiment / "benchmark.parquet"
    code = results_main(["collect", str(sweep_dir), "-o", str(table)])
    if code:  # failed or missing jobs (listed on stderr): stop before reports and the pages' tables
        raise RuntimeError(f"{entry.name}: not every job of {sweep_dir} finished (collector exit {code}); "
                           f"see the list above and {log}; run again to resume the unfinished jobs")
    from ordrank.results.peer_cache import FILE, tally

    PEER_LINES.append(f"{entry.name}: {tally(sorted(sweep_dir.rglob(FILE)))}")
    return table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes, written under --out")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"output root (default: the repository; with --quick {QUICK_OUT.relative_to(REPO)})")
    parser.add_argument("--data-dir", default=os.environ.get("ORDRANK_DATA", "data"),
                        help="where the data sets are (default: $ORDRANK_DATA, else data/)")
    parser.add_argument("--only", nargs="+", metavar="ENTRY", help="run only these registry entries")
    parser.add_argument("--list", action="store_true",
                        help="print the registry, each entry's sizes from its config (with --quick: the quick ones), and exit")
    parser.add_argument("--peers", choices=("cached", "rerun"), default="cached",
                        help="cached: the peers' pieces from each sweep's peer_cache.parquet when there; rerun: fit them")
    parser.add_argument("--redraw", action="store_true",
                        help="run nothing: redraw reports, figures and the results pages' tables from the tables")
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
    unknown = sorted(set(args.only or ()) - set(names))
    if unknown:
        parser.error(f"--only: unknown entries {unknown}; choose from {names}")
    entries = [e for e in REGISTRY if not args.only or e.name in args.only]
    out = (args.out or (QUICK_OUT if args.quick else REPO)).resolve()
    data_dir = str(Path(args.data_dir).resolve())

    started = time.perf_counter()
    timings = StepTimes()
    if args.redraw:
        entries = []
    # 1. before any work: every configuration composes, every data set is there
    for entry in entries:
        compose([*entry.config_overrides(args.quick), f"data_dir={data_dir}"])
    try:
        check_data(needed_data(entries), data_dir)
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
            path = (run_sweep(entry, args.quick, data_dir, out, peers=args.peers) if entry.sweep
                    else run_single(entry, args.quick, data_dir, out, args.peers))
            timings.stop()
            tqdm.write(f"{entry.name}: {path}")

    # 3. reports, figures and the results pages' tables, from the tables only
    timings.start("reports, figures and tables")
    for script, arguments, needs in FIGURES:
        table = needs(out, args.quick)
        if table is not None and not table.is_file():
            print(f"skipping {script}: {table} not found")
            continue
        load_script(script).main(arguments(out, args.quick))
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
    for line in PEER_LINES:  # which rows came from the peer caches (docs/sweeps.md)
        print(f"peers ({args.peers}) {line}")
    print(f"done in {time.perf_counter() - started:.0f} s; outputs under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
