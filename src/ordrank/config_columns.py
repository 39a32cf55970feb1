"""What of a run's configuration becomes its table's ``config.*`` columns and its fingerprint.

Left out: where files are (so tables made on different machines compare equal), ``experiment`` (a
column of its own), ``report`` (how a report shows the table, not a row), ``peers`` (whether a
peer's rows are fitted or taken from the peer cache: the same rows either way), and every estimator
parameter a ``conf/algorithm/*.yaml`` lists at its default as ``${estimator_default:VALUE}``. That
resolver returns VALUE unchanged, so the learner gets it; the YAML lists the parameter so that a
plain override (``algorithms.SVORIM.diagonal_jitter=0.001``) works without ``+``, and leaving it out
while it is the default keeps the tables (and the fingerprints of finished jobs, ``resume=true``)
made before it was listed. An override replaces the interpolation, so a set value is a column.
"""
from __future__ import annotations

from omegaconf import DictConfig, OmegaConf

LOCATION_KEYS = {"hydra", "experiment", "data_dir", "path_or_data_dir", "table_name", "publish",
                 "results_dir", "only", "resume", "report",
                 "peers"}  # where a peer's rows come from (ordrank.results.peer_cache), not what they are
DEFAULT = "${estimator_default:"

if not OmegaConf.has_resolver("estimator_default"):
    OmegaConf.register_new_resolver("estimator_default", lambda value: value)


def without(config, keys):
    """``config`` with every entry named in ``keys`` removed, at any depth."""
    if not isinstance(config, dict):
        return config
    return {k: without(v, keys) for k, v in config.items() if k not in keys}


def _listed_defaults_dropped(resolved, raw):
    """``resolved`` without the entries whose unresolved value is ``${estimator_default:...}``."""
    if not isinstance(resolved, dict):
        return resolved
    return {k: _listed_defaults_dropped(v, raw.get(k) if isinstance(raw, dict) else None)
            for k, v in resolved.items()
            if not (isinstance(raw, dict) and str(raw.get(k, "")).startswith(DEFAULT))}


def run_config(cfg: DictConfig) -> dict:
    """The resolved configuration that decides a run's rows: its config columns and fingerprint."""
    resolved = OmegaConf.to_container(cfg, resolve=True)
    return without(_listed_defaults_dropped(resolved, OmegaConf.to_container(cfg, resolve=False)),
                   LOCATION_KEYS)
