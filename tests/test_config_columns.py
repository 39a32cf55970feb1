"""Configs list only what differs from their estimator's defaults (ordrank.config_columns).

Every conf/algorithm/*.yaml lists its estimator's ``_target_`` and non-default settings only; any other
parameter is a plain override (no ``+``) that reaches the learner and becomes a config column, and a
misspelt one is refused before any work, naming the key and the valid ones.
"""
import json

import pytest
from omegaconf import OmegaConf

from ordrank.app import build, run
from ordrank.config_columns import estimator_parameters, is_default, is_spec, run_config
from ordrank.results import flatten_config

from conftest import REPO, make_cfg

OPTIONS = sorted(p.stem for p in (REPO / "conf" / "algorithm").glob("*.yaml"))


def composed_option(option: str) -> dict:
    """The config of ``conf/algorithm/<option>.yaml`` as Hydra composes it (defaults lists included)."""
    cfg = make_cfg([f"+algorithm@algorithms.X={option}"])
    return OmegaConf.to_container(cfg.algorithms.X, resolve=False)


def specs(spec: dict, where: str):
    """(where, spec) for ``spec`` and each ``_target_`` spec nested in it."""
    yield where, spec
    for key, value in spec.items():
        if is_spec(value):
            yield from specs(value, f"{where}.{key}")


@pytest.mark.parametrize("option", OPTIONS)
def test_every_algorithm_yaml_lists_only_what_differs_from_the_defaults(option):
    assert "estimator_default" not in (REPO / "conf" / "algorithm" / f"{option}.yaml").read_text()
    for where, spec in specs(composed_option(option), option):
        parameters = estimator_parameters(spec["_target_"])
        for key, value in spec.items():
            if key.startswith("_") or (isinstance(value, str) and value.startswith("${")):  # ${seed}: a link
                continue
            assert parameters is not None and key in parameters, f"{where}.{key}: no parameter"
            assert is_spec(value) or not is_default(spec["_target_"], key, value), \
                f"conf/algorithm/{option}.yaml: {where}.{key} = {value!r} is the estimator's default"


def test_svorex_is_svorim_but_for_its_constraints():
    svorim, svorex = composed_option("svorim"), composed_option("svorex")
    assert svorex == {**svorim, "constraints": "explicit"}
    assert "defaults:\n  - svorim\n" in (REPO / "conf" / "algorithm" / "svorex.yaml").read_text()
    assert "solver" not in json.dumps([svorim, svorex])  # SVOR's default solver (auto)


def override_value(value) -> str:
    return "null" if value is None else json.dumps(value) if isinstance(value, (bool, str)) else repr(value)


@pytest.mark.parametrize("option", OPTIONS)
def test_every_parameter_is_a_plain_override(option):
    """Each parameter its YAML leaves out is set without ``+`` (to its default here), reaches the
    learner and becomes a config column: a set value is a column."""
    unset = [(f"{where}.{name}".partition(".")[2], p.default) for where, spec in specs(composed_option(option), "X")
             for name, p in (estimator_parameters(spec["_target_"]) or {}).items()
             if name not in spec and (p.default is None or isinstance(p.default, (bool, int, float, str)))]
    overrides = [f"algorithms.X.{key}={override_value(value)}" for key, value in unset]
    cfg = make_cfg(["+experiment=prank_synthetic", f"+algorithm@algorithms.X={option}", *overrides])
    learner = build(cfg)["learners"]["X"]
    params = learner.get_params(deep=True)
    for key, value in unset:
        assert params[key.replace(".", "__")] == value, key
    columns = flatten_config(run_config(cfg))
    assert all(f"config.algorithms.X.{key}" in columns for key, _ in unset)


@pytest.mark.parametrize("override, error, message", [
    ("algorithms.SVORIM.diagonal_jiter=0.001", TypeError,
     r"^algorithms\.SVORIM\.diagonal_jiter: SVOR has no parameter 'diagonal_jiter' \(did you mean "
     r"'diagonal_jitter'\?\); its parameters: C, coef0, constraints, degree, diagonal_jitter, gamma, "),
    ("algorithms.MC-SVM.classifier.cache=500", TypeError,
     r"^algorithms\.MC-SVM\.classifier\.cache: SVC has no parameter 'cache' \(did you mean 'cache_size'\?\)"),
    ("algorithms.SVORM.C=10", ValueError, r"^algorithms\.SVORM is no configured algorithm \(set by "
     r"algorithms\.SVORM\.C\); the configured ones are SVORIM, SVOREX, "),
])
def test_a_misspelt_key_is_refused_before_any_work(override, error, message, tmp_path):
    cfg = make_cfg(["+experiment=svor_benchmark", "+quick=svor_benchmark", override])
    with pytest.raises(error, match=message):
        run(cfg, tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["ERROR"]
