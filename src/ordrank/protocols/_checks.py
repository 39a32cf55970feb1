"""Config validators every protocol shares: each error names the offending key and value."""
from __future__ import annotations

import numpy as np


def check_ranks(y: np.ndarray, n_ranks: int, what: str = "y") -> None:
    """Raise a ValueError naming the offending value unless every entry of ``y`` is in 1..k."""
    y = np.asarray(y)
    if not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"{what} must hold integer ranks 1..{n_ranks}, got dtype {y.dtype}")
    bad = (y < 1) | (y > n_ranks)
    if bad.any():
        raise ValueError(f"{what} has rank {y[bad].flat[0]} outside 1..{n_ranks}")


def check_positive(owner, names, optional=()) -> None:
    """Raise a ValueError naming ``protocol.<name>`` unless each attribute is a positive integer."""
    for name in names:
        value = getattr(owner, name)
        if value is None and name in optional:
            continue
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
            raise ValueError(f"protocol.{name} must be a positive integer, got {value!r}")


def check_choice(owner, name, allowed) -> None:
    """Raise a ValueError naming ``protocol.<name>`` unless its value is one of ``allowed``."""
    value = getattr(owner, name)
    if value not in allowed:
        raise ValueError(f"protocol.{name} must be one of {list(allowed)}, got {value!r}")


def check_grid_names(grids: dict, learners: dict) -> None:
    """Every ``protocol.grids`` entry names one of the run's algorithms."""
    unknown = sorted(set(grids) - set(learners))
    if unknown:
        raise ValueError(f"protocol.grids names {unknown}, which are not among the algorithms {sorted(learners)}")
