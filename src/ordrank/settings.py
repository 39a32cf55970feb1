"""The run's top-level settings: a key added with ``+`` that nothing reads is a misspelling."""
from __future__ import annotations

import difflib
import json
import re

from omegaconf import DictConfig, OmegaConf

# the top-level keys the job reads; any other must be read by an interpolation (e.g. `grid` in
# svor_benchmark: ${grid.C}), else it is a misspelling added with `+`, which nothing would read
READ_KEYS = ("experiment", "seed", "data_dir", "algorithms", "only", "table_name", "publish",
             "results_dir", "resume", "peers", "dataset", "protocol", "features",
             "report",  # read by the reports (ordrank.reports.spec), not by the run
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
