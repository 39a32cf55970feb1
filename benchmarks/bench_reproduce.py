"""The speed page: time every experiment of `make reproduce`, the test suite and the learners'
benchmarks on this machine, and write docs/speed.md (generated; never edit it by hand).

    python benchmarks/bench_reproduce.py --reproduce          # make reproduce, every experiment (about 1 h)
    python benchmarks/bench_reproduce.py --reproduce --only prank_synthetic letor_ohsumed
    python benchmarks/bench_reproduce.py --reproduce --external rerun   # make reproduce EXTERNAL=rerun
    python benchmarks/bench_reproduce.py --quick              # make reproduce-quick
    python benchmarks/bench_reproduce.py --tests              # make test and make test-fast
    python benchmarks/bench_reproduce.py --profile            # make reproduce-quick under py-spy: where CPU goes
    python benchmarks/bench_reproduce.py --learners           # every entry of LEARNER_BENCHMARKS
    python benchmarks/bench_reproduce.py --learners bench_predtron.py   # one of them (each of its entries)
    python benchmarks/bench_reproduce.py --render             # docs/speed.md from docs/speed.json only

Each part measures what it names and replaces only its own rows of ``docs/speed.json`` (the data)
before ``docs/speed.md`` is drawn from it, so a page can be refreshed part by part; every row keeps
the date, the machine and the load (1-minute average, before and after) it was measured at. Wall
and CPU seconds of the experiments come from ``experiments/reproduce.py --timings`` (CPU: every
process that did the step's work, :class:`ordrank.progress.StepTimes`: reproduce.py, the children it
waited for (a sweep's ``run.py -m`` and its joblib workers) and the pool workers still alive at the
step's end, such as the Predtron protocol's loky workers). ``--reproduce`` writes
where `make reproduce` writes (the repository's results/, figures/ and docs/results tables), so run it
on a clean tree and check `git status` after it: a deterministic rerun leaves it clean.

The README and the Makefile quote these figures only rounded, through :func:`about` ("about 50 min
on 2 cores"); tests/test_speed_page.py checks every such figure against docs/speed.json.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from ordrank.progress import StepTimes

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "docs" / "speed.json"
PAGE = REPO / "docs" / "speed.md"
# The page's entries: a script and the parts it runs (its section's title and key in docs/speed.json)
LEARNER_BENCHMARKS = ["bench_prank_synthetic.py", "bench_eachmovie.py --part movielens protocol scaling",
                      "bench_svor.py --part fits", "bench_predtron.py --part experiments engine",
                      "bench_predtron.py --part update", "bench_svor.py --part selection", "bench_letor_reader.py",
                      "bench_web_scale.py", "bench_ranking.py --part solvers", "bench_engines.py"]
# bench_web_scale.py's runs are results/letor_web's committed tables; --large: the 1e7-pair rows too
LEARNER_ARGS = {"bench_web_scale.py": ["--publish"], "bench_ranking.py --part solvers": ["--large"]}


def about(seconds: float) -> str:
    """The rounded figure the README quotes: "40 s" (to 10 s) under 90 s, whole minutes under 10
    minutes, else to 5 minutes ("about 55 min")."""
    if seconds < 90:
        return f"{max(10, round(seconds / 10) * 10)} s"
    minutes = seconds / 60
    return f"{round(minutes)} min" if minutes < 10 else f"{max(10, round(minutes / 5) * 5)} min"


def machine() -> str:
    """This machine in one line: CPU model, cores, memory, Python."""
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor() or "unknown CPU") \
        if Path("/proc/cpuinfo").is_file() else platform.processor()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{model}, {os.cpu_count()} cores, {memory:.0f} GiB, Python {platform.python_version()}"


def stamp() -> dict:
    return {"date": datetime.date.today().isoformat(), "machine": machine()}


def timed(command: list[str], **kwargs) -> dict:
    """Run ``command`` in the repository (stop on failure); its wall and CPU seconds and the load
    (:class:`ordrank.progress.StepTimes`, as reproduce.py --timings measures its steps)."""
    times = StepTimes()
    times.start(" ".join(command))
    subprocess.run(command, cwd=REPO, check=True, **kwargs)
    times.stop()
    step = times.steps[0]
    return {"wall": step["wall"], "cpu": step["cpu"], "load_before": round(step["load_before"], 2),
            "load_after": round(step["load_after"], 2), **stamp()}


def reproduce(data: dict, quick: bool, only: list[str] | None, external: str = "cached") -> None:
    """Run experiments/reproduce.py with --timings (and ``--external``); its steps into ``data``."""
    with tempfile.TemporaryDirectory() as tmp:
        steps_file = Path(tmp) / "steps.json"
        command = [sys.executable, "experiments/reproduce.py", "--fresh", "--timings", str(steps_file),
                   "--external", external]  # --fresh: every job run again, as make runs it
        command += (["--quick"] if quick else []) + (["--only", *only] if only else [])
        whole = timed(command)
        steps = json.loads(steps_file.read_text())["steps"]
    key = "quick" if quick else "experiments" if external == "cached" else "experiments_rerun"
    rows = data.setdefault(key, {})
    for step in steps:
        rows[step["step"]] = {**{k: step[k] for k in ("wall", "cpu")},
                              "load_before": round(step["load_before"], 2),
                              "load_after": round(step["load_after"], 2), **stamp()}
    if not only:  # the whole command, as `make` runs it
        rerun = "" if external == "cached" else " EXTERNAL=rerun"
        name = "make reproduce-quick" if quick else "make reproduce" + rerun
        data.setdefault("commands", {})[name] = whole


def run_profile(data: dict) -> None:
    """`make reproduce-quick` (every job run again) under py-spy: its CPU time by library and by function."""
    from parts import profile

    command = ["experiments/reproduce.py", "--quick", "--fresh"]
    stacks = profile.record([sys.executable, *command], REPO)
    data["profile"] = {**profile.summary(stacks, "python " + " ".join(command)), **stamp()}


def profile_markdown(profile: dict) -> list[str]:
    """The speed page's section for a profile (benchmarks/parts/profile.py)."""
    cpu = profile["cpu"]
    lines = [f"## Where the CPU time goes: a profile of `{profile['command']}`", "",
             f"{profile['date']}, py-spy at {profile['rate']} samples a second in every process: {cpu:.0f} CPU s "
             "sampled (benchmarks/parts/profile.py says how it is counted).", "",
             "| library (innermost frame) | CPU s | share |", "|---|---:|---:|"]
    lines += [f"| {name} | {s:.1f} | {s / cpu:.0%} |" for name, s in profile["libraries"]]
    lines += ["", "| the project's function (all it calls included) | CPU s | share |", "|---|---:|---:|"]
    lines += [f"| `{name}` | {s:.1f} | {s / cpu:.0%} |" for name, s in profile["functions"]]
    return lines + [""]


def tests(data: dict) -> None:
    """`make test` and `make test-fast` as the README runs them (the Makefile's pytest options: every
    core through pytest-xdist), in this checkout's .venv."""
    commands = data.setdefault("commands", {})
    for target in ("test", "test-fast"):
        commands[f"make {target}"] = timed(["make", target], stdout=subprocess.DEVNULL)


def learners(data: dict, entries: list[str]) -> None:
    """Run each entry of LEARNER_BENCHMARKS (a script and its parts) and keep its output as its row."""
    rows = data.setdefault("learners", {})
    for entry in entries:
        script, *parts = entry.split()
        with tempfile.TemporaryFile("w+") as out:
            row = timed([sys.executable, f"benchmarks/{script}", *parts, *LEARNER_ARGS.get(entry, [])], stdout=out,
                        stderr=subprocess.STDOUT)
            out.seek(0)
            rows[entry] = {**row, "output": out.read().rstrip()}


def chosen_entries(names: list[str]) -> list[str]:
    """The entries of LEARNER_BENCHMARKS that ``names`` name (an entry, or a script: each of its entries)."""
    return [entry for entry in LEARNER_BENCHMARKS if entry in names or entry.split()[0] in names]


def minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


def table(rows: dict, title: str) -> list[str]:
    lines = [f"| {title} | wall | CPU | load (1 min) before → after | date |", "|---|---|---|---|---|"]
    for name, row in rows.items():
        lines.append(f"| {name} | {minutes(row['wall'])} | {minutes(row['cpu'])} | "
                     f"{row['load_before']:.1f} → {row['load_after']:.1f} | {row['date']} |")
    return lines


def render(data: dict) -> str:
    machines = sorted({row["machine"] for part in ("commands", "experiments", "experiments_rerun", "quick", "learners")
                       for row in data.get(part, {}).values()})
    lines = ["# Speed", "",
             "Generated by `python benchmarks/bench_reproduce.py` from `docs/speed.json`; do not edit by hand.",
             "Each row says when it was measured and at what load; the README quotes these figures rounded.",
             "", "Machines: " + "; ".join(machines or ["none measured yet"]) + ".", ""]
    missing = [c for c in ("make reproduce", "make reproduce-quick", "make test", "make test-fast")
               if c not in data.get("commands", {})]
    if data.get("commands"):
        lines += ["## The commands", "", *table(data["commands"], "command"), ""]
    if missing:
        lines += ["Not measured on this page yet: " + ", ".join(f"`{c}`" for c in missing) + ".", ""]
        lines += ["Rounded, as the README quotes them: " + "; ".join(
            f"`{name}` about {about(row['wall'])}" for name, row in data["commands"].items()) + ".", ""]
    for key, title in (("experiments", "`make reproduce`, step by step"),
                       ("experiments_rerun", "`make reproduce EXTERNAL=rerun` (refitted), step by step"),
                       ("quick", "`make reproduce-quick`, step by step")):
        if data.get(key):
            rows = data[key]
            total = {"wall": sum(r["wall"] for r in rows.values()), "cpu": sum(r["cpu"] for r in rows.values())}
            lines += [f"## {title}", "", *table(rows, "step"), "",
                      f"Sum of the steps: {minutes(total['wall'])} wall, {minutes(total['cpu'])} CPU.", ""]
    if data.get("profile"):
        lines += profile_markdown(data["profile"])
    if data.get("learners"):
        lines += ["## The learners' benchmarks (`make bench`)", ""]
        for entry, row in data["learners"].items():
            lines += [f"### `benchmarks/{entry}`", "",
                      f"{row['date']}, {minutes(row['wall'])} wall, load {row['load_before']:.1f} → "
                      f"{row['load_after']:.1f}.", "", "```text", row["output"], "```", ""]
    return "\n".join(lines)


def load() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8")) if DATA.is_file() else {}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reproduce", action="store_true", help="time make reproduce (or --only entries)")
    parser.add_argument("--only", nargs="+", metavar="ENTRY", help="with --reproduce: these entries only")
    parser.add_argument("--external", choices=("cached", "rerun"), default="cached",
                        help="with --reproduce: external learners' rows from the external cache (default) or refitted")
    parser.add_argument("--quick", action="store_true", help="time make reproduce-quick")
    parser.add_argument("--tests", action="store_true", help="time make test and make test-fast")
    parser.add_argument("--learners", nargs="*", metavar="SCRIPT",
                        help="run the learners' benchmarks (these scripts only, if named)")
    parser.add_argument("--profile", action="store_true", help="profile make reproduce-quick (py-spy)")
    parser.add_argument("--render", action="store_true", help="only rewrite docs/speed.md from docs/speed.json")
    args = parser.parse_args(argv)
    if not (args.reproduce or args.quick or args.tests or args.profile or args.learners is not None or args.render):
        parser.error("say what to measure: --reproduce, --quick, --tests, --profile, --learners (or --render)")
    data = load()
    if args.quick:
        reproduce(data, quick=True, only=None)
    if args.reproduce:
        reproduce(data, quick=False, only=args.only, external=args.external)
    if args.tests:
        tests(data)
    if args.profile:
        run_profile(data)
    if args.learners is not None:
        unknown = sorted(name for name in args.learners if not chosen_entries([name]))
        if unknown:
            parser.error(f"--learners: unknown scripts {unknown}; choose from {LEARNER_BENCHMARKS}")
        learners(data, chosen_entries(args.learners) if args.learners else LEARNER_BENCHMARKS)
    DATA.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    PAGE.write_text(render(data) + "\n", encoding="utf-8")
    print(PAGE.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
