"""The registry of `make reproduce` (experiments/reproduce.py): every paper experiment with its quick
overrides and data, the figures and reports drawn after them, and the results pages' generated tables
(``docs/results/<page>.md``, between ``<!-- BEGIN table:NAME -->`` markers).
An entry's quick sizes are in one place: its few quick overrides here, or its overlay
``conf/quick/<experiment>.yaml`` (named here as ``+quick=<experiment>``), which also names the run.
"""
from __future__ import annotations

import importlib.util
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Entry:
    """One paper experiment: ``+experiment=<experiment>`` with ``overrides``.

    ``quick`` overrides shrink it for ``--quick`` (``+quick=<experiment>``: its overlay in
    ``conf/quick/``); ``data`` names the data sets it reads (``ordrank.datasets.fetch`` names); ``sweep`` runs its
    jobs on an engine into ``<experiment>/benchmark.parquet`` (``ordrank.launch``); an entry that is
    not ``default`` runs only when named.
    """

    name: str
    experiment: str
    overrides: tuple = ()
    quick: tuple = ()
    data: tuple = ()
    sweep: bool = False
    paper: str = ""
    default: bool = True  # run by `reproduce.py` without entry names (False: only when named)

    def config_overrides(self, quick: bool) -> list[str]:
        return [f"+experiment={self.experiment}", *self.overrides, *(self.quick if quick else ())]


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
    Entry("letor_ohsumed", "letor_ohsumed", quick=("+quick=letor_ohsumed",), data=("letor3-ohsumed",),
          paper="Qin, Liu, Xu & Li 2010 (LETOR 3.0 OHSUMED): RankSVM, RankNet and external learners"),
    Entry("svor_benchmark", "svor_benchmark", quick=("+quick=svor_benchmark",),
          data=("orca",), sweep=True,
          paper="Chu & Keerthi 2005; Li & Lin 2006: SVOR, the reductions and the authors' codes"),
    Entry("svor_benchmark_chu", "svor_benchmark_chu", quick=("+quick=svor_benchmark_chu",),
          data=("chu",), sweep=True,
          paper="Chu & Keerthi 2005 protocol on Chu's equal-length partitions"),
    Entry("boost_benchmark", "boost_benchmark", quick=("+quick=boost_benchmark",),
          data=("orca",), sweep=True,
          paper="Li & Lin 2006 (seed 003): Reduction-Boost vs RankBoost, ORBoost beside; svor_benchmark's data"),
    Entry("svor_benchmark_papers_sizes", "svor_benchmark/papers_sizes", data=("orca",), sweep=True, default=False,
          quick=("train_sizes={bank2:200,computer2:200,calhousing:200,census2:200}", "dataset.redraw.n_splits=2",
                 "protocol.splits=range(2)", "only=[SVORIM,Reduction-SVM]"),
          paper="Chu & Keerthi 2007; Li & Lin 2006: the papers' training sizes (opt-in: 110 CPU-hours; "
                "docs/cluster.md)"),
]

# Experiments that are not a paper's result and `make reproduce` does not run: the script that runs them
# and writes their committed tables (docs/results/<page>.md says how).
BENCHMARK_EXPERIMENTS = {"letor_web": "benchmarks/bench_web_scale.py --publish (make bench-web)"}

# Figures and reports, drawn from the tables once every entry has run
def svor_report(table, name):
    """The FIGURES row of report_svor_benchmark.py on entry ``name``'s table ``table(out, quick)``: its
    report beside the table, figures ``<name>_scatter.png`` and ``<name>_cd.png``."""
    return ("report_svor_benchmark.py", lambda out, quick: [
        "--table", str(table(out, quick)), "--out", str(table(out, quick).parent),
        "--figure", str(out / "figures" / f"{name}_scatter.png"),
        "--cd-figure", str(out / "figures" / f"{name}_cd.png")], table, (name,))


def folders(out, quick):
    return ["--results", str(out / "results"), "--figures", str(out / "figures")]


def entries(prefix: str) -> tuple:
    return tuple(e.name for e in REGISTRY if e.name.startswith(prefix))


# (script, its arguments, the table it needs or None, the entries whose tables it reads): a script whose
# table is missing is skipped; a run of named entries draws only what those entries feed (all: every row)
FIGURES = [
    ("plot_figure4.py", folders, lambda out, quick: None, entries("prank_")),  # each panel whose table exists
    ("plot_figure1.py", folders, lambda out, quick: None, entries("predtron_")),  # skipped if a table is missing
    ("ranknet_figure1.py", folders, lambda out, quick: None, ()),  # closed forms: its own table, then drawn
    svor_report(lambda out, quick: sweep_table("svor_benchmark", out, quick), "svor_benchmark"),
    svor_report(lambda out, quick: sweep_table("svor_benchmark_chu", out, quick), "svor_benchmark_chu"),
    svor_report(lambda out, quick: papers_sizes_table(out), "svor_benchmark_papers_sizes"),  # opt-in
    ("report_boost_benchmark.py", lambda out, quick: [
        "--table", str(sweep_table("boost_benchmark", out, quick)),
        "--out", str(sweep_table("boost_benchmark", out, quick).parent),
        "--figure", str(out / "figures" / "boost_benchmark_scatter.png")],
     lambda out, quick: sweep_table("boost_benchmark", out, quick), ("boost_benchmark",)),
    ("plot_letor.py", lambda out, quick: [
        *folders(out, quick), "--table", str(letor_table(out, quick).relative_to(out / "results"))],
     lambda out, quick: letor_table(out, quick), ("letor_ohsumed",)),
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


@lru_cache(maxsize=None)
def experiment_name(name: str, quick: bool) -> str:
    """The ``experiment`` (tables' folder) entry ``name`` runs as: its ``+`` overrides composed."""
    from hydra import compose, initialize_config_dir

    entry = next(e for e in REGISTRY if e.name == name)
    configs = [o for o in entry.config_overrides(quick) if o.startswith("+")]  # not the sizes (sweeps)
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        return str(compose("config", overrides=configs).experiment)


def letor_table(out: Path, quick: bool) -> Path:
    return out / "results" / experiment_name("letor_ohsumed", quick) / "letor_ohsumed.parquet"


def sweep_table(name: str, out: Path, quick: bool) -> Path:
    """The collected table of the registry's sweep entry ``name`` (its quick run's with ``quick``)."""
    return out / "results" / experiment_name(name, quick) / "benchmark.parquet"


def papers_sizes_table(out: Path) -> Path:
    """The opt-in ``svor_benchmark_papers_sizes`` entry's table."""
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
    benchmark = read_table(sweep_table("svor_benchmark", out, quick))  # its report: section says what the page shows
    chu = read_table(sweep_table("svor_benchmark_chu", out, quick))
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
        "boost_benchmark": load_script("report_boost_benchmark.py").markdown(
            read_table(sweep_table("boost_benchmark", out, quick))),
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


def load_script(name: str):
    """Import ``experiments/<name>`` as a module (its ``main(argv)`` is called in this process)."""
    path = REPO / "experiments" / name
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def draw(script: str, arguments: list[str]) -> None:
    load_script(script).main(arguments)


def draw_all(scripts: list[tuple[str, list[str]]]) -> None:
    """Each report and figure script's ``main`` in two forked processes (they write different
    files; the slowest, svor_benchmark's report, takes a third of the step); one process on a
    single core. The first failure is raised after the others have finished."""
    workers = min(2, os.cpu_count() or 1, len(scripts))
    if workers < 2:
        for script, arguments in scripts:
            draw(script, arguments)
        return
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(draw, script, arguments) for script, arguments in scripts]
    for future in futures:
        future.result()
