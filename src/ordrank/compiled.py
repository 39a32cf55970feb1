"""Compiled code: :func:`njit`, numba's ``njit`` that caches what it compiles where it can and compiles
in memory where it cannot, and compiles nothing until it is called.

Every numba function of ordrank is made by this decorator (tests/test_compiled.py checks the source).

**The cache.** ``numba.njit(cache=True)`` picks a folder for its on-disk cache when the function is
*defined* (at the import of its module), the first writable of: ``$NUMBA_CACHE_DIR``, the module's own
``__pycache__``, the user's cache folder (``$XDG_CACHE_HOME/numba``, else ``~/.cache/numba``). With none
writable — a shared or root-owned install run by another user, a user without a home directory —
numba raises ``RuntimeError: cannot cache function ...: no locator available`` and the import fails,
whatever the run needs. :func:`njit` then defines the function without the on-disk cache: it
compiles in memory on its first call, in every process that calls it (the same machine code; only the
compile time is paid again), and :func:`uncached` names it; the first such function is logged once
(INFO) with the way out: ``NUMBA_CACHE_DIR`` set to a folder the user can write. Any other error of
numba's cache set-up (a bad ``NUMBA_CACHE_LOCATOR_CLASSES``) is raised as it is.

**When it compiles.** A dispatcher made without signatures compiles one machine-code version per
argument types, on the first call with those types (or loads it from the cache); a module's import
compiles nothing, and a run compiles only the functions it calls. Explicit signatures
(``njit("f8(f8[:])")``) would compile every one of them at the import, so :func:`njit` refuses them.
"""
import logging

import numba

log = logging.getLogger(__name__)

# the functions defined without numba's on-disk cache in this process: "module.qualname"
_UNCACHED: list[str] = []


def uncached() -> list[str]:
    """The functions (``module.qualname``) this process compiles in memory only: no writable cache folder."""
    return list(_UNCACHED)


def njit(function=None, /, **options):
    """``numba.njit(cache=True, **options)`` on ``function``, or without the cache when numba finds no
    writable folder for it (see the module's docstring). Used bare (``@njit``) or with numba's options
    (``@njit(parallel=True)``, ``cache=False`` to never cache); never with signatures."""
    if function is None:
        return lambda f: njit(f, **options)
    if not callable(function):
        raise TypeError(f"ordrank.compiled.njit compiles on first call, by the argument types; it takes no "
                        f"signatures (got {function!r}): they would compile at import")
    if not options.pop("cache", True):
        return numba.njit(**options)(function)
    try:
        return numba.njit(cache=True, **options)(function)
    except RuntimeError as error:
        if "no locator available" not in str(error):
            raise
        name = f"{function.__module__}.{function.__qualname__}"
        if not _UNCACHED:
            log.info("numba cannot cache %s (%s): no writable cache folder; compiling in memory on first "
                     "use instead. Set NUMBA_CACHE_DIR to a folder you can write to keep compiled code "
                     "between runs.", name, error)
        _UNCACHED.append(name)
        return numba.njit(**options)(function)
