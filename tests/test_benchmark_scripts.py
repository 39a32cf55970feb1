"""The benchmark scripts: at most 12, one per question, each its own usage doc (every ``--part`` it
offers described in its docstring); a script that reads data (it names ``ORDRANK_DATA``, ``data_dir``
or ``resolve_data_dir``) takes the data folder by the loaders' one rule and documents ``--data-dir`` in
its ``--help`` (default ``$ORDRANK_DATA``, else ``data/``); no benchmark file edits ``sys.path``; the
speed page's learners' sections are entries of ``bench_reproduce.LEARNER_BENCHMARKS`` that run."""
import ast
import functools
import importlib.util
import json
import re
import subprocess
import sys

import pytest

from conftest import REPO

READS_DATA = re.compile(r"ORDRANK_DATA|resolve_data_dir|\bdata_dir\b")
SCRIPTS = sorted(str(p.relative_to(REPO)) for p in (REPO / "benchmarks").glob("bench_*.py"))


def makefile_scripts() -> list[str]:
    """The Python scripts (but run.py, whose data folder is Hydra's ``data_dir=``) every target runs."""
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    scripts = re.findall(r"\$\(BIN\)/python ((?:benchmarks|experiments)/\w+\.py)", text)
    return sorted(set(scripts))


def reads_data(script: str) -> bool:
    """The script, or a module of benchmarks/parts it imports, names the data folder."""
    text = (REPO / script).read_text(encoding="utf-8")
    parts = re.findall(r"from parts import ([\w, ]+)", text)
    modules = [REPO / "benchmarks" / "parts" / f"{m.strip()}.py" for names in parts for m in names.split(",")]
    return any(READS_DATA.search(t) for t in [text, *(m.read_text(encoding="utf-8") for m in modules)])


def help_text(script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, script, "--help"], cwd=REPO, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def helps():
    """``python SCRIPT --help``, run once per script for all the module's tests."""
    return functools.lru_cache(maxsize=None)(help_text)


def test_the_makefile_runs_benchmarks_and_experiments():
    scripts = makefile_scripts()
    assert "benchmarks/bench_eachmovie.py" in scripts and "experiments/reproduce.py" in scripts, scripts


def test_at_most_twelve_benchmark_scripts():
    assert 0 < len(SCRIPTS) <= 12, SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_script_is_its_usage_doc_and_describes_each_part(script, helps):
    doc = ast.get_docstring(ast.parse((REPO / script).read_text(encoding="utf-8")))
    assert doc and f"python {script}" in doc, f"{script}: its docstring shows no usage line"
    done = helps(script)
    assert done.returncode == 0, done.stderr
    choices = re.search(r"--part \{([^}]*)\}", done.stdout)
    for part in (choices.group(1).split(",") if choices else []):
        assert part == "all" or re.search(rf"^{re.escape(part)}$", doc, re.M), \
            f"{script}: its docstring does not describe the part {part!r} (a line of its own)"


@pytest.mark.parametrize("script", [s for s in sorted(set(makefile_scripts() + SCRIPTS)) if reads_data(s)])
def test_a_script_that_reads_data_documents_data_dir(script, helps):
    done = helps(script)
    assert done.returncode == 0, done.stderr
    assert re.search(r"--data-dir\b", done.stdout), f"{script} --help does not document --data-dir"


@pytest.mark.parametrize("path", sorted(str(p.relative_to(REPO)) for p in (REPO / "benchmarks").rglob("*.py")))
def test_no_benchmark_file_edits_sys_path(path):
    assert "sys.path" not in (REPO / path).read_text(encoding="utf-8"), path


def bench_reproduce():
    spec = importlib.util.spec_from_file_location("bench_reproduce", REPO / "benchmarks" / "bench_reproduce.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_speed_pages_sections_are_entries_that_run(helps):
    """Each stored section is an entry, and each entry names a script that runs and parts among the
    choices of its ``--part`` (as its ``--help`` lists them)."""
    entries = bench_reproduce().LEARNER_BENCHMARKS
    stored = json.loads((REPO / "docs" / "speed.json").read_text(encoding="utf-8")).get("learners", {})
    assert set(stored) <= set(entries), sorted(set(stored) - set(entries))
    for entry in entries:
        script, *options = entry.split()
        done = helps(f"benchmarks/{script}")
        assert done.returncode == 0, f"{entry}: {done.stderr}"
        if options:
            choices = re.search(r"--part \{([^}]*)\}", done.stdout)
            assert options[0] == "--part" and choices, entry
            assert set(options[1:]) <= set(choices.group(1).split(",")), entry


def test_a_part_runs_alone():
    """bench_predtron.py's update part at its smallest: its table, one row per (m, margin), nothing else."""
    done = subprocess.run([sys.executable, "benchmarks/bench_predtron.py", "--part", "update", "--updates", "5",
                           "--repeats", "1"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = re.findall(r"^\|\s+(20|100) \| (l1|l2)\s+\|\s+5/5\s+\|\s+\d+ \|\s+\d+ \|$", done.stdout, re.M)
    assert sorted(rows) == [("100", "l1"), ("100", "l2"), ("20", "l1"), ("20", "l2")], done.stdout
    assert "run.py" not in done.stdout and "engine" not in done.stdout, done.stdout
