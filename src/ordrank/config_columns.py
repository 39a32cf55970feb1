"""What of a run's configuration becomes its table's ``config.*`` columns and its config hash, and
which keys a learner's config may hold.

The columns are every value the configuration sets (the options' YAML files, the experiment, the
command line), resolved, except where files are (so tables made on different machines compare equal),
``experiment`` (a column of its own), ``report`` (how a report shows the table, not a row),
``external`` (whether an external learner's rows are fitted or taken from the external cache: the same rows either way)
and ``quick`` (the experiment a ``conf/quick/`` overlay shrinks; ``experiment`` names the run).

A ``conf/algorithm/*.yaml`` lists only what differs from its estimator's defaults: its ``_target_``
and the non-default settings. A parameter left at its default is set nowhere, so it is neither a
column nor part of a job's config hash; the learner gets the default from its own signature. Any
parameter of the estimator (nested ones too) is still set by a plain override, without ``+``
(``algorithms.SVORIM.diagonal_jitter=0.001``): conf/config.yaml merges ``ordrank_open_algorithms``
(registered by ``hydra_plugins.ordrank_configs``), which keeps ``algorithms`` open to new keys when
Hydra closes the rest of the config, and :func:`check_algorithms` refuses, before any work, a key
that is no parameter of its estimator (naming the key and listing the valid ones). A value that is
set, even to the default, is a column.
"""
from __future__ import annotations

import difflib
import importlib
import inspect
from collections.abc import Mapping

from omegaconf import DictConfig, OmegaConf

# The settings that are no config column and no part of a job's config hash: where files are, how a
# run is launched and shown; none of them changes a row.
NOT_CONFIG_COLUMNS = {"hydra", "experiment", "data_dir", "path_or_data_dir", "table_name", "publish",
                      "results_dir", "only", "resume", "report",
                      "external",  # where external learners' rows come from (results.external_cache), not what
                      "quick"}  # which experiment a conf/quick/ overlay shrinks: ``experiment`` names the run


def without(config, keys):
    """``config`` with every entry named in ``keys`` removed, at any depth."""
    if not isinstance(config, dict):
        return config
    return {k: without(v, keys) for k, v in config.items() if k not in keys}


def run_config(cfg: DictConfig) -> dict:
    """The resolved configuration that decides a run's rows: its config columns and config hash."""
    return without(OmegaConf.to_container(cfg, resolve=True), NOT_CONFIG_COLUMNS)


# --- the keys of a learner's config ------------------------------------------------------------------

def locate(target: str):
    """The class or function a ``_target_`` names (``None`` when it cannot be imported: instantiating
    it then says why)."""
    module, _, name = str(target).rpartition(".")
    try:
        found = importlib.import_module(module)
        for part in name.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError, ValueError):
        return None
    return found


def estimator_parameters(target: str) -> dict[str, inspect.Parameter] | None:
    """The keyword parameters of ``target`` by name, with their defaults; ``None`` when they cannot
    be known (the target is not importable, has no signature, or takes ``**kwargs``)."""
    found = locate(target)
    if found is None:
        return None
    try:
        parameters = inspect.signature(found).parameters
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        return None
    return {n: p for n, p in parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def same_value(a, b) -> bool:
    """``a == b`` and of the same type: 1.0 is not the int 1 (a learner's parameters, and the external learner
    cache's keys made of them, tell them apart)."""
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - arrays and the like: not the same
        return False


def is_default(target: str, name: str, value) -> bool:
    """True when ``value`` is the default of the parameter ``name`` of ``target``'s signature."""
    parameters = estimator_parameters(target)
    if parameters is None or name not in parameters:
        return False
    default = parameters[name].default
    return default is not parameters[name].empty and same_value(value, default)


def is_spec(value) -> bool:
    """True for a learner's (or a nested estimator's) config: a mapping with a ``_target_``."""
    return isinstance(value, Mapping) and "_target_" in value


def check_spec(spec: Mapping, where: str) -> None:
    """Raise a TypeError naming the first key of ``spec`` (and of its nested ``_target_`` specs)
    that is no parameter of its target, with the closest parameter and the list of them."""
    parameters = estimator_parameters(spec["_target_"])
    for key, value in spec.items():
        if str(key).startswith("_"):  # Hydra's own: _target_, _partial_, _convert_, _recursive_, _args_
            continue
        if parameters is not None and key not in parameters:
            close = difflib.get_close_matches(str(key), list(parameters), n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            name = str(spec["_target_"]).rpartition(".")[2]
            raise TypeError(f"{where}.{key}: {name} has no parameter {key!r}{hint}; its parameters: "
                            f"{', '.join(sorted(parameters)) or 'none'}")
        if is_spec(value):
            check_spec(value, f"{where}.{key}")


def check_algorithms(cfg: DictConfig, names=None) -> None:
    """Check ``cfg.algorithms`` before anything is built: every entry is a learner's config (it has a
    ``_target_``; a misspelt name in ``algorithms.NAME.KEY=VALUE`` adds an entry without one), and
    every key of those named in ``names`` (default: all) is a parameter of its estimator."""
    algorithms = cfg.get("algorithms") or {}
    specs = OmegaConf.to_container(algorithms, resolve=False) if OmegaConf.is_config(algorithms) \
        else dict(algorithms)
    learners = [name for name, spec in specs.items() if is_spec(spec)]
    for name, spec in specs.items():
        if not is_spec(spec):
            keys = ", ".join(f"algorithms.{name}.{k}" for k in spec) if isinstance(spec, Mapping) else ""
            raise ValueError(f"algorithms.{name} is no configured algorithm{f' (set by {keys})' if keys else ''}"
                             f"; the configured ones are {', '.join(learners) or 'none'} (add one with "
                             f"+algorithm@algorithms.{name}=OPTION)")
    for name in learners if names is None else names:
        check_spec(specs[name], f"algorithms.{name}")
