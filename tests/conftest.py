"""Shared fixtures: where the real data lives, and a fast Hypothesis profile."""
import os
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]

settings.register_profile("ordrank", max_examples=60, deadline=None)
settings.load_profile("ordrank")


@pytest.fixture(scope="session")
def shared_data_dir() -> Path:
    """The real data directory: $ORDRANK_DATA, else ../shared/data beside the repository.

    Missing data skips the test on a workstation but fails it under CI, where ../shared is promised.
    """
    path = Path(os.environ.get("ORDRANK_DATA", REPO.parent / "shared" / "data"))
    if not path.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"real data directory {path} not found (set ORDRANK_DATA)")
        pytest.skip(f"real data directory {path} not found (set ORDRANK_DATA)")
    return path
