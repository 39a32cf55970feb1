"""docs/extending.md, run as written: a learner and data of the user's own, in the batch benchmark and
the LETOR experiment, seen in the reports and figures, with no file of the repository changed."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

DOC = REPO / "docs" / "extending.md"
BLOCK = re.compile(r"<!-- (file: (?P<file>\S+)|run) -->\n```\w+\n(?P<body>.*?)```", re.DOTALL)


def blocks():
    """The page's marked blocks, in order: ("file", path, text) and ("run", None, script)."""
    found = [("file" if m["file"] else "run", m["file"], m["body"]) for m in BLOCK.finditer(DOC.read_text())]
    assert [kind for kind, *_ in found].count("run") >= 4 and any(kind == "file" for kind, *_ in found)
    return found


def git_status():
    return subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout


def test_the_page_names_only_what_exists():
    """Every script and config the commands name is in the repository (no stale walk-through)."""
    commands = "\n".join(body for kind, _, body in blocks() if kind == "run")
    for script in re.findall(r"python (experiments/\S+\.py|run\.py)", commands):
        assert (REPO / script).is_file(), script
    for experiment in re.findall(r"\+experiment=(\S+)", commands):
        assert (REPO / "conf" / "experiment" / f"{experiment}.yaml").is_file(), experiment


@pytest.mark.slow  # a quick sweep of 4 jobs, a single run, a LETOR run and three reports
def test_walk_through_as_written(shared_data_dir, tmp_path):
    home = tmp_path / "home"
    work = home / "my-ordrank"
    before = git_status()
    script = ["set -euo pipefail"]
    for kind, name, body in blocks():
        if kind == "file":
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_text(body)
        else:
            script.append(body)
    env = {**os.environ, "HOME": str(home), "ORDRANK_DATA": str(shared_data_dir),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]

    quick = (work / "results" / "quick" / "report.md").read_text()
    assert "| RidgeRounded |" in quick
    toy = (work / "results" / "toy" / "report.md").read_text()
    assert "| toy |" in toy and "RidgeRounded" in toy
    letor = (work / "runs" / "letor" / "report.md").read_text()
    assert letor.startswith("# toy\n") and "| RidgeRounded |" in letor and "OHSUMED" not in letor
    for figure in ("quick_scatter.png", "quick_cd.png", "toy_scatter.png", "letor_ndcg.png"):
        assert (work / "figures" / figure).read_bytes()[:4] == b"\x89PNG", figure
    assert git_status() == before  # nothing of the repository changed


def plot_letor():
    """experiments/plot_letor.py as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("plot_letor", REPO / "experiments" / "plot_letor.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_letor_report_names_the_tables_own_data_set():
    """plot_letor once titled every table "LETOR 3.0 OHSUMED" and put LETOR 3.0's published
    baselines beside it, whatever data it held."""
    import pandas as pd

    module = plot_letor()
    rows = [{"dataset": "mq2008", "fold": 1, "algorithm": "A", "metric": metric, "value": 0.5}
            for metric in module.COLUMNS]
    table = pd.DataFrame(rows)
    assert module.title(table) == "mq2008"
    assert "OHSUMED" not in module.markdown(table)
    assert module.title(table.assign(dataset="letor_ohsumed")) == "LETOR 3.0 OHSUMED"


def test_letor_report_shows_letor_4_metrics_and_says_so():
    """A LETOR 4.0 folder's table holds letor4_* metrics (LETOR 4.0's P@k rule): the report shows
    them, captioned with Eval-Score-4.0, instead of a table of dashes."""
    import pandas as pd

    module = plot_letor()
    rows = [{"dataset": "mq2008", "fold": 1, "algorithm": "A", "metric": metric.replace("letor_", "letor4_"),
             "value": 0.25} for metric in module.COLUMNS]
    text = module.markdown(pd.DataFrame(rows))
    assert "| A | **0.2500**" in text and "Eval-Score-4.0.pl" in text and "–" not in text.splitlines()[2]
