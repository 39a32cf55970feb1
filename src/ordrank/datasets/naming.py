"""A data set runs under its own name: ``dataset.name`` and ``dataset.path`` checked before any work.

An experiment names its data set (svor_benchmark: ``dataset.name: pyrim``; its sweep sets each job's
name). A user's folder chosen on top of it (``dataset=partitions``, ``dataset=letor``) must not
inherit that name, and a path given to a named set (``dataset=orca``, ``chu``, ``letor_ohsumed``)
must not silently stand in for its files: both are refused with the setting to use. The named sets
are those of ``conf/dataset/*.yaml`` with a literal ``name`` and the ORCA and Chu benchmarks.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml
from omegaconf import DictConfig, OmegaConf

from ordrank.datasets.partitions import NAMES

CONF = Path(__file__).resolve().parents[3] / "conf" / "dataset"
# the loaders of a user's folder (dataset.path), by the config that chooses them
FOLDER_LOADERS = {"ordrank.datasets.partition_folder.PartitionFolder": "partitions",
                  "ordrank.datasets.letor.LetorData": "letor"}
HOW = "dataset.name=<its name> (the table's `dataset` column)"


def folder_name(path) -> str:
    """``${folder_name:${.path}}`` in a config: the last part of ``path`` (``letor`` when it is unset)."""
    return Path(str(path)).name if path else "letor"


if not OmegaConf.has_resolver("folder_name"):
    OmegaConf.register_new_resolver("folder_name", folder_name)


@lru_cache(maxsize=1)
def named_sets() -> dict[str, tuple[str, dict]]:
    """name -> (where it is defined, its config) of every named data set."""
    named = {name: ("the ORCA and Chu benchmarks (dataset=orca, dataset=chu)", {})
             for name in {*NAMES["orca"], *NAMES["chu"]}}
    for path in sorted(CONF.glob("*.yaml")):
        config = yaml.safe_load(path.read_text()) or {}
        name = config.get("name")
        if isinstance(name, str) and name.isidentifier():  # not ??? nor an interpolation
            named.setdefault(name, (f"conf/dataset/{path.name}", config))
    return named


def _same_folder(path, other, data_dir) -> bool:
    root = Path(str(data_dir or "."))
    return (root / str(path)).resolve() == (root / str(other)).resolve()


def dataset_spec(dataset: DictConfig) -> dict:
    """``dataset`` as the loader's arguments (``name`` dropped), after checking its ``path``: a named
    set given a path, or a user's folder under a named set's name with another path, is refused."""
    target, name, path = dataset.get("_target_"), dataset.get("name"), dataset.get("path")
    where, config = named_sets().get(str(name), ("", {}))
    if "path" in dataset and target not in FOLDER_LOADERS:
        raise ValueError(f"dataset.path={path}: the data set {name!r} is a named one ({target}), not a "
                         f"folder; for your own folder or archive of train/test partitions use dataset=partitions "
                         f"dataset.path={path} {HOW} (a LETOR folder: dataset=letor)")
    if target in FOLDER_LOADERS and config.get("_target_") == target and "path" in config \
            and not _same_folder(path, config["path"], dataset.get("data_dir")):
        raise ValueError(f"dataset.path={path}: {name} is a named data set ({where} reads {config['path']} "
                         f"under data_dir); for your own folder use dataset={FOLDER_LOADERS[target]} "
                         f"dataset.path={path} {HOW}")
    spec = OmegaConf.to_container(dataset, resolve=True)
    spec.pop("name", None)
    return spec


def check_name(dataset: DictConfig) -> None:
    """Refuse a user's folder (a folder loader) run under the name of another, named data set."""
    target, name = dataset.get("_target_"), dataset.get("name")
    if target not in FOLDER_LOADERS or str(name) not in named_sets():
        return
    where, config = named_sets()[str(name)]
    if config.get("_target_") == target:  # the named set itself, its own folder (checked by dataset_spec)
        return
    raise ValueError(f"dataset.name={name} is another data set's name ({where}), not that of your folder "
                     f"{dataset.get('path')}: set {HOW}")


def override_hint(message: str) -> str:
    """What to add to Hydra's error for ``dataset.path=...`` on a data set without that setting."""
    if "Could not override 'dataset.path'" not in message:
        return ""
    return ("; dataset.path is a setting of dataset=partitions (a folder or archive of train/test partitions) "
            f"and dataset=letor (a LETOR folder), not of a named data set: e.g. dataset=partitions "
            f"dataset.path=<folder> {HOW}")
