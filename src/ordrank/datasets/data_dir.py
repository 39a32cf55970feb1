"""The data folder every loader reads from, and the one rule that names it.

The rule (:func:`resolve_data_dir`): the config key / argument ``data_dir`` if given, else the
environment variable ``$ORDRANK_DATA``, else ``data/`` (relative to the current directory, or to a
given root). :func:`find_file` returns the first of a loader's candidate paths that exists, else
raises a FileNotFoundError naming every path tried, the rule and where to get the file.
"""
from __future__ import annotations

import os
from pathlib import Path


def resolve_data_dir(data_dir: str | os.PathLike | None = None, root: str | os.PathLike | None = None) -> Path:
    """Data directory: `data_dir` if given, else ``$ORDRANK_DATA``, else ``data/``.

    A relative result is taken under `root` if given, else under the current directory: the
    notebooks, whose kernel runs in ``notebooks/``, pass the repository root.
    """
    path = Path(data_dir if data_dir is not None else os.environ.get("ORDRANK_DATA") or "data")
    return path if root is None else Path(root) / path


def find_file(what: str, candidates: list[Path], source: str) -> Path:
    """First existing path among `candidates`; else FileNotFoundError saying where to get the file."""
    for path in candidates:
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"{what} not found: expected it at {' or '.join(str(p) for p in candidates)}. "
        "Set the data directory with the config key `data_dir` or the environment variable ORDRANK_DATA. "
        f"{source}."
    )
