"""Bad inputs: ONE table of what users gave, the exception it must raise and a regex of its message.

Every row triggers its input for real (a learner, a data file written to ``tmp_path``, a config through
Hydra's compose API and ``ordrank.app.run``, ``run.py`` in a subprocess) and asserts the exception
type, the message, and that ``docs/bad_inputs.md`` shows that very message (temporary paths written as
``<tmp>``). ``python tests/test_bad_inputs.py`` rewrites that page from this table.
"""
from __future__ import annotations

import os
from importlib import import_module
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hydra.errors import MissingConfigException
from sklearn.utils._param_validation import InvalidParameterError

import ordrank.app
import ordrank.settings
from ordrank.algorithms import FitFailed, MulticlassPerceptron, PRank, RoundedRegression, WidrowHoff
from ordrank.algorithms._ordinal import Diverged
from ordrank.app import run
from ordrank.datasets.ratings import load_movielens, load_movielens_100k
from ordrank.protocols.engine import run_sequences

from conftest import REPO, Case, make_cfg, write

DOC = REPO / "docs" / "bad_inputs.md"
# the synthetic protocol with two learners, spelled out (independent of how experiments change)
TINY = ["+algorithm@algorithms.PRank=prank", "+algorithm@algorithms.WH=widrow_hoff",
        "protocol.n_sequences=2", "protocol.n_rounds=600", "protocol.record_every=100"]

RNG = np.random.default_rng(0)
X = RNG.uniform(size=(600, 3))  # long enough for a diverging step to overflow
Y = RNG.integers(1, 4, 600)


NAMES = np.array(["low", "mid", "high"])  # rank order low < mid < high, not alphabetical


def svor_once(X, y):
    from ordrank.algorithms import SVOR

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Solution may be inaccurate")
        return SVOR(solver="CLARABEL", max_iter=1).fit(X, y)


def with_value(array, index, value):
    array = array.copy()
    array[index] = value
    return array


def app_run(*overrides, checked_first=True, base=TINY):
    """A trigger: compose the tiny synthetic run ``base`` with ``overrides`` and run it with
    ``ordrank.app.run`` into ``<tmp>/run``. With ``checked_first``, the error must come before any
    work: the run folder then holds only the ERROR file (no table, no partial table)."""
    def trigger(tmp):
        cfg = make_cfg([*base, *overrides])
        try:
            run(cfg, tmp / "run")
        finally:
            if checked_first:
                assert [p.name for p in (tmp / "run").iterdir()] == ["ERROR"]
    return trigger


U_DATA = "12\t7\t5\t881250949\n3\t7\t1\t891717742\n"  # two good lines of MovieLens-100K's u.data


def u_data(line: str):
    """A trigger: load a u.data whose third line is ``line`` (not the published file: no warning)."""
    def trigger(tmp):
        write(tmp / "movielens-100k" / "u.data", U_DATA + line + "\n")
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "(?s).*not the published data", UserWarning)
            return load_movielens_100k(tmp)
    return trigger


class ExitStatus(Exception):
    """``run.py`` ended with a non-zero status; the message is ``exit <status>: <its stderr>``."""


def run_py(*overrides, experiment="prank_synthetic"):
    """A trigger: ``python run.py +experiment=... <tiny sizes> overrides`` in a subprocess, run into
    ``<tmp>/run``; raise ExitStatus unless it succeeds, after checking stderr is one line."""
    def trigger(tmp):
        command = [sys.executable, "run.py", f"+experiment={experiment}", *TINY[2:],
                   f"hydra.run.dir={tmp}/run", "hydra/job_logging=disabled", *overrides]
        env = {k: v for k, v in os.environ.items() if k not in ("ORDRANK_DEBUG", "HYDRA_FULL_ERROR")}
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120, env=env)
        if done.returncode:
            assert len(done.stderr.strip().splitlines()) == 1, done.stderr
            raise ExitStatus(f"exit {done.returncode}: {done.stderr.strip()}")
        return done
    return trigger


CASES = [
    # --- learners: divergence and non-finite inputs -------------------------------------------------
    Case("wh-diverges-fit", "`WidrowHoff().fit(100 * X, y)`", Diverged,
         r"WidrowHoff\(\) diverged: its error \|y − w·x\| grew to .* eta=0\.05 is stable only below",
         lambda tmp: WidrowHoff().fit(100 * X, Y)),
    Case("wh-diverges-partial-fit", "`WidrowHoff(eta=100).partial_fit(X, y, classes=[1, 2, 3])`",
         Diverged, r"WidrowHoff\(eta=100\) diverged: .* normalized=True",
         lambda tmp: WidrowHoff(eta=100).partial_fit(X, Y, classes=[1, 2, 3])),
    Case("wh-diverges-normalized", "`WidrowHoff(eta=10, normalized=True).fit(X, y)`", Diverged,
         r"eta=10 with normalized=True is stable only for 0 < eta < 2",
         lambda tmp: WidrowHoff(eta=10, normalized=True).fit(X, Y)),
    Case("wh-diverges-protocol", "WH with `eta=100` in the vectorized protocol (`run_sequences`)",
         Diverged, r"WidrowHoff\(eta=100\) diverged",
         lambda tmp: run_sequences(WidrowHoff(eta=100), np.stack([X, X]), np.stack([Y, Y]), 3)),
    Case("prank-huge-inputs", "`PRank().fit(1e200 * X, y)` (w·x overflows)", Diverged,
         r"PRank\(\) diverged: w·x became inf or NaN on inputs whose squared norm overflows",
         lambda tmp: PRank().fit(1e200 * X, Y)),
    Case("mcp-huge-inputs", "`MulticlassPerceptron().fit(1e200 * X, y)`", Diverged,
         r"MulticlassPerceptron\(\) diverged: the scores W_r·x became inf or NaN",
         lambda tmp: MulticlassPerceptron().fit(1e200 * X, Y)),
    Case("nan-feature", "`PRank().fit(X, y)` with a NaN in X", ValueError,
         r"^PRank: X has NaN at row 3, column 1 \(1 NaN or infinite entries\): the learners need finite",
         lambda tmp: PRank().fit(with_value(X, (3, 1), np.nan), Y)),
    Case("inf-feature", "`MulticlassPerceptron().fit(X, y)` with an inf in X", ValueError,
         r"^MulticlassPerceptron: X has an infinite value at row 3, column 1",
         lambda tmp: MulticlassPerceptron().fit(with_value(X, (3, 1), np.inf), Y)),
    Case("nan-feature-predict", "`model.predict(X)` with a NaN in X", ValueError,
         r"^WidrowHoff: X has NaN at row 0, column 2",
         lambda tmp: WidrowHoff().fit(X, Y).predict(with_value(X, (0, 2), np.nan))),
    Case("inf-feature-protocol", "an inf feature in the vectorized protocol", ValueError,
         r"X contains NaN or infinite values",
         lambda tmp: run_sequences(PRank(), with_value(np.stack([X, X]), (1, 3, 0), np.inf),
                                   np.stack([Y, Y]), 3)),
    # --- labels and shapes ----------------------------------------------------------------------------
    Case("string-labels-unordered", "`PRank().fit(X, y)` with y = 'low'/'mid'/'high' strings", ValueError,
         r"^PRank: the labels \['high', 'low', 'mid'\] are not numbers, so their rank order is unknown "
         r"\(sorting would rank them alphabetically\); give their order: y as an ordered pandas Categorical",
         lambda tmp: PRank().fit(X, NAMES[Y - 1])),
    Case("unordered-categorical", "`RoundedRegression().fit(X, pd.Categorical(y))` (not `ordered=True`)",
         ValueError, r"^RoundedRegression: the labels .* are not numbers, so their rank order is unknown",
         lambda tmp: RoundedRegression().fit(X, pd.Categorical(NAMES[Y - 1]))),
    Case("repeated-classes", "`MulticlassPerceptron().partial_fit(X, y, classes=['low', 'low', 'high'])`",
         ValueError, r"^classes must not repeat a label, got \['low', 'low', 'high'\]",
         lambda tmp: MulticlassPerceptron().partial_fit(X, NAMES[Y - 1], classes=["low", "low", "high"])),
    Case("label-not-in-classes", "`partial_fit` with a label missing from `classes`", ValueError,
         r"^label\(s\) \['mid'\] not among the ranks \['low', 'high'\] of PRank",
         lambda tmp: PRank().partial_fit(X, NAMES[Y - 1], classes=["low", "high"])),
    Case("nan-label", "`PRank().fit(X, y)` with a NaN in y", ValueError,
         r"^PRank: y has NaN at row 5 \(1 NaN or infinite entries\): every example needs a label",
         lambda tmp: PRank().fit(X, with_value(Y.astype(float), 5, np.nan))),
    Case("continuous-labels", "`WidrowHoff().fit(X, y + 0.5)`", ValueError,
         r"^y must hold discrete ordered labels, got target type 'continuous'",
         lambda tmp: WidrowHoff().fit(X, Y + 0.5)),
    Case("one-label", "`PRank().fit(X, ones)`", ValueError,
         r"^need at least 2 ranks \(1 class given\): classes=\[1\]",
         lambda tmp: PRank().fit(X, np.ones(len(X), dtype=int))),
    Case("empty-X", "`PRank().fit(X[:0], y[:0])`", ValueError,
         r"Found array with 0 sample\(s\) \(shape=\(0, 3\)\) while a minimum of 1 is required",
         lambda tmp: PRank().fit(X[:0], Y[:0])),
    Case("1d-X", "`PRank().fit(x, y)` with x of shape (600,)", ValueError,
         r"^PRank: X must be 2-D \(n_samples, n_features\), got shape \(600,\)\. "
         r"Reshape your data: X\.reshape\(-1, 1\)",
         lambda tmp: PRank().fit(X[:, 0], Y)),
    Case("1d-X-predict", "`model.predict(x)` with x of shape (3,)", ValueError,
         r"^MulticlassPerceptron: X must be 2-D \(n_samples, n_features\), got shape \(3,\)",
         lambda tmp: MulticlassPerceptron().fit(X, Y).predict(X[0])),
    Case("lengths-differ", "`PRank().fit(X[:10], y[:9])`", ValueError,
         r"Found input variables with inconsistent numbers of samples: \[10, 9\]",
         lambda tmp: PRank().fit(X[:10], Y[:9])),
    Case("ranks-outside-1..k", "the online protocol given rank 0 with k = 3", ValueError,
         r"^y has rank 0 outside 1\.\.3",
         lambda tmp: run_sequences(PRank(), np.stack([X, X]), np.stack([Y, Y - 1]), 3)),
    Case("svor-solver-limit", "`SVOR(solver='CLARABEL', max_iter=1).fit(X, y)` (the solver stops "
         "early)", FitFailed,
         r"^SVOR\(constraints='implicit', C=1\.0, kernel='rbf', gamma=1\.0\) with CLARABEL did not reach "
         r"an optimum: status=user_limit",
         lambda tmp: svor_once(X[:80], Y[:80])),
    # --- run settings, through the compose API and ordrank.app.run (checked before any work) ------
    Case("wh-diverges-run", "`algorithms.WH.eta=100` in a run of the synthetic protocol", Diverged,
         r"^WidrowHoff\(eta=100\) diverged: its error \|y − w·x\| grew to",
         app_run("algorithms.WH.eta=100", checked_first=False)),
    Case("negative-eta", "`algorithms.WH.eta=-1`", InvalidParameterError,
         r"^algorithms\.WH: The 'eta' parameter of WidrowHoff must be a float in the range \(0\.0, inf\)\. "
         r"Got -1 instead", app_run("algorithms.WH.eta=-1")),
    Case("unknown-learner-parameter", "`algorithms.WH.step=1`", TypeError,
         r"^algorithms\.WH\.step: WidrowHoff has no parameter 'step'; its parameters: average, eta, n_epochs, "
         r"normalized, random_state, shuffle", app_run("algorithms.WH.step=1")),
    Case("zero-sequences", "`protocol.n_sequences=0`", ValueError,
         r"^protocol\.n_sequences must be a positive integer, got 0", app_run("protocol.n_sequences=0")),
    Case("text-rounds", "`protocol.n_rounds=many`", ValueError,
         r"^protocol\.n_rounds must be a positive integer, got 'many'", app_run("protocol.n_rounds=many")),
    Case("seed-too-large", "`seed=99999999999999999999999`", ValueError,
         r"^seed must be an integer in 0\.\.4294967295 \(numpy's seed range\), got 99999999999999999999999",
         app_run("seed=99999999999999999999999")),
    Case("seed-negative", "`seed=-1`", ValueError, r"^seed must be an integer in 0\.\.4294967295",
         app_run("seed=-1")),
    Case("table-suffix", "`table_name=results.xlsx`", ValueError,
         r"^table_name must be a file name ending in \.parquet or \.csv \(no folder\), got 'results\.xlsx'",
         app_run("table_name=results.xlsx")),
    Case("table-in-folder", "`table_name=tables/results.csv`", ValueError,
         r"^table_name must be a file name .* got 'tables/results\.csv'",
         app_run("table_name=tables/results.csv")),
    Case("publish-not-bool", "`publish=yes please`", ValueError,
         r"^publish must be true or false, got 'yes please'", app_run("publish=yes please")),
    Case("results-dir-unwritable", "`publish=true results_dir=<a file>/results`", ValueError,
         r"^results_dir=<tmp>/file/results cannot be used: <tmp>/file is a file, not a folder",
         lambda tmp: (tmp / "file").touch() or app_run("publish=true", f"results_dir={tmp}/file/results")(tmp)),
    # --- data files: MovieLens-100K u.data written to <tmp>/movielens-100k/u.data ------------------
    Case("movielens-field-count", "a u.data line with 3 fields", ValueError,
         r"^<tmp>/movielens-100k/u\.data, line 3: expected 4 fields separated by '\\t', found 3: '7\\t1\\t4'",
         u_data("7\t1\t4")),
    Case("movielens-text-id", "a u.data line with a user id `x7`", ValueError,
         r"^<tmp>/movielens-100k/u\.data, line 3: user and item ids must be integers >= 1 \(user id 'x7'\)",
         u_data("x7\t1\t4\t881250949")),
    Case("movielens-negative-user", "a u.data line with user id `-3`", ValueError,
         r"line 3: user and item ids must be integers >= 1 \(user id '-3'\): '-3\\t7\\t1\\t891717742'",
         u_data("-3\t7\t1\t891717742")),
    Case("movielens-zero-item", "a u.data line with item id `0`", ValueError,
         r"line 3: user and item ids must be integers >= 1 \(item id '0'\)", u_data("5\t0\t1\t891717742")),
    Case("movielens-rating-range", "a u.data line with rating `6`", ValueError,
         r"line 3: rating must be one of \[1\.0, 2\.0, 3\.0, 4\.0, 5\.0\], got '6'", u_data("5\t2\t6\t881250949")),
    Case("movielens-text-timestamp", "a u.data line with timestamp `yesterday`", ValueError,
         r"line 3: timestamp must be an integer >= 0 \(seconds since 1970\), got 'yesterday'",
         u_data("5\t2\t4\tyesterday")),
    Case("movielens-duplicate", "a u.data line rating a (user, item) pair again", ValueError,
         r"line 3: duplicate rating of user 12 for item 7 \(first given on line 1\)", u_data("12\t7\t2\t881250950")),
    Case("movielens-1m-negative-item", "a ratings.dat (MovieLens-1M) line with item id `-1193`", ValueError,
         r"^<tmp>/ml-1m/ratings\.dat, line 2: user and item ids must be integers >= 1 \(item id '-1193'\)",
         lambda tmp: write(tmp / "ml-1m" / "ratings.dat", "1::1193::5::978300760\n1::-1193::3::978302109\n")
         and load_movielens(tmp, "1m")),
    Case("movielens-missing-data-dir", "`dataset=movielens_100k data_dir=<tmp>/nowhere`", FileNotFoundError,
         r"^MovieLens-100K u\.data not found: expected it at <tmp>/nowhere/movielens-100k/u\.data or .*"
         r"python -m ordrank\.data fetch movielens-100k --data-dir <tmp>/nowhere",
         lambda tmp: app_run("dataset=movielens_100k", f"data_dir={tmp}/nowhere")(tmp)),
    Case("orca-missing-data-dir", "`+experiment=svor_benchmark dataset.name=housing data_dir=<tmp>/nowhere`",
         FileNotFoundError,
         r"^ORCA archive of housing \(10 bins\) not found: expected it at "
         r"<tmp>/nowhere/orca-discretized-regression/10bins/housing10\.tar\.xz\..*"
         r"python -m ordrank\.data fetch orca",
         lambda tmp: app_run("dataset.name=housing", "protocol.splits=1", "only=SVORIM",
                             f"data_dir={tmp}/nowhere", base=["+experiment=svor_benchmark"])(tmp)),
    # --- names that do not exist ---------------------------------------------------------------------
    Case("unknown-dataset", "`dataset=movielens_2m`", MissingConfigException,
         r"^In 'config': Could not find 'dataset/movielens_2m' Available options in 'dataset': .*movielens_100k",
         lambda tmp: make_cfg([*TINY, "dataset=movielens_2m"])),
    Case("unknown-protocol", "`protocol=online`", MissingConfigException,
         r"Could not find 'protocol/online' Available options in 'protocol': .*online_sequences",
         lambda tmp: make_cfg([*TINY, "protocol=online"])),
    Case("unknown-algorithm", "`+algorithm@algorithms.X=prank2`", MissingConfigException,
         r"Could not find 'algorithm/prank2' Available options in 'algorithm': .*prank",
         lambda tmp: make_cfg([*TINY, "+algorithm@algorithms.X=prank2"])),
    Case("unknown-benchmark", "`+experiment=svor_benchmark dataset.name=housing2`", ValueError,
         r"^dataset\.name must be one of \[.*'housing'.*\] for dataset\.source='orca', got 'housing2'",
         app_run("dataset.name=housing2", base=["+experiment=svor_benchmark", "+quick=svor_benchmark", "only=PRank"])),
    Case("only-unknown", "`only=SVM`", ValueError,
         r"^only=\['SVM'\] names no configured algorithm; choose from \['PRank', 'WH'\]",
         app_run("only=SVM")),
    # --- run.py in a subprocess: one line on stderr, exit status 2 ----------------------------------
    Case("cli-unknown-key", "`python run.py +experiment=prank_synthetic n_rounds=500`", ExitStatus,
         r"^exit 2: error: Could not override 'n_rounds'; To append to your config use \+n_rounds=500 "
         r"\(Key 'n_rounds' is not in struct\)$", run_py("n_rounds=500")),
    Case("cli-unknown-experiment", "`python run.py +experiment=prank`", ExitStatus,
         r"^exit 2: error: experiment=prank: no such option of config group 'experiment' "
         r"\(conf/experiment/\); choose from .*prank_synthetic", run_py(experiment="prank")),
    Case("cli-bad-seed", "`python run.py +experiment=prank_synthetic seed=1e3`", ExitStatus,
         r"^exit 2: error: seed must be an integer in 0\.\.4294967295 \(numpy's seed range\), got 1000\.0$",
         run_py("seed=1e3")),
    Case("cli-diverging-wh", "`python run.py +experiment=prank_synthetic algorithms.WH.eta=100 only=[PRank,WH]`",
         ExitStatus,
         r"^exit 2: error: WidrowHoff\(eta=100\) diverged: .* \(kept: \d+ rows of \d+ finished pieces in "
         r"results\.partial\.parquet; see <tmp>/run/ERROR\)$", run_py("algorithms.WH.eta=100", "only=[PRank,WH]")),
]

# cases of other topics, one module each (tests/bad_inputs_<topic>.py, a list CASES)
# the topic modules import this one's triggers: run as a script, this module is __main__, so name it
sys.modules.setdefault("test_bad_inputs", sys.modules[__name__])
for _module in sorted(Path(__file__).parent.glob("bad_inputs_*.py")):
    CASES += import_module(_module.stem).CASES


def render(message: str, tmp_path: Path) -> str:
    """The message on one line, temporary paths as ``<tmp>``, the repository's as ``<repo>``."""
    message = " ".join(str(message).split())
    return message.replace(str(tmp_path), "<tmp>").replace(str(REPO), "<repo>")


def doc_text(message: str) -> str:
    """The rendered message as the page shows it: lists of config names (which grow as configs are
    added) as ``<conf/GROUP/*.yaml names>``, and without Hydra's config search path."""
    message = re.sub(r" Config search path: .*$", "", message)
    # scikit-learn prints a set of allowed strings in hash order, which varies between processes
    message = re.sub(r"\{('[^{}']*'(?:, '[^{}']*')+)\}",
                     lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)
    message = re.sub(r"(Available options in '([\w/]+)':) [\w .-]+", r"\1 <conf/\2/*.yaml names>", message)
    return re.sub(r"(\(conf/([\w/]+)/\); choose from) [\w, .-]+", r"\1 <conf/\2/*.yaml names>", message)


def doc_row(case: Case, message: str) -> str:
    cell = f"`{case.error.__name__}`: {doc_text(message)}".replace("|", "\\|")
    return f"| {case.id} | {case.what} | {cell} |"


def trigger(case: Case, tmp_path: Path) -> str:
    """Run the case; return its rendered message (raise AssertionError if it did not fail as listed)."""
    with pytest.raises(case.error) as info:
        case.trigger(tmp_path)
    message = render(str(info.value), tmp_path)
    assert re.search(case.pattern, message), f"{message!r} does not match {case.pattern!r}"
    return message


def doc_rows() -> dict[str, str]:
    rows = {}
    for line in DOC.read_text().splitlines() if DOC.is_file() else []:
        if line.startswith("| ") and not line.startswith("| id ") and not line.startswith("|---"):
            rows[line.split(" | ", 1)[0][2:]] = line
    return rows


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input(case, tmp_path):
    message = trigger(case, tmp_path)
    assert doc_rows().get(case.id) == doc_row(case, message), \
        "docs/bad_inputs.md is out of date: run `python tests/test_bad_inputs.py`"


def test_doc_lists_exactly_the_table():
    assert list(doc_rows()) == [case.id for case in CASES]
    assert len(CASES) == len({case.id for case in CASES})


def test_debug_shows_the_traceback(tmp_path):
    env = {**os.environ, "ORDRANK_DEBUG": "1"}
    done = subprocess.run([sys.executable, "run.py", "+experiment=prank_synthetic", "seed=-1",
                           f"hydra.run.dir={tmp_path}"], cwd=REPO, capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr and "in check_settings" in done.stderr
    assert done.stderr.rstrip().endswith("ValueError: seed must be an integer in 0..4294967295 "
                                         "(numpy's seed range), got -1")


def test_help_describes_experiments_groups_sweeps_and_launchers():
    done = subprocess.run([sys.executable, "run.py", "--help"], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=True)
    text = done.stdout
    for path in sorted((REPO / "conf" / "experiment").glob("*.yaml")):  # every experiment, described
        line = next(line for line in text.splitlines() if line.startswith(f"  {path.stem} "))
        assert len(line.split(maxsplit=1)[1]) > 20, line
    for group in ("algorithm", "dataset", "experiment", "features", "protocol"):
        assert re.search(rf"^  {group}: +\w", text, re.M), group
    for launcher in sorted((REPO / "conf" / "hydra" / "launcher").glob("*.yaml")):
        assert f"  {launcher.stem} " in text, launcher.stem
    for needle in ("+experiment=NAME", "python run.py -m", "hydra/launcher=NAME", "resume=true",
                   "error: <message>", "ORDRANK_DEBUG=1", "+algorithm@algorithms.NAME=OPTION"):
        assert needle in text, needle
    assert max(map(len, text.splitlines())) <= 125


def test_help_piped_into_a_reader_that_stops_early_is_not_an_error():
    """`python run.py --help | head` closes the pipe early: no 'error: [Errno 32] Broken pipe'."""
    head = subprocess.run(f"{sys.executable} run.py --help | head -1", shell=True, cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert head.stdout.startswith("ordrank:") and head.stderr == ""


def test_results_dir_without_write_permission(tmp_path, monkeypatch):
    """The branch a non-root user meets (root may write anywhere, so os.access is stubbed)."""
    monkeypatch.setattr(ordrank.settings.os, "access", lambda path, mode: False)
    with pytest.raises(ValueError, match=r"^results_dir=\S+/new cannot be created \(\S+ is not writable\)"):
        ordrank.settings.check_writable_dir("results_dir", str(tmp_path / "new"))
    with pytest.raises(ValueError, match=r"^results_dir=\S+ is not writable$"):
        ordrank.settings.check_writable_dir("results_dir", str(tmp_path))


def test_movielens_windows_line_ends_still_load(tmp_path):
    """CRLF files load as before: the timestamp field (now checked) does not keep the \\r."""
    write(tmp_path / "ml-1m" / "ratings.dat", "1::1193::5::978300760\r\n2::661::3::978302109\r\n")
    assert load_movielens(tmp_path, "1m").n_ratings == 2


# --- properties beside the table -----
LEARNERS = [PRank, MulticlassPerceptron, WidrowHoff, RoundedRegression]


@pytest.mark.parametrize("learner", LEARNERS, ids=lambda c: c.__name__)
@given(st.permutations(["c", "a", "b"]))
def test_an_ordered_categorical_gives_the_rank_order(learner, names):
    """Labels named in any order rank as their categories say: the same model and predictions as
    the numeric ranks, mapped through the names (never their alphabetical order)."""
    names = np.array(names)
    labels = pd.Series(pd.Categorical(names[Y[:100] - 1], categories=names, ordered=True))
    named, numeric = learner().fit(X[:100], labels), learner().fit(X[:100], Y[:100])
    assert named.classes_.tolist() == names.tolist()
    np.testing.assert_array_equal(named.predict(X[:100]), names[numeric.predict(X[:100]) - 1])
    assert named.score(X[:100], labels) == numeric.score(X[:100], Y[:100])


def test_partial_fit_classes_give_the_order_and_numbers_rank_by_value():
    model = PRank().partial_fit(X, NAMES[Y - 1], classes=NAMES)
    assert model.classes_.tolist() == ["low", "mid", "high"]
    assert PRank().partial_fit(X, Y, classes=[3, 1, 2]).classes_.tolist() == [1, 2, 3]


def test_sklearn_label_check_refuses_unordered_strings_the_same_way():
    """check_classifiers_classes fits unordered 'one'/'two'/'three': it fails with the same message as
    any other unordered strings (so the estimator-check tests declare it as an expected failure),
    while the same labels with a declared order fit."""
    from sklearn.utils.estimator_checks import check_classifiers_classes

    with pytest.raises(ValueError, match="rank order is unknown"):
        check_classifiers_classes("MulticlassPerceptron", MulticlassPerceptron())
    words = np.array(["one", "two", "three"])[Y - 1]
    with pytest.raises(ValueError, match="rank order is unknown"):
        MulticlassPerceptron().fit(X, words)
    ordered = pd.Categorical(words, categories=["one", "two", "three"], ordered=True)
    assert MulticlassPerceptron().fit(X, ordered).classes_.tolist() == ["one", "two", "three"]


@given(st.floats(-1e300, 1e300, allow_nan=False), st.integers(2, 7))
def test_widrow_hoff_predicts_a_rank_for_any_finite_score(weight, k):
    """Whatever finite weight (so w·x up to ±∞ after overflow), the prediction is a rank in 1..k."""
    model = WidrowHoff().partial_fit([[0.0, 0.0]], [1], classes=np.arange(1, k + 1))
    model.coef_[:] = weight
    ranks = model.predict_ranks([[1e300, 1e300], [1.0, 2.0], [-1e300, -1e300], [0.0, 0.0]])
    assert ((ranks >= 1) & (ranks <= k)).all()


def test_widrow_hoff_refuses_a_nan_score_rather_than_casting_it():
    model = WidrowHoff().partial_fit([[0.0, 0.0]], [1], classes=[1, 2, 3])
    model.coef_[:] = [1e300, -1e300]
    with pytest.raises(ValueError, match=r"w·x is NaN \(it overflowed\) for row\(s\) \[0\]"):
        model.predict([[1e300, 1e300]])


def test_divergence_is_raised_on_the_round_it_happens():
    """partial_fit row by row: the round whose error has grown past the bound raises (w still
    finite, long before it overflows); the earlier rows do not."""
    model = WidrowHoff(eta=100)
    rows = 0
    with pytest.raises(Diverged):
        for i in range(len(X)):
            model.partial_fit(X[i : i + 1], Y[i : i + 1], classes=[1, 2, 3] if i == 0 else None)
            rows += 1
    assert 0 < rows < len(X) and np.isfinite(model.coef_).all() and np.abs(model.coef_).max() > 1e4


def write_doc() -> str:
    """The markdown page: each case's input and the message it gets (measured by running it)."""
    import tempfile

    lines = [
        "# Bad inputs and their messages",
        "",
        "What ordrank refuses, and what it says. Each row is a case of `tests/test_bad_inputs.py`, run",
        "for real; the message is the one measured (`<tmp>` is a temporary folder; lists of config names,",
        "which grow as configs are added, are written `<conf/GROUP/*.yaml names>`). A test fails when",
        "this page and the table disagree; `python tests/test_bad_inputs.py` rewrites it.",
        "",
        "From the command line, `python run.py ...` prints such a message as one line, `error: <message>`",
        "on stderr, and exits with status 2 (rows `cli-*`); `ORDRANK_DEBUG=1` shows the traceback instead.",
        "From Python, the exception of the second column is raised.",
        "",
        "| id | input | error |",
        "|---|---|---|",
    ]
    for case in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            lines.append(doc_row(case, trigger(case, Path(tmp))))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    DOC.write_text(write_doc())
    print(f"wrote {DOC.relative_to(REPO)} ({len(CASES)} cases)", file=sys.stderr)
