"""The one-command reproduction: its registry, its data check, the results pages' generated tables, and
`make reproduce-quick` run end to end (the same code path as `make reproduce`, at small sizes)."""
import functools
import hashlib
import importlib.util
import re
import sys
from pathlib import Path

import pandas as pd
import pytest

from ordrank.reports import generated_blocks, replace_block

REPO = Path(__file__).resolve().parents[1]


def load_driver(repo=REPO):
    """experiments/reproduce.py of ``repo`` (a fresh clone's, in test_fresh_clone.py) as a module."""
    path = repo / "experiments" / "reproduce.py"
    spec = importlib.util.spec_from_file_location("reproduce", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def driver():
    return load_driver()


def test_results_pages_tables_are_what_the_committed_tables_give(driver):
    """Each docs/results page holds exactly its tables of driver.PAGES, as the committed tables give
    them. Rerun `python experiments/reproduce.py --from-tables` (= `make figures`) when this fails."""
    expected = driver.page_tables(REPO, quick=False)
    folder = REPO / driver.RESULTS_PAGES
    whole = {"web_scale.md"}  # drawn whole by experiments/report_letor_web.py (test below)
    assert sorted(p.name for p in folder.glob("*.md")) == sorted([*driver.PAGES, *whole])
    assert sorted(name for names in driver.PAGES.values() for name in names) == sorted(expected)
    for page, names in driver.PAGES.items():
        blocks = generated_blocks((folder / page).read_text(encoding="utf-8"))
        assert sorted(blocks) == sorted(names), f"docs/results/{page}: tables {sorted(blocks)}, expected {names}"
        for name in names:
            assert blocks[name].rstrip("\n") == expected[name].rstrip("\n"), \
                f"docs/results/{page}: table {name} is out of date"
    assert not generated_blocks((REPO / "README.md").read_text(encoding="utf-8")), \
        "README.md holds generated tables: they live in docs/results/ now"


def test_web_scale_page_is_what_the_committed_tables_give():
    """docs/results/web_scale.md is experiments/report_letor_web.py's rendering of results/letor_web/."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("report_letor_web", REPO / "experiments" / "report_letor_web.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = (REPO / "docs" / "results" / "web_scale.md").read_text(encoding="utf-8")
    assert page == module.render(REPO / "results" / "letor_web"), \
        "docs/results/web_scale.md is out of date: python experiments/report_letor_web.py"


def test_update_pages_rewrites_only_the_pages_whose_tables_changed(driver, tmp_path):
    import shutil

    folder = tmp_path / "results"
    shutil.copytree(REPO / driver.RESULTS_PAGES, folder)
    tables = {name: block for page in driver.PAGES
              for name, block in generated_blocks((folder / page).read_text(encoding="utf-8")).items()}
    before = {page: (folder / page).stat().st_mtime_ns for page in driver.PAGES}
    assert driver.update_pages(folder, tables) == []
    assert {page: (folder / page).stat().st_mtime_ns for page in driver.PAGES} == before
    assert driver.update_pages(folder, {**tables, "boost_benchmark": "new\n"}) == [folder / "boost_benchmark.md"]
    assert generated_blocks((folder / "boost_benchmark.md").read_text(encoding="utf-8"))["boost_benchmark"] == "new\n"
    with pytest.raises(ValueError, match="no page in PAGES"):
        driver.update_pages(folder, {"nowhere": "x\n"})


def test_every_paper_experiment_is_registered(driver):
    registered = {e.experiment for e in driver.REGISTRY}
    registered |= set(driver.registry.BENCHMARK_EXPERIMENTS)  # run by a benchmark script instead
    configs = {p.stem for p in (REPO / "conf" / "experiment").glob("*.yaml")}
    unregistered = sorted(configs - registered)
    assert not unregistered, (f"conf/experiment/{unregistered[0]}.yaml is not in the REGISTRY of "
                              "experiments/reproduce_registry.py: add an Entry (with its quick overrides)")


def test_every_quick_overlay_is_an_entry_s_and_comes_after_its_experiment(driver, tmp_path):
    from ordrank.app import run

    overlays = {p.stem for p in (REPO / "conf" / "quick").glob("*.yaml")}
    named = {o.partition("=")[2] for e in driver.REGISTRY for o in e.quick if o.startswith("+quick=")}
    assert overlays == named, "each conf/quick/<experiment>.yaml is named by its registry entry's quick overrides"
    for overlay in sorted(overlays):
        cfg = driver.compose([f"+quick={overlay}", f"+experiment={overlay}", f"data_dir={tmp_path}"])
        with pytest.raises(ValueError, match=rf"^quick={overlay}: the overlay conf/quick/{overlay}\.yaml "
                                             rf"shrinks experiment {overlay} and comes after it"):
            run(cfg, tmp_path / overlay)


@functools.cache  # each entry's sweep composed once in the module (the tests count jobs, never read data)
def sweep_jobs(driver, entry, quick: bool) -> tuple:
    """The jobs (sweep point x learner, ordrank.launch) of a registry sweep entry."""
    from ordrank.launch.sweep import compose_jobs

    return tuple(compose_jobs(driver.compose, [*entry.config_overrides(quick), "data_dir=data"])[1])


def test_registry_composes_and_quick_is_smaller(driver, tmp_path):
    for entry in driver.REGISTRY:
        if entry.sweep:
            assert len(sweep_jobs(driver, entry, True)) < len(sweep_jobs(driver, entry, False))
            continue
        full = driver.compose([*entry.config_overrides(False), f"data_dir={tmp_path}"])
        quick = driver.compose([*entry.config_overrides(True), f"data_dir={tmp_path}"])
        sizes = ["n_sequences", "n_rounds", "n_targets", "n_repetitions", "folds"]

        def size(cfg, key):  # a list (folds) counts its entries; None = all
            value = cfg.protocol[key]
            return len(value) if hasattr(value, "__len__") else value

        smaller = [k for k in sizes if k in quick.protocol and quick.protocol[k] is not None
                   and (full.protocol[k] is None or size(quick, k) < size(full, k))]
        assert smaller, f"{entry.name}: --quick shrinks none of {sizes}"
        # the same experiment, smaller (or renamed by its quick overlay, which only overrides it)
        assert quick.experiment in (full.experiment, f"{full.experiment}_quick")
    svor = next(e for e in driver.REGISTRY if e.name == "svor_benchmark")
    jobs = sweep_jobs(driver, svor, False)
    assert len(jobs) == 12 * 2 * 20 * 17 and {"dataset.name", "dataset.bins", "protocol.splits"} == \
        set(dict(jobs[0].values))


def test_list_counts_what_runs(driver, tmp_path, capsys):
    """`--list` says what each sweep runs, counted from its composed sweep (svor_benchmark: 24
    benchmarks of 12 data sets); the registry's text types no counts."""
    assert driver.main(["--list", "--data-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    for entry in (e for e in driver.REGISTRY if e.sweep):
        jobs = sweep_jobs(driver, entry, False)
        described = lines[lines.index(next(x for x in lines if x.startswith(entry.name + " "))) + 1]
        sets = {dict(job.values)["dataset.name"] for job in jobs}
        splits = {dict(job.values)["protocol.splits"] for job in jobs}
        learners = len({job.learner for job in jobs})
        assert described.lstrip().startswith(f"{len(sets)} data sets x "), described
        assert f"x {len(splits)} partitions x {learners} learners = {len(jobs)} jobs" in described, described
    svor = next(e for e in driver.REGISTRY if e.name == "svor_benchmark")
    assert lines[lines.index(next(x for x in lines if x.startswith("svor_benchmark "))) + 1].strip() == \
        "12 data sets x 2 bin counts (5, 10) = 24 benchmarks x 20 partitions x 17 learners = 8160 jobs"
    assert driver.describe(svor, True, str(tmp_path)) == \
        "2 data sets x 1 bin count (10) = 2 benchmarks x 2 partitions x 17 learners = 68 jobs"  # --list --quick
    for entry in driver.REGISTRY:
        assert not re.search(r"\d+ (data )?sets|\d+ (partitions|learners|folds)", entry.paper), entry.paper


def test_missing_data_stops_before_any_work(driver, tmp_path, capsys):
    watched = [REPO / "README.md", *sorted((REPO / "docs" / "results").glob("*.md")),
               *sorted((REPO / "results").rglob("*.parquet")), *sorted((REPO / "figures").glob("*.png"))]
    before = {p: p.stat().st_mtime_ns for p in watched}
    out = tmp_path / "out"
    code = driver.main(["--quick", "--out", str(out), "--data-dir", str(tmp_path / "empty")])
    assert code == 2
    message = capsys.readouterr().err
    assert "nothing was run" in message
    assert "movielens" in message.lower() and "orca" in message.lower()
    assert not out.exists()  # nothing written
    assert driver.main(["--quick", "--out", str(out), "--data-dir", str(tmp_path / "empty"),
                        "--only", "prank_synthetic", "prank_eachmovie100"]) != 2  # needs no data
    assert (out / "results" / "prank_synthetic" / "crammer_singer.parquet").is_file()  # under --out,
    assert {p: p.stat().st_mtime_ns for p in watched} == before  # not in the committed results


def test_replace_block():
    text = "a\n<!-- BEGIN table:x -->\nold\n<!-- END table:x -->\nb\n"
    new = replace_block(text, "x", "new\n")
    assert new == "a\n<!-- BEGIN table:x -->\nnew\n<!-- END table:x -->\nb\n"
    assert replace_block(new, "x", "new") == new
    assert generated_blocks(new) == {"x": "new\n"}
    with pytest.raises(ValueError, match="README.md.*BEGIN table:y"):
        replace_block(text, "y", "new")
    with pytest.raises(ValueError, match="exactly one"):
        replace_block(text + text, "x", "new")


@pytest.mark.slow
def test_reproduce_quick_end_to_end(quick_reproduction):
    """`make reproduce-quick`: every entry at small size, then reports, figures and the results
    pages' tables, all under build/quick/; the committed results, figures, README and pages are not
    touched. The run is
    the session's one quick reproduction, in a fresh clone (tests/test_fresh_clone.py)."""
    run = quick_reproduction
    assert run.code == 0
    for name in ("README.md", *(n for n in run.tracked if n.startswith(("results/", "figures/", "docs/results/")))):
        assert hashlib.sha256((run.clone / name).read_bytes()).hexdigest() == run.tracked[name], name
    out, driver = run.out, run.driver

    results = out / "results"
    synthetic = pd.read_parquet(results / "prank_synthetic" / "crammer_singer.parquet")
    assert synthetic.seed.nunique() == 10 and synthetic.step.max() == 700
    for experiment in ("prank_eachmovie100", "prank_eachmovie200"):
        for dataset in ("eachmovie_style", "movielens_100k"):
            table = pd.read_parquet(results / experiment / f"{dataset}.parquet")
            assert table.seed.nunique() == 40
            assert set(table.algorithm) == {"PRank", "MCP", "WH", "Predtron-L2", "Predtron-L1"}
    benchmark = pd.read_parquet(results / "svor_benchmark_quick" / "benchmark.parquet")
    assert set(benchmark.dataset) == {"pyrim", "machine"} and set(benchmark.split) == {0, 1}
    assert benchmark.algorithm.nunique() == 17
    assert (results / "svor_benchmark_quick" / "report.md").is_file()
    boost = pd.read_parquet(results / "boost_benchmark_quick" / "benchmark.parquet")
    assert set(boost.dataset) == {"pyrim", "machine"} and boost.algorithm.nunique() == 3
    assert "p (Holm)" in (results / "boost_benchmark_quick" / "report.md").read_text(encoding="utf-8")
    for experiment, dataset in (("predtron_subset_n", "subset_ranking"), ("predtron_subset_m", "subset_ranking"),
                                ("predtron_l1_vs_l2", "subset_ranking_sparse")):
        table = pd.read_parquet(results / experiment / f"{dataset}.parquet")
        assert table.seed.nunique() == 3 and set(table.metric) == {"test_ndcg_loss", "train_ndcg_loss", "passes"}
    for figure in ("prank_synthetic", "figure4_generator", "figure4_movielens", "svor_benchmark_scatter",
                   "figure1_predtron", "boost_benchmark_scatter"):
        assert (out / "figures" / f"{figure}.png").read_bytes()[:4] == b"\x89PNG"

    pages = {}
    for page in driver.PAGES:
        pages.update(generated_blocks((out / driver.RESULTS_PAGES / page).read_text(encoding="utf-8")))
    assert pages == {k: v.rstrip("\n") + "\n" for k, v in driver.page_tables(out, quick=True).items()}
    assert "loss at t = 700 |" in pages["prank_synthetic"]


def test_papers_sizes_block_says_what_ran(driver, tmp_path):
    """The opt-in papers-size variant: a note where it has not run, else its tables per bin count
    and how many of the 20 partitions each (data set, ranks) has."""
    from ordrank.results import write_table

    path = driver.papers_sizes_table(tmp_path)
    assert driver.papers_sizes_markdown(path).startswith("Not run here")
    rows = [{"experiment": driver.PAPERS_SIZES, "dataset": "bank2", "bins": 5, "split": split,
             "algorithm": algorithm, "metric": "mae", "value": 0.9 + 0.01 * split, "status": "ok",
             "params": "{}", "config.seed": 0}
            for split in range(3) for algorithm in ("SVORIM", "skordinal-SVORIM", "Reduction-SVM")]
    path.parent.mkdir(parents=True)
    write_table(pd.DataFrame(rows), path)
    text = driver.papers_sizes_markdown(path)
    assert "| bank2 | **0.910** ± 0.006 |" in text and "partitions (5 ranks)" in text
    assert text.rstrip().endswith("Partitions run: bank2 with 5 ranks 3 of 20.")
