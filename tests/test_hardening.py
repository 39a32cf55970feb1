"""Issue 16 beside the bad-input table: what must keep working after the new checks."""
from __future__ import annotations

import warnings

import pytest

from ordrank.datasets.partitions import CHU_KEERTHI, BenchmarkData


def test_the_published_orca_archives_open_without_a_warning(shared_data_dir):
    """Each pinned archive is hashed once when opened (and matches); nothing is warned."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in CHU_KEERTHI:
            for bins in (5, 10):
                assert BenchmarkData(name, bins, "orca", shared_data_dir).n_splits == 20
