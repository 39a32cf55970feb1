"""Grid points' test predictions in model selection, with one fit per group of boosting rounds.

A learner whose ``staged_param`` (e.g. ``OrdinalReduction``'s ``estimator__n_estimators`` around
AdaBoost) the grid varies is fitted once per fold and other values, with the most rounds; its
``staged_predict`` gives the fewer rounds' predictions, which equal their own fits' predictions
(the first t rounds of an ensemble do not depend on how many follow). Used by
:meth:`ordrank.protocols.partitions.TrainTestPartitions.cv_scores`.
"""
from __future__ import annotations

import json

from sklearn.base import clone
from sklearn.pipeline import Pipeline

from ordrank.algorithms.pipelines import final_step


def staged_key(model, candidates: list) -> str | None:
    """The grid key of the learner's ``staged_param`` (e.g. boosting rounds), if the grid varies it."""
    key = getattr(final_step(model), "staged_param", None)
    if key and isinstance(model, Pipeline):
        key = f"{model.steps[-1][0]}__{key}"
    return key if key and len({c.get(key) for c in candidates}) > 1 else None


def staged_groups(model, candidates: list, order: list) -> list[list[int]]:
    """The candidates in ``order``, grouped by everything but the staged key (singletons without one)."""
    key = staged_key(model, candidates)
    if key is None:
        return [[c] for c in order]
    groups: dict = {}
    for c in order:
        groups.setdefault(json.dumps({k: v for k, v in candidates[c].items() if k != key},
                                     sort_keys=True, default=str), []).append(c)
    return list(groups.values())


def grid_scores(model, candidates: list, group: list, X_train, y_train, X_test, score, errors: list):
    """(grid point, ``score(test predictions)``) of a group's points; a failed staged fit falls back
    to one fit per point, and a point whose fit, prediction or score raises is left out (NaN in
    the scores) with its error kept in ``errors``, as in GridSearchCV(error_score=nan)."""
    try:
        predictions = group_predictions(model, [candidates[c] for c in group], X_train, y_train, X_test)
        scored = [(c, score(predicted)) for c, predicted in zip(group, predictions)]
    except Exception as error:  # noqa: BLE001 - a failed grid point scores NaN
        if len(group) == 1:
            errors.append(f"{type(error).__name__}: {error}")
            return []
        return [pair for c in group
                for pair in grid_scores(model, candidates, [c], X_train, y_train, X_test, score, errors)]
    return scored


def group_predictions(model, group: list, X_train, y_train, X_test) -> list:
    """Test predictions of each grid point of a group: one fit per point, or, for a staged group
    (the same values but the number of rounds), one fit with the most rounds whose staged
    predictions (``staged_predict``) answer the others: equal to their own fits' predictions."""
    if len(group) == 1:
        return [clone(model).set_params(**group[0]).fit(X_train, y_train).predict(X_test)]
    key = staged_key(model, group)
    fitted = clone(model).set_params(**max(group, key=lambda c: c[key])).fit(X_train, y_train)
    final, X_final = final_step(fitted), X_test
    if isinstance(fitted, Pipeline):
        X_final = fitted[:-1].transform(X_test)
    wanted, found = {c[key] for c in group}, {}
    for t, predicted in enumerate(final.staged_predict(X_final), start=1):
        if t in wanted:
            found[t] = predicted
    # an ensemble that stopped early (a perfect round) gives its last stage for every later count
    return [found.get(c[key], predicted) for c in group]
