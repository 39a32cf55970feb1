"""A learner inside a scikit-learn pipeline: its final step, and a grid as the pipeline sees it.

A train/test protocol makes the feature map the first step of each learner's pipeline
(:mod:`ordrank.app`); model selection, the staged fits and the external cache then look at the learner
itself, the pipeline's last step (:func:`final_step`), and set its parameters through the
pipeline's step-name prefix (:func:`prefixed_grid`).
"""
from __future__ import annotations

from sklearn.pipeline import Pipeline


def final_step(model):
    """The learner of ``model``: a pipeline's last step, else ``model`` itself."""
    return model.steps[-1][1] if isinstance(model, Pipeline) else model


def prefixed_grid(model, grid: dict) -> dict:
    """Grid keys as the model sees them: ``C`` → ``svor__C`` when the learner ends a pipeline."""
    if not isinstance(model, Pipeline):
        return dict(grid)
    last = model.steps[-1][0]
    return {f"{last}__{key}": list(values) for key, values in grid.items()}
