"""The speed page cannot go stale: docs/speed.md is drawn from docs/speed.json, and every time the
README and the Makefile quote is that page's figure, rounded (benchmarks/bench_reproduce.py)."""
import importlib.util
import json
import re

import pytest

from conftest import REPO

# a duration as prose writes it: "about 50 min", "65 s", "3½ hours", "1-3 minutes", "9 min 54 s"
DURATION = re.compile(r"(?<![\w.])(about )?(\d[\d.,½–-]*) ?(s|sec|seconds?|min|minutes?|h|hours?)\b")
QUOTED = re.compile(r"`?make (reproduce-quick|reproduce EXTERNAL=rerun|reproduce|test-fast|test)\b`?")


def bench():
    spec = importlib.util.spec_from_file_location("bench_reproduce", REPO / "benchmarks" / "bench_reproduce.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def page():
    module = bench()
    return module, module.load()


def test_about_rounds_as_documented():
    about = bench().about
    assert [about(s) for s in (4, 44, 65, 89)] == ["10 s", "40 s", "60 s", "90 s"]
    assert [about(s) for s in (90, 149, 151, 599)] == ["2 min", "2 min", "3 min", "10 min"]
    assert [about(s) for s in (600, 3290, 3310, 12000)] == ["10 min", "55 min", "55 min", "200 min"]


def test_page_is_drawn_from_its_data(page):
    module, data = page
    assert data.get("commands"), "docs/speed.json has no command timed: run benchmarks/bench_reproduce.py"
    assert (REPO / "docs" / "speed.md").read_text(encoding="utf-8") == module.render(data) + "\n", \
        "docs/speed.md is not what docs/speed.json gives: run python benchmarks/bench_reproduce.py --render"


@pytest.mark.parametrize("name", ["README.md", "Makefile"])
def test_every_time_quoted_is_the_speed_pages_rounded(page, name):
    """Each duration in the README and the Makefile is "about N unit" in a line naming the command,
    N unit being the page's figure for it, rounded; no other (hand-typed, dated) timing."""
    module, data = page
    commands = data.get("commands", {})
    for number, line in enumerate((REPO / name).read_text(encoding="utf-8").splitlines(), 1):
        for match in DURATION.finditer(line):
            where = f"{name}:{number}: {match.group(0)!r}"
            named = QUOTED.findall(line[:match.start()])
            assert match.group(1) and named, (
                f"{where}: a time in {name} is quoted as 'about N min' after the `make …` command it "
                "times, from docs/speed.md (benchmarks/bench_reproduce.py)")
            command = f"make {named[-1]}"
            assert command in commands, f"{where}: docs/speed.json has no timing of {command}"
            expected = module.about(commands[command]["wall"])
            assert f"{match.group(2)} {match.group(3)}" == expected, \
                f"{where}: docs/speed.md says {command} takes about {expected}"


def test_reproduce_writes_its_step_times(tmp_path):
    """experiments/reproduce.py --timings: one row per step with wall and CPU seconds."""
    from ordrank.progress import StepTimes

    times = StepTimes()
    times.start("a")
    sum(range(10**5))
    times.stop()
    times.write(tmp_path / "t.json", quick=True)
    written = json.loads((tmp_path / "t.json").read_text())
    assert written["quick"] is True and [s["step"] for s in written["steps"]] == ["a"]
    step = written["steps"][0]
    assert step["wall"] >= 0 and step["cpu"] >= 0 and {"load_before", "load_after"} <= set(step)


@pytest.mark.parametrize("entry", ["run.py", "experiments/reproduce.py"])
def test_entry_points_turn_off_numpys_huge_page_advice(entry):
    """run.py and reproduce.py set NUMPY_MADVISE_HUGEPAGE=0 before numpy loads (a job 1.3× faster
    on the 2-core VM, benchmarks/bench_svor.py --part selection (d)); a caller's own value wins."""
    import os
    import subprocess
    import sys

    probe = ("import runpy, sys; sys.argv = ['x', '--help']\n"
             f"try: runpy.run_path({str(REPO / entry)!r}, run_name='not_main')\n"
             "except SystemExit: pass\n"
             "from numpy._core import multiarray\n"
             "print(multiarray._set_madvise_hugepage(True))")
    for preset, expected in ((None, "False"), ("1", "True")):
        env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
        if preset:
            env["NUMPY_MADVISE_HUGEPAGE"] = preset
        out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=REPO, check=True,
                             capture_output=True, text=True).stdout.split()
        assert out[-1] == expected, (entry, preset, out)
