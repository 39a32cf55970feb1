"""The local engine's pool (ordrank.launch.local): a driver's next sweep reuses its workers; a cancelled
pool, or one started in another environment, is not reused; a sweep's external cache goes to the workers
as a file that goes with the sweep."""
import os
from pathlib import Path

import pandas as pd

from ordrank.launch.local import LocalEngine


def test_a_drivers_next_sweep_reuses_its_workers(monkeypatch):
    cache = pd.DataFrame({"cache_key": ["k"], "value": [1.0]})
    first = LocalEngine(1, cache)
    worker = first.pool.submit(os.getpid).result()
    assert worker != os.getpid()
    pd.testing.assert_frame_equal(pd.read_pickle(first.external_file), cache)
    first.close()
    assert not Path(first.external_file).exists()  # the sweep's cache file goes with the sweep
    second = LocalEngine(1)
    assert second.pool is first.pool and second.pool.submit(os.getpid).result() == worker
    second.cancel([])  # stopped: the workers are killed and the pool is not kept
    third = LocalEngine(1)
    assert third.pool is not second.pool
    monkeypatch.setenv("ORDRANK_POOL_CHECK", "1")  # the workers inherit the environment: a new pool
    fourth = LocalEngine(1)
    assert fourth.pool is not third.pool
    fourth.cancel([])
