"""What a benchmark report shows, from the ``report:`` section of the experiment's config.

The reports (:mod:`ordrank.reports`) name no study: their block keys, Wilcoxon reference, column
order and the README table's rows and columns are a :class:`ReportSpec`, read from
``conf/experiment/<experiment>.yaml`` by Hydra's compose API (``report:`` is not a run setting:
``ordrank.app`` keeps it out of the table's ``config.*`` columns and of a job's config hash).
"""
from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from pathlib import Path

import pandas as pd

CONF_DIR = Path(__file__).resolve().parents[3] / "conf"  # the project's Hydra configs


@dataclasses.dataclass(frozen=True)
class ReportSpec:
    """What a benchmark's report shows: the ``report:`` section of its experiment config.

    ``reference``: the algorithm every Wilcoxon test compares with; ``block``: the columns whose
    values make one benchmark (a "data set" of the rank statistics); ``partition``: the column of
    the replicates paired by the tests (the train/test partition); ``methods`` then ``external``: the
    column order (algorithms not listed follow alphabetically); ``datasets``: the row order of the
    README table; ``readme_columns`` its columns, ``readme_where`` its rows' filter ({column:
    value}, e.g. ``{bins: 10}``) and ``readme_subset`` how its caption names them (e.g. "10 ranks");
    ``yardsticks``: {external learner: method} for the external learners that implement one of the methods (e.g.
    ``{skordinal-SVORIM: SVORIM}``), compared pairwise in the report (:mod:`ordrank.reports.yardsticks`).
    """

    reference: str
    block: tuple = ("dataset",)
    partition: str = "split"
    methods: tuple = ()
    external: tuple = ()
    datasets: tuple = ()
    readme_columns: tuple = ()
    readme_where: dict = dataclasses.field(default_factory=dict)
    readme_subset: str = ""
    yardsticks: dict = dataclasses.field(default_factory=dict)

    @property
    def order(self) -> list[str]:
        return [*self.methods, *self.external]

    @classmethod
    def from_config(cls, report, where: str = "report") -> "ReportSpec":
        """From the ``report:`` mapping; an unknown or missing key raises ValueError naming ``where``."""
        report = dict(report or {})
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(report) - names)
        if unknown or "reference" not in report:
            raise ValueError(f"{where}: " + (f"unknown keys {unknown}; " if unknown else "no reference; ")
                             + f"allowed keys {sorted(names)} (reference required)")
        text = {"reference", "partition", "readme_subset"}
        values = {k: (dict(v) if k in ("readme_where", "yardsticks") else str(v) if k in text else tuple(v))
                  for k, v in report.items() if v is not None}
        for external, method in values.get("yardsticks", {}).items():
            if external not in values.get("external", ()) or method not in values.get("methods", ()):
                raise ValueError(f"{where}: yardsticks maps {external!r} to {method!r}; each key must be one "
                                 f"of the external {list(values.get('external', ()))} and each value one of the "
                                 f"methods {list(values.get('methods', ()))}")
        return cls(**values)

    @classmethod
    def for_experiment(cls, experiment: str, conf_dir=None) -> "ReportSpec":
        """The ``report:`` section of the run named ``experiment`` (composed by Hydra: :func:`experiment_overrides`)."""
        return _composed_spec(str(experiment), str(conf_dir or CONF_DIR))

    @classmethod
    def of_table(cls, table: pd.DataFrame, conf_dir=None) -> "ReportSpec":
        """The spec of the experiment named by ``table``'s ``experiment`` column (one value)."""
        experiments = table["experiment"].unique() if "experiment" in table else []
        if len(experiments) != 1:
            raise ValueError(f"the table names {len(experiments)} experiments "
                             f"({sorted(map(str, experiments))}): pass spec=ReportSpec(...)")
        return cls.for_experiment(experiments[0], conf_dir)


def config_name(experiment: str, conf_dir, group: str = "experiment") -> str:
    """The config of ``group`` that names itself ``experiment``: ``conf/<group>/<experiment>.yaml``,
    else one (in a sub-folder too) whose ``experiment:`` line says so (e.g. ``svor_benchmark/
    papers_sizes`` for ``svor_benchmark_papers_sizes``); the name itself where none does."""
    folder = Path(conf_dir) / group
    if (folder / f"{experiment}.yaml").is_file():
        return experiment
    line = re.compile(rf"^experiment:\s*{re.escape(experiment)}\s*(#.*)?$", re.MULTILINE)
    for path in sorted(folder.rglob("*.yaml")):
        if line.search(path.read_text(encoding="utf-8")):
            return path.relative_to(folder).with_suffix("").as_posix()
    return experiment


def experiment_overrides(experiment: str, conf_dir) -> list[str]:
    """The overrides that compose the run named ``experiment``: ``+experiment=<config>``, and for a
    quick run (named by an overlay of ``conf/quick/``) that experiment with its overlay after it."""
    overlay = config_name(experiment, conf_dir, "quick")
    if (Path(conf_dir) / "quick" / f"{overlay}.yaml").is_file():
        return [f"+experiment={overlay}", f"+quick={overlay}"]
    return [f"+experiment={config_name(experiment, conf_dir)}"]


@lru_cache(maxsize=16)
def _composed_spec(experiment: str, conf_dir: str) -> ReportSpec:
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    overrides = experiment_overrides(experiment, conf_dir)
    with initialize_config_dir(config_dir=conf_dir, version_base="1.3"):
        cfg = compose("config", overrides=overrides)
    report = cfg.get("report")
    folder = "conf" if Path(conf_dir) == CONF_DIR else conf_dir  # no machine's path in the project's
    where = f"{folder}/experiment/{overrides[0].partition('=')[2]}.yaml: report"
    if report is None:
        raise ValueError(f"{where} is missing: the experiment has no report section")
    return ReportSpec.from_config(OmegaConf.to_container(report, resolve=True), where)


def spec_for(table: pd.DataFrame, spec: ReportSpec | None, **overrides) -> ReportSpec:
    """``spec`` (default: the table's experiment config) with the overrides that are not None."""
    spec = ReportSpec.of_table(table) if spec is None else spec
    return dataclasses.replace(spec, **{k: v for k, v in overrides.items() if v is not None})
