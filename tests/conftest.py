"""Shared fixtures: where the real data lives, and a fast Hypothesis profile."""
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest
from hydra import compose, initialize_config_dir
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]
# the data sets the data-dependent tests read (names of ordrank.datasets.fetch)
SHARED_DATA = ["movielens-100k", "orca", "chu", "letor3-ohsumed"]

# scikit-learn's check_classifiers_classes fits every classifier on unordered string labels ("one",
# "two", "three"); ordinal learners refuse labels whose order is not declared (numbers, an ordered
# Categorical or `classes`), since sorting them alphabetically would rank them silently. Numeric labels
# and declared orders are tested in test_ordered.py and test_bad_inputs.py.
UNORDERED_STRING_LABELS = {
    "check_classifiers_classes": "fits unordered string labels; an ordinal learner refuses labels "
    "without a declared rank order (numbers, an ordered Categorical or classes=...)",
}

settings.register_profile("ordrank", max_examples=60, deadline=None)
settings.load_profile("ordrank")


def make_cfg(overrides):
    """The project's Hydra config composed with ``overrides`` (no run, no output folder)."""
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        return compose("config", overrides=overrides)


def write(path: Path, text: str) -> Path:
    """``text`` into ``path``, creating its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def under_ci() -> bool:
    """True when the environment variable CI is set to a true value (GitHub Actions sets CI=true)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing_data(path: Path) -> list[str]:
    """The data sets of SHARED_DATA absent or incomplete under ``path``, each with how to get it."""
    from ordrank.datasets.fetch import missing

    return missing(SHARED_DATA, path)


@pytest.fixture(scope="session")
def shared_data_dir() -> Path:
    """The real data directory, by the rule of every entry point: $ORDRANK_DATA, else data/ in the
    repository (CI sets ORDRANK_DATA in .ci/run).

    Missing data (the directory, or any data set the tests read) skips the test on a workstation but
    fails it under CI (CI=true), where the data is promised: a test needing data never passes
    silently without it.
    """
    path = Path(os.environ.get("ORDRANK_DATA") or REPO / "data")
    if not path.is_dir():
        problem = (f"real data directory {path} not found (set ORDRANK_DATA, or put the sets in data/: "
                   "python -m ordrank.data fetch NAME, or offline python -m ordrank.data import NAME PATH)")
    else:
        missing = missing_data(path)
        problem = (f"data missing under {path}: {'; '.join(missing)} (offline: python -m ordrank.data "
                   "import NAME PATH)") if missing else None
    if problem:
        if under_ci():
            pytest.fail(f"CI: {problem}")
        pytest.skip(problem)
    return path


@dataclass(frozen=True)
class Case:
    """One bad input: ``trigger(tmp_path)`` must raise ``error`` with a message matching ``pattern``.

    The bad-input table is ``tests/test_bad_inputs.py``'s CASES plus the CASES of every
    ``tests/bad_inputs_<topic>.py``; ``python tests/test_bad_inputs.py`` writes docs/bad_inputs.md.
    """

    id: str
    what: str  # the input, as a user would write it (markdown)
    error: type
    pattern: str
    trigger: Callable[[Path], object]


@pytest.fixture(scope="session")
def quick_reproduction(shared_data_dir, tmp_path_factory):
    """The session's one `make reproduce-quick`, run the way a new user runs it: the data fetched
    from a local mirror into a fresh clone's data/, then `python experiments/reproduce.py --quick`
    there (tests/test_fresh_clone.py). Every test about the quick reproduction reads this run's
    outputs (``.out``, build/quick/ of the clone) instead of running it again."""
    from test_fresh_clone import reproduce_quick_in_a_fresh_clone

    return reproduce_quick_in_a_fresh_clone(shared_data_dir, tmp_path_factory.mktemp("fresh_clone"))


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    """With pytest-xdist (`make test` runs ``-n auto --dist loadgroup``), keep each expensive
    shared fixture computed once: the tests of one module-scoped fixture run on one worker (an
    ``xdist_group`` per module), and so do all the tests of the session's quick reproduction. The
    other tests are spread one by one. Without xdist the marks change nothing."""
    for item in items:
        defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        scopes = {name: fixture[-1].scope for name, fixture in defs.items() if fixture}
        if "quick_reproduction" in scopes:
            item.add_marker(pytest.mark.xdist_group("quick_reproduction"))
        elif any(scope in ("module", "class", "package") for scope in scopes.values()):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
