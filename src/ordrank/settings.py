"""The run's own top-level settings, checked before any work: a key added with ``+`` that nothing
reads is a misspelling; seed, table_name, publish, resume and results_dir must be valid."""
from __future__ import annotations

import difflib
import json
import os
import re
import tempfile
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

# the top-level keys the job reads; any other must be read by an interpolation (e.g. `grid` in
# svor_benchmark: ${grid.C}), else it is a misspelling added with `+`, which nothing would read
READ_KEYS = ("experiment", "seed", "data_dir", "algorithms", "only", "table_name", "publish",
             "results_dir", "resume", "external", "dataset", "protocol", "features",
             "report",  # read by the reports (ordrank.reports.spec), not by the run
             "quick",   # the experiment a conf/quick/ overlay shrinks (check_settings)
             "hydra")


def check_unread_keys(cfg: DictConfig) -> None:
    """Raise a ValueError naming a top-level key nothing reads (neither the job nor an interpolation
    of the config), with the closest key that is read."""
    raw = json.dumps(OmegaConf.to_container(cfg, resolve=False), default=str)
    referenced = set(re.findall(r"\$\{\s*([A-Za-z_][\w-]*)", raw))
    for key in cfg:
        if key not in READ_KEYS and key not in referenced:
            close = difflib.get_close_matches(str(key), READ_KEYS, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(f"{key!r} is not a setting: nothing reads it ({hint}the settings are "
                             f"{', '.join(READ_KEYS[:-1])}; `python run.py --help` lists them)")


SEED_MAX = 2**32 - 1  # numpy's legacy seed range (RandomState, scikit-learn's random_state)
TABLE_SUFFIXES = (".parquet", ".csv")


def check_settings(cfg: DictConfig) -> None:
    """Check the run's own settings (seed, table_name, publish, results_dir, resume, quick) before any work.

    Each error is one ValueError naming the key, the value and what is allowed. With
    ``publish=true``, ``results_dir`` must be a directory this process can create or write in
    (checked by writing and removing a probe file in it or its nearest existing parent: ``os.access``
    says yes to root even where nothing can be written, e.g. under /proc).
    """
    check_unread_keys(cfg)
    quick = cfg.get("quick")
    if quick is not None and cfg.get("experiment") != f"{quick}_quick":
        raise ValueError(f"quick={quick}: the overlay conf/quick/{quick}.yaml shrinks experiment {quick} and "
                         f"comes after it (+experiment={quick} +quick={quick}); the composed experiment is "
                         f"{cfg.get('experiment')!r}")
    seed = cfg.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= SEED_MAX:
        raise ValueError(f"seed must be an integer in 0..{SEED_MAX} (numpy's seed range), got {seed!r}")
    table_name = cfg.get("table_name")
    if (not isinstance(table_name, str) or Path(table_name).name != table_name
            or Path(table_name).suffix not in TABLE_SUFFIXES or not Path(table_name).stem):
        raise ValueError(f"table_name must be a file name ending in {' or '.join(TABLE_SUFFIXES)} "
                         f"(no folder), got {table_name!r}")
    for key in ("publish", "resume"):
        if not isinstance(cfg.get(key, False), bool):
            raise ValueError(f"{key} must be true or false, got {cfg.get(key)!r}")
    if cfg.get("publish"):
        check_writable_dir("results_dir", cfg.get("results_dir"))


def check_writable_dir(key: str, value) -> None:
    """Raise a ValueError naming ``key`` unless ``value`` is a folder that exists and is writable, or
    could be created (its nearest existing parent is a writable folder)."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"{key} must be a folder path, got {value!r}")
    path = Path(value).absolute()
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise ValueError(f"{key}={value} cannot be used: {existing} is a file, not a folder")
    where = "is not writable" if existing == path else f"cannot be created ({existing} is not writable)"
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"{key}={value} {where}")
    try:  # what os.access cannot tell (root, read-only file systems): write a probe file
        with tempfile.TemporaryFile(dir=existing, prefix=".probe-"):
            pass
    except OSError as error:
        raise ValueError(f"{key}={value} {where}: a probe file could not be written there "
                         f"({error.strerror or error})") from None
