"""One-time migration of config columns and job fingerprints: ``python experiments/migrate_config_columns.py PATH ...``

Until issue #59 (item 3) every conf/algorithm/*.yaml listed every parameter of its estimator: the
defaults as ``${estimator_default:VALUE}`` (no config column) and some defaults as plain values (config
columns, so part of each job's fingerprint, e.g. ``config.algorithms.SVORIM.C = 1.0``). Now a YAML lists
only what differs from the estimator's defaults (ordrank.config_columns): those plain defaults are set
nowhere, their columns go and the fingerprints that held them change, while every learner, and so every
result, stays the same (a parameter not set gets the very default its column held).

This moves what was made before, running nothing again (PATH: tables, job folders, folders of them):

- a results table (``results/<experiment>/*.parquet``, its timings table): its experiment is composed
  with today's configs; a ``config.*`` column the composition lacks must hold, in every row, the default
  of that parameter in the signature of its estimator (the ``_target_`` column beside it) and is dropped;
  the others take the composition's order; the rows and the other columns stay as they are. Except
  ``config.algorithms.{SVORIM,SVOREX}.solver``: those rows were made with ``IPM`` before SVOR's default
  solver became ``auto``, so the column stays, truthfully, until they are made again.
- a job folder (``.hydra/`` beside its tables: multirun/, outputs/): the config Hydra saved is read under
  the old rule; when FINISHED is that config's fingerprint, the job is composed again from its
  ``.hydra/overrides.yaml``; if the two configurations differ only by parameters at their defaults, its
  tables (finished, timings, partial) lose those columns and FINISHED gets the new fingerprint, so
  ``resume=true`` keeps the job. Any other difference (an experiment edited since) leaves the job as it
  is: resume runs it again, as after any edit.

``--dry-run`` says what would change. A second run changes nothing. tests/test_config_migration.py
checks it on the committed tables (recorded before) and on an old finished job.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from omegaconf import OmegaConf

from ordrank.config_columns import LOCATION_KEYS, is_default, is_spec, run_config, same_value, without
from ordrank.reports.spec import config_name
from ordrank.results import FINISHED, atomic_path, flatten_config, partial_path, timings_path

REPO = Path(__file__).resolve().parents[1]
LEGACY_MARKER = "${estimator_default:"
KEPT = ("config.algorithms.SVORIM.solver", "config.algorithms.SVOREX.solver")  # rows made with IPM

if not OmegaConf.has_resolver("estimator_default"):  # the marker in the configs Hydra saved before
    OmegaConf.register_new_resolver("estimator_default", lambda value: value)


def legacy_run_config(cfg) -> dict:
    """The config columns of a configuration composed before: ``run_config`` without the entries
    whose unresolved value is ``${estimator_default:...}``."""
    def kept(resolved, raw):
        if not isinstance(resolved, dict):
            return resolved
        return {k: kept(v, raw.get(k) if isinstance(raw, dict) else None) for k, v in resolved.items()
                if not (isinstance(raw, dict) and str(raw.get(k, "")).startswith(LEGACY_MARKER))}

    return without(kept(OmegaConf.to_container(cfg, resolve=True), OmegaConf.to_container(cfg, resolve=False)),
                   LOCATION_KEYS)


def dropped_defaults(old: dict, new: dict, where: str = "config") -> list[str]:
    """The dotted keys of ``old`` that ``new`` lacks. Raise ValueError unless ``new`` is ``old`` without
    them and each is a parameter, at its default, of the estimator its spec (``_target_``) names."""
    dropped = []
    for key, value in old.items():
        path = f"{where}.{key}"
        if key not in new:
            if not (is_spec(old) and is_default(old["_target_"], key, value)):
                raise ValueError(f"{path} = {value!r} is set no more, and is not the default of a parameter "
                                 f"of {old.get('_target_', 'an estimator')}")
            dropped.append(path)
        elif isinstance(value, dict) and isinstance(new[key], dict):
            dropped += dropped_defaults(value, new[key], path)
        elif not same_value(value, new[key]) and json.dumps(value) != json.dumps(new[key]):
            raise ValueError(f"{path} was {value!r}, is {new[key]!r}")
    added = [f"{where}.{key}" for key in new if key not in old]
    if added:
        raise ValueError(f"{', '.join(added)}: set now, not before")
    return dropped


def fingerprint(config: dict, only=None) -> str:
    """A job's key as ordrank.app.job_key makes it (without importing the learners)."""
    config = config if only is None else {**config, "only": only}
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()


def compose(overrides, conf: Path = REPO / "conf"):
    """Today's configuration for ``overrides`` (Hydra's compose API on the config folder ``conf``)."""
    from hydra import compose as hydra_compose, initialize_config_dir

    import ordrank.app  # noqa: F401 - registers its resolvers (${logspace:...})
    with initialize_config_dir(config_dir=str(Path(conf).resolve()), version_base="1.3"):
        return hydra_compose("config", overrides=list(overrides))


# --- tables --------------------------------------------------------------------------------------------

def default_column(table: pd.DataFrame, column: str) -> bool:
    """True when ``column`` (``config.algorithms.NAME[.nested].PARAM``) holds, in every row, the default
    of PARAM for the estimator its ``_target_`` column names."""
    spec, _, name = column.rpartition(".")
    if not column.startswith("config.algorithms.") or f"{spec}._target_" not in table:
        return False
    targets, values = table[f"{spec}._target_"].unique(), table[column].unique()
    value = values[0].item() if hasattr(values[0], "item") else values[0]
    return len(targets) == 1 and len(values) == 1 and is_default(
        str(targets[0]), name, None if value == "null" else value)  # flatten_config writes None as "null"


def migrated_columns(table: pd.DataFrame, expected: list[str], kept=KEPT) -> tuple[list[str], list[str]]:
    """``(columns, dropped)``: the table's columns in their new order, and the config columns it loses.

    ``expected``: today's config columns, in order. Raise ValueError when the table lacks one of them or
    holds another that is not a parameter at its default (and not in ``kept``)."""
    old = [c for c in table.columns if c.startswith("config.")]
    missing = [c for c in expected if c not in old]
    if missing:
        raise ValueError(f"the table lacks the config columns {missing}")
    extra = [c for c in old if c not in expected]
    dropped = [c for c in extra if c not in kept]
    wrong = [f"{c} = {table[c].iloc[0]!r}" for c in dropped if not default_column(table, c)]
    if wrong:
        raise ValueError(f"{', '.join(wrong)}: set no more, and not the default of its estimator")
    order = list(expected)
    for column in (c for c in extra if c in kept):  # right after the column it followed
        anchor = next((c for c in reversed(old[:old.index(column)]) if c in order), None)
        order.insert(order.index(anchor) + 1 if anchor else 0, column)
    return [c for c in table.columns if not c.startswith("config.")] + order, dropped


def read(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def write_like(table: pd.DataFrame, path: Path) -> None:
    """``table`` over ``path`` as that file was written: for parquet, its compression and its metadata
    (the library versions that made it, ordrank.results.table_versions) but pandas' own."""
    with atomic_path(path) as tmp:
        if path.suffix == ".csv":
            table.to_csv(tmp, index=False, float_format="%.17g")
            return
        source = pq.ParquetFile(path)
        compression = source.metadata.row_group(0).column(0).compression.lower() \
            if source.metadata.num_row_groups else "zstd"
        metadata = {k: v for k, v in (source.schema_arrow.metadata or {}).items() if k != b"pandas"}
        arrow = pa.Table.from_pandas(table, preserve_index=False)
        pq.write_table(arrow.replace_schema_metadata({**arrow.schema.metadata, **metadata}), tmp,
                       compression=compression)


def table_overrides(table: pd.DataFrame, conf: Path) -> list[str]:
    """The overrides that compose the experiment of a published table (for its first row's data set)."""
    experiment, dataset = table["experiment"].iloc[0], table["dataset"].iloc[0]
    overrides = [f"+experiment={config_name(experiment, conf)}"]
    if (conf / "dataset" / f"{dataset}.yaml").is_file():
        overrides.append(f"dataset={dataset}")
    elif "config.dataset.benchmark" in table:
        overrides.append(f"dataset.name={dataset}")
    return overrides


def migrate_table(path: Path, conf: Path = REPO / "conf", dry_run: bool = False) -> tuple[str, list[str]]:
    """Migrate a published results table or its timings table: ``(what happened, dropped columns)``."""
    table = read(Path(path))
    if not any(c.startswith("config.") for c in table.columns):
        return "unchanged (no config columns)", []
    expected = list(flatten_config(run_config(compose(table_overrides(table, conf), conf))))
    columns, dropped = migrated_columns(table, expected)
    if columns == list(table.columns):
        return "unchanged", []
    if not dry_run:
        write_like(table[columns], Path(path))
    return "migrated", dropped


# --- job folders ---------------------------------------------------------------------------------------

def job_overrides(folder: Path) -> list[str]:
    """The job's overrides (``.hydra/overrides.yaml``) and a config search path given to Hydra."""
    overrides = list(yaml.safe_load((folder / ".hydra" / "overrides.yaml").read_text()) or [])
    hydra_file = folder / ".hydra" / "hydra.yaml"
    if hydra_file.is_file():  # hydra.searchpath=[file://...] (docs/extending.md)
        saved = (yaml.safe_load(hydra_file.read_text()) or {}).get("hydra", {}).get("overrides", {})
        overrides += [o for o in saved.get("hydra") or [] if str(o).startswith("hydra.searchpath")]
    return overrides


def migrate_job(folder: Path, conf: Path = REPO / "conf", dry_run: bool = False) -> tuple[str, list[str]]:
    """Migrate a Hydra job's folder: ``(what happened, dropped config keys)``."""
    folder = Path(folder)
    saved = OmegaConf.load(folder / ".hydra" / "config.yaml")
    only = OmegaConf.to_container(saved, resolve=True).get("only")
    old = legacy_run_config(saved)
    marker = folder / FINISHED
    finished = marker.read_text().strip() if marker.is_file() else None
    try:
        new = run_config(compose(job_overrides(folder), conf))
        dropped = dropped_defaults(old, new)
    except Exception as error:  # noqa: BLE001 - whatever the reason, the job is left alone and says why
        return f"skipped ({type(error).__name__}: {error}; resume=true runs it again)", []
    new_key = fingerprint(new, only)
    if finished not in (None, fingerprint(old, only), new_key):
        return "skipped (its FINISHED marker is not its saved config's fingerprint)", []
    changed, expected = [], list(flatten_config(new))
    table = folder / (saved.get("table_name") or "results.parquet")
    for path in (table, timings_path(table), partial_path(table)):
        if path.is_file():
            rows = read(path)
            columns, _ = migrated_columns(rows, expected, kept=())
            if columns != list(rows.columns):
                changed.append(path.name)
                if not dry_run:
                    write_like(rows[columns], path)
    if finished is not None and finished != new_key:
        changed.append(FINISHED)
        if not dry_run:
            with atomic_path(marker) as tmp:
                Path(tmp).write_text(new_key + "\n")
    return (f"migrated ({', '.join(changed)})" if changed else "unchanged"), dropped


# --- the command ---------------------------------------------------------------------------------------

def targets(path: Path):
    """``(migrate_job, folder)`` for each job folder under ``path``, ``(migrate_table, file)`` for each
    other table (not a peer cache, not a partial table)."""
    path = Path(path)
    if (path / ".hydra" / "config.yaml").is_file():
        yield migrate_job, path
    elif path.is_file():
        yield (migrate_job, path.parent) if (path.parent / ".hydra").is_dir() else (migrate_table, path)
    else:
        for child in sorted(p for p in path.iterdir() if not p.name.startswith(".")):
            if child.is_dir():
                yield from targets(child)
            elif child.suffix in (".parquet", ".csv") and ".partial" not in child.name \
                    and not child.name.startswith("peer_cache"):
                yield migrate_table, child


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python experiments/migrate_config_columns.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                        help="results tables, job folders, or folders holding them (results/, multirun/)")
    parser.add_argument("--conf", type=Path, default=REPO / "conf", help="the config folder (%(default)s)")
    parser.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    args = parser.parse_args(argv)
    failed = 0
    for path in args.paths:
        for migrate, target in targets(path):
            try:
                what, dropped = migrate(target, args.conf, args.dry_run)
            except Exception as error:  # noqa: BLE001 - every table is reported, then the command fails
                failed += 1
                what, dropped = f"FAILED ({type(error).__name__}: {error})", []
            if what.startswith("unchanged (no config"):
                continue
            dropped = f"; {len(dropped)} settings at their defaults dropped" if what.startswith("migrated") else ""
            print(f"{'(dry run) ' if args.dry_run else ''}{what}: {target}{dropped}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
