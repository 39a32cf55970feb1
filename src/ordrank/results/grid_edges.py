"""Model-selection choices on the edge of their grid: the chosen value is the grid's smallest or largest.

A choice on an edge says the optimum may lie outside the grid (the grid should be widened there). It
is read from what a results table already holds, so no table changes: the ``params`` column (the
chosen values, JSON, as configured) and the run's grids in the ``config.protocol.grids.<algorithm>.
<parameter>`` columns. The protocols warn at each fit whose choice sits on an edge
(:class:`GridEdgeWarning`); the reports list the edges beside the chosen parameters
(:func:`grid_edges`).

Only numeric grids of two or more distinct values have edges; a categorical grid (a kernel's name)
or a single value does not.
"""
from __future__ import annotations

import ast
import json
import math
import warnings
from numbers import Real

import pandas as pd

GRID_PREFIX = "config.protocol.grids."


class GridEdgeWarning(UserWarning):
    """A model selection chose the smallest or largest value of a numeric grid."""


def _numeric(values) -> list[float] | None:
    """The grid's values as floats, or None unless it is numeric with two or more distinct values."""
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        return None
    values = list(values)
    if not all(isinstance(v, Real) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        return None
    return [float(v) for v in values] if len(set(values)) >= 2 else None


def edges(params: dict, grid: dict) -> list[tuple[str, object, str, list]]:
    """``(parameter, chosen value, "smallest" | "largest", grid values)`` for each chosen value of
    ``params`` (parameter → value, keys as in ``grid``) that is its numeric grid's minimum or maximum."""
    found = []
    for name, values in sorted(grid.items()):
        numbers = _numeric(values)
        if numbers is None or name not in params:
            continue
        value = params[name]
        if isinstance(value, bool) or not isinstance(value, Real):
            continue
        side = "smallest" if value == min(numbers) else "largest" if value == max(numbers) else None
        if side:
            found.append((name, value, side, list(values)))
    return found


def message(learner: str, where: str, found: list[tuple]) -> str:
    """The warning's text: every parameter on an edge, its value, the side and the grid."""
    parts = "; ".join(f"{name}={value!r} is the {side} of its grid {list(values)}"
                      for name, value, side, values in found)
    return (f"{learner} on {where}: model selection chose a grid edge ({parts}); the best value may lie "
            "beyond it: widen the grid on that side (protocol.grids)")


def _grid_value(text):
    """A config column's grid: a list (stored as its text, e.g. ``[0.0001, 0.001, 0.01]``)."""
    if isinstance(text, str):
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
    return text


def grid_edges(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per (algorithm, ``keys`` …, parameter) whose chosen value sits on its grid's edge:
    columns ``algorithm``, the keys, ``parameter``, ``value``, ``side`` and ``grid`` (text). Empty
    (same columns) when the table has no ``params`` or grid columns or no choice on an edge."""
    columns = ["algorithm", *keys, "parameter", "value", "side", "grid"]
    grid_columns = [c for c in table.columns if c.startswith(GRID_PREFIX)]
    if "params" not in table or not grid_columns:
        return pd.DataFrame(columns=columns)
    pieces = table.drop_duplicates(["algorithm", *keys])
    rows = []
    for _, piece in pieces.iterrows():
        algorithm = str(piece["algorithm"])
        prefix = f"{GRID_PREFIX}{algorithm}."
        grid = {c[len(prefix):]: _grid_value(piece[c]) for c in grid_columns
                if c.startswith(prefix) and not (isinstance(piece[c], float) and math.isnan(piece[c]))}
        if not grid or not isinstance(piece["params"], str):
            continue
        for name, value, side, values in edges(json.loads(piece["params"]), grid):
            rows.append([algorithm, *(piece[k] for k in keys), name, value, side, str(values)])
    return pd.DataFrame(rows, columns=columns)


def warn_edges(learner: str, where: str, chosen: str, grid: dict) -> None:
    """Warn (:class:`GridEdgeWarning`, once per call: one fit) when the chosen values (``chosen``: the
    ``params`` JSON) sit on an edge of ``grid``."""
    found = edges(json.loads(chosen), dict(grid)) if grid else []
    if found:
        warnings.warn(message(learner, where, found), GridEdgeWarning, stacklevel=3)
