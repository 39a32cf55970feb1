"""A sampling profile of a command and every process it starts (py-spy), summed into the speed page's tables.

py-spy samples each process ``RATE`` times a second while it runs Python or compiled code called from
it (idle waits are not sampled), so samples / ``RATE`` are CPU seconds. The raw output is one line per
distinct stack: ``frame;frame;...;frame count``, frames ``function (path:line)``, the first naming the
process. Two tables come out of it:

- by library: the CPU seconds of the innermost frame's package (``ordrank.datasets``, ``numpy``,
  ``sklearn``, ...; compiled numba code counts as the ordrank function that called it);
- by function: the CPU seconds under each of the project's functions (``src/ordrank``, ``experiments``),
  each counted once per sample however often it is on the stack, the top ``TOP``.
"""
from __future__ import annotations

import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

RATE, TOP = 50, 20
FRAME = re.compile(r"^(?P<function>.*) \((?P<path>.*?)(?::\d+)?\)$")


def record(command: list[str], cwd: Path) -> dict[str, int]:
    """Run ``command`` under py-spy (every subprocess too); {stack: samples}. Stops on the command's failure."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "profile.txt"
        spy = Path(sys.executable).with_name("py-spy")
        subprocess.run([str(spy), "record", "--subprocesses", "--rate", str(RATE), "--format", "raw", "--nonblocking",
                        "-o", str(out), "--", *command], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        stacks = {}
        for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
            stack, _, count = line.rpartition(" ")
            if stack and count.isdigit():
                stacks[stack] = stacks.get(stack, 0) + int(count)
        return stacks


def where(path: str) -> str | None:
    """A frame's module, dotted (``ordrank.datasets.letor_file``, ``experiments.reproduce``, ``numpy.linalg``);
    py-spy writes a library's path from its site-packages folder, Python's import system as ``<frozen ...>``."""
    if path.startswith("<frozen "):
        return path[len("<frozen "):-1]
    if path.startswith("<"):  # <string>, <stdin>
        return None
    path = path.replace("\\", "/")
    for marker in ("site-packages/", "/src/", "/experiments/", "/benchmarks/"):
        if marker in path:
            path = path.split(marker, 1)[1] if marker in ("site-packages/", "/src/") else \
                marker.strip("/") + "/" + path.split(marker, 1)[1]
            break
    else:
        if "/lib/python3." in path:  # the standard library
            path = path.split("/lib/python3.", 1)[1].partition("/")[2]
    if path.startswith("/"):
        return Path(path).stem
    return path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


def frames(stack: str) -> list[tuple[str, str]]:
    """(function, module) of each Python frame of a raw stack, outermost first (process and thread labels dropped)."""
    found = []
    for frame in stack.split(";"):
        match = FRAME.match(frame.strip())
        if match and (module := where(match["path"])) is not None:
            found.append((match["function"], module))
    return found


def library(module: str) -> str:
    """The package a module counts under: ordrank and experiments by their first two parts, others by their first."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] in ("ordrank", "experiments", "benchmarks") else parts[0]


def summary(stacks: dict[str, int], command: str) -> dict:
    """The two tables (CPU seconds) and the totals, as docs/speed.json keeps them."""
    by_library, by_function, total = collections.Counter(), collections.Counter(), 0
    for stack, count in stacks.items():
        total += count
        python = frames(stack)
        by_library[library(python[-1][1]) if python else "(no Python frame)"] += count
        for name in {f"{module}.{function}" for function, module in python
                     if module.startswith(("ordrank", "experiments"))}:
            by_function[name] += count
    return {"command": command, "rate": RATE, "cpu": total / RATE,
            "libraries": [[name, n / RATE] for name, n in by_library.most_common(TOP)],
            "functions": [[name, n / RATE] for name, n in by_function.most_common(TOP)]}
