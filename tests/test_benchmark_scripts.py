"""The scripts the Makefile's targets run take the data folder by the loaders' one rule: a script that
reads data (it names ``ORDRANK_DATA``, ``data_dir`` or ``resolve_data_dir``) documents ``--data-dir``
in its ``--help`` (default ``$ORDRANK_DATA``, else ``data/``), and no script edits ``sys.path``."""
import re
import subprocess
import sys

import pytest

from conftest import REPO

READS_DATA = re.compile(r"ORDRANK_DATA|resolve_data_dir|\bdata_dir\b")


def makefile_scripts() -> list[str]:
    """The Python scripts (but run.py, whose data folder is Hydra's ``data_dir=``) every target runs."""
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    scripts = re.findall(r"\$\(BIN\)/python ((?:benchmarks|experiments)/\w+\.py)", text)
    return sorted(set(scripts))


def test_the_makefile_runs_benchmarks_and_experiments():
    scripts = makefile_scripts()
    assert "benchmarks/bench_eachmovie.py" in scripts and "experiments/reproduce.py" in scripts, scripts


OTHER_DATA_SCRIPTS = ["benchmarks/bench_ranking.py", "benchmarks/bench_rankboost.py"]  # run by hand


@pytest.mark.parametrize("script", [s for s in makefile_scripts() + OTHER_DATA_SCRIPTS
                                    if READS_DATA.search((REPO / s).read_text(encoding="utf-8"))])
def test_a_script_that_reads_data_documents_data_dir(script):
    done = subprocess.run([sys.executable, script, "--help"], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.search(r"--data-dir\b", done.stdout), f"{script} --help does not document --data-dir"


@pytest.mark.parametrize("script", [s for s in makefile_scripts() if s.startswith("benchmarks/")]
                         + OTHER_DATA_SCRIPTS + ["benchmarks/bench_model_selection.py"])
def test_no_benchmark_script_edits_sys_path(script):
    assert "sys.path" not in (REPO / script).read_text(encoding="utf-8"), script
