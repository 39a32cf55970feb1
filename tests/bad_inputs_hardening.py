"""Bad inputs that gave silent wrong results, crashes or lost work, each a
clear error (rows of the bad-input table, see tests/test_bad_inputs.py)."""
from __future__ import annotations

from ordrank.algorithms._ordinal import Diverged

from conftest import Case
from test_bad_inputs import ExitStatus, app_run, run_py

CASES = [
    Case("wh-grows-run", "`only=WH algorithms.WH.eta=1.0` (2,000 rounds): the error grows geometrically "
         "but takes ~2,000 rounds to overflow", Diverged,
         r"^WidrowHoff\(eta=1\.0\) diverged: its error \|y − w·x\| grew to \S+ ranks \(past 1e\+06; "
         r"each update multiplies it by \|1 − η‖x‖²\|.*eta=1\.0 is stable only below 2/‖x‖²",
         app_run("only=WH", "algorithms.WH.eta=1.0", "protocol.n_rounds=2000", checked_first=False)),
]

QUICK = ["+experiment=svor_benchmark", "+quick=svor_benchmark", "dataset.name=pyrim", "protocol.splits=0"]
CASES += [
    Case("grid-value-invalid", "`+experiment=svor_benchmark +quick=svor_benchmark "
         "+protocol.grids.PRank={n_epochs:[0,1]}` (the bad point was dropped silently)", ValueError,
         r"^protocol\.grids\.PRank: the grid value n_epochs=0 is not valid: The 'n_epochs' parameter of "
         r"PRank must be an int in the range \[1, inf\)\. Got 0 instead",
         app_run("only=PRank", "+protocol.grids.PRank={n_epochs:[0,1]}", base=QUICK)),
    Case("grid-only-invalid", "`+protocol.grids.PRank={n_epochs:[0]}` (wrote 'failed' rows, exit 0)",
         ValueError, r"^protocol\.grids\.PRank: the grid value n_epochs=0 is not valid",
         app_run("only=PRank", "+protocol.grids.PRank={n_epochs:[0]}", base=QUICK)),
    Case("grid-nested-invalid", "`protocol.grids.Reduction-tree={estimator__min_samples_leaf:[0]}`",
         ValueError, r"^protocol\.grids\.Reduction-tree: the grid value estimator__min_samples_leaf=0 is "
         r"not valid: .*min_samples_leaf",
         app_run("only=Reduction-tree", "protocol.grids.Reduction-tree={estimator__min_samples_leaf:[0]}",
                 base=QUICK)),
    Case("splits-repeated", "`protocol.splits=[0,0]` (wrote every row twice)", ValueError,
         r"^protocol\.splits=\[0, 0\] names partition\(s\) \[0\] more than once; list each partition once",
         app_run("only=PRank", "protocol.splits=[0,0]", base=QUICK[:2])),
]
CASES += [
    Case("misspelled-plus-key", "`+protcol.n_rounds=50` (was ignored: the run used protocol.n_rounds)",
         ValueError, r"^'protcol' is not a setting: nothing reads it \(did you mean 'protocol'\? ",
         app_run("+protcol.n_rounds=50")),
    Case("cli-misspelled-plus-key", "`python run.py +experiment=prank_synthetic +sed=3`", ExitStatus,
         r"^exit 2: error: 'sed' is not a setting: nothing reads it \(did you mean 'seed'\? ",
         run_py("+sed=3")),
]


def python_m(module: str, *args: str):
    """A trigger: ``python -m <module> args`` (``{tmp}``, ``{repo}`` in an argument: the temporary
    folder, the repository) in a subprocess run in the temporary folder; raise ExitStatus unless it
    succeeds, after checking stderr is one line. ``module=None``: ``python args``."""
    import os
    import subprocess
    import sys

    from conftest import REPO

    def trigger(tmp):
        command = [sys.executable, *(["-m", module] if module else []),
                   *(a.format(tmp=tmp, repo=REPO) for a in args)]
        env = {k: v for k, v in os.environ.items() if k != "ORDRANK_DEBUG"}
        done = subprocess.run(command, cwd=tmp, capture_output=True, text=True, timeout=120, env=env)
        if done.returncode:
            assert len(done.stderr.strip().splitlines()) == 1, done.stderr
            raise ExitStatus(f"exit {done.returncode}: {done.stderr.strip()}")
        return done
    return trigger


def curves(tmp, job: int, overrides=()):
    """A finished job folder ``<tmp>/sweep/<job>`` holding a 4-row curve table of config job=<job>."""
    import numpy as np

    from ordrank.results import curve_records, finalize, write_table

    folder = tmp / "sweep" / f"job{job}"
    (folder / ".hydra").mkdir(parents=True)
    (folder / ".hydra" / "overrides.yaml").write_text("".join(f"- {o}\n" for o in overrides))
    table = finalize(curve_records(np.zeros((2, 2)), [1, 2], algorithm="A", metric="m"), "e", "d",
                     {"job": job if job < 2 else 0})
    write_table(table, folder / "results.parquet")
    (folder / "FINISHED").write_text("x\n")
    return folder / "results.parquet"


def no_metric(tmp):
    import pandas as pd

    from ordrank.results import collect

    path = curves(tmp, 0)
    pd.read_parquet(path).drop(columns="metric").to_parquet(path)
    return collect([path])


def duplicated(tmp):
    from ordrank.results import collect

    return collect([curves(tmp, 0, ["seed=0"]), curves(tmp, 2, ["seed=0", "only=A"])])


def collect_into_folder(tmp):
    curves(tmp, 0)
    (tmp / "out").mkdir()
    return python_m("ordrank.results", "collect", "{tmp}/sweep", "-o", "{tmp}/out")(tmp)


CASES += [
    Case("collect-no-metric", "`collect` of a table without its `metric` column (merged into NaN "
         "metrics, exit 0)", ValueError,
         r"^<tmp>/sweep/job0/results\.parquet is not a results table: it lacks the column\(s\) "
         r"\['metric'\] .*leave it out of the folder collected", no_metric),
    Case("collect-duplicates", "`collect` of two jobs giving the same rows (the same sweep point run "
         "twice)", ValueError,
         r"^8 rows occur more than once \(same key columns and config\) among 2 tables: they come from "
         r"<tmp>/sweep/job0/results\.parquet \(seed=0\); <tmp>/sweep/job2/results\.parquet \(seed=0 only=A\)\. "
         r"Keep one run of each: move the older job folder out .*\(hydra\.sweep\.dir=multirun/<new name>",
         duplicated),
    Case("collect-out-folder", "`python -m ordrank.results collect <sweep> -o <a folder>`", ExitStatus,
         r"^exit 2: error: -o <tmp>/out must be a table file ending in \.parquet or \.csv \(it is a "
         r"folder\)$", collect_into_folder),
    Case("plot-missing-results", "`python experiments/plot_figure4.py --results <a missing folder>` "
         "(exit 0, nothing drawn)", ExitStatus,
         r"^exit 2: error: --results <tmp>/nowhere is not a folder \(the results tables are read from it",
         python_m(None, "{repo}/experiments/plot_figure4.py", "--results", "{tmp}/nowhere", "--figures",
                  "{tmp}/figures")),
    Case("plot-no-tables", "`python experiments/plot_figure4.py --results <an empty folder>`", ExitStatus,
         r"^exit 1: error: no figure drawn: <tmp> holds none of the tables listed above$",
         python_m(None, "{repo}/experiments/plot_figure4.py", "--results", "{tmp}", "--figures",
                  "{tmp}/figures")),
]


def orca_archive(cut=None, content=None):
    """A trigger: open pyrim (5 bins) from a small ORCA-layout archive cut to ``cut`` of its bytes,
    or holding ``content`` instead."""
    from ordrank.datasets.registry import pack_tar_xz
    from ordrank.datasets.partitions import BenchmarkData

    def trigger(tmp):
        rows = "".join(f"{i / 10} {1 + i % 5}\n" for i in range(60))
        names = [f"5bins/pyrim/matlab/{kind}_pyrim.{k}" for kind in ("train", "test") for k in range(20)]
        for name in names:
            (tmp / "files" / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / "files" / name).write_text(rows)
        archive = tmp / "data" / "orca-discretized-regression" / "5bins" / "pyrim.tar.xz"
        pack_tar_xz(tmp / "files", names, archive)
        data = archive.read_bytes()
        archive.write_bytes(content if content is not None else data[: int(len(data) * cut)])
        return BenchmarkData("pyrim", 5, "orca", tmp / "data")
    return trigger


ORCA_DAMAGED = (r"^ORCA archive <tmp>/data/orca-discretized-regression/5bins/pyrim\.tar\.xz {}: it is truncated "
                r"or damaged \(sha256 \w+…, pinned 2de4bb424133104b…\); fetch it again with: "
                r"python -m ordrank\.data fetch orca --data-dir <tmp>/data$")
CASES += [
    Case("orca-truncated-half", "an ORCA archive (`pyrim.tar.xz`) cut at 50 % (was a raw EOFError)",
         ValueError, ORCA_DAMAGED.format(r"cannot be read \(EOFError: .*\)"), orca_archive(cut=0.5)),
    Case("orca-truncated-90", "an ORCA archive cut at 90 %", ValueError,
         ORCA_DAMAGED.format(r"cannot be read \(\w+: .*\)"), orca_archive(cut=0.9)),
    Case("orca-empty", "an empty ORCA archive (was tarfile.ReadError)", ValueError,
         ORCA_DAMAGED.format("is empty"), orca_archive(content=b"")),
    Case("orca-random-bytes", "an ORCA archive of random bytes", ValueError,
         ORCA_DAMAGED.format(r"cannot be read \(ReadError: .*\)"),
         orca_archive(content=bytes(range(256)) * 40)),
]
CASES += [
    Case("fetch-into-a-file", "`python -m ordrank.data fetch uci-abalone --data-dir <a file>` (was "
         "FileExistsError)", ExitStatus,
         r"^exit 1: error: data directory <tmp>/file cannot be used: <tmp>/file is a file, not a folder; "
         r"choose another with --data-dir or ORDRANK_DATA$",
         lambda tmp: (tmp / "file").touch() or python_m("ordrank.data", "fetch", "uci-abalone", "--data-dir",
                                                       "{tmp}/file")(tmp)),
    Case("fetch-read-only", "`python -m ordrank.data fetch uci-abalone --data-dir /proc/ordrank-data` "
         "(a folder nothing can be written in, even as root; was PermissionError)", ExitStatus,
         r"^exit 1: error: data directory /proc/ordrank-data is not writable \(a probe file could not be "
         r"written: .*\); choose another with --data-dir or ORDRANK_DATA$",
         python_m("ordrank.data", "fetch", "uci-abalone", "--data-dir", "/proc/ordrank-data")),
    Case("results-dir-proc", "`publish=true results_dir=/proc/ordrank-results` (passed the os.access "
         "check as root, failed after the run)", ValueError,
         r"^results_dir=/proc/ordrank-results cannot be created \(/proc is not writable\): a probe file "
         r"could not be written there", app_run("publish=true", "results_dir=/proc/ordrank-results")),
]


def huge_inputs(name):
    """A trigger: ``ordrank.algorithms.<name>().fit(X * 1e200, y)`` (finite X whose kernel overflows)."""
    def trigger(tmp):
        import numpy as np

        import ordrank.algorithms

        rng = np.random.default_rng(0)
        return getattr(ordrank.algorithms, name)().fit(rng.normal(size=(60, 3)) * 1e200, rng.integers(1, 4, 60))
    return trigger


CASES += [
    Case("reduction-svm-huge-inputs", "`ReductionSVM().fit(X * 1e200, y)` (was SVC's \"Input X contains "
         "NaN\" of a finite X)", ValueError,
         r"^ReductionSVM\(\): the 'rbf' kernel is NaN or infinite on these inputs \(finite, up to "
         r"\|x\| = \S+e\+200, but their squared norms or distances overflow float64\); scale the inputs",
         huge_inputs("ReductionSVM")),
    Case("only-empty", "`only=[]` (was pandas' \"No objects to concatenate\")", ValueError,
         r"^only=\[\] names no algorithm: give one or more of \['PRank', 'WH'\], or leave only unset "
         r"\(null\) to run them all", app_run("only=[]")),
]
CASES += [
    Case("import-missing-path", "`python -m ordrank.data import orca <a missing path>`", ExitStatus,
         r"^exit 1: error: orca: <tmp>/nowhere not found \(give a folder or an archive holding the set\)$",
         python_m("ordrank.data", "import", "orca", "{tmp}/nowhere", "--data-dir", "{tmp}/data")),
    Case("import-wrong-folder", "`python -m ordrank.data import uci-abalone <a folder without it>`",
         ExitStatus,
         r"^exit 1: error: uci-abalone: <tmp>/empty holds neither the installed layout \(e\.g\. "
         r"uci-abalone/abalone\.data, every checked file present\) nor every upstream file",
         lambda tmp: (tmp / "empty").mkdir() or python_m("ordrank.data", "import", "uci-abalone",
                                                        "{tmp}/empty", "--data-dir", "{tmp}/data")(tmp)),
    Case("import-not-an-archive", "`python -m ordrank.data import orca <a file of random bytes>`",
         ExitStatus,
         r"^exit 1: error: orca: <tmp>/copy\.tar\.xz is not a folder nor an archive that can be unpacked "
         r"\(ReadError: file could not be opened successfully: - method gz: .*\)$",
         lambda tmp: python_m("ordrank.data", "import", "orca", "{tmp}/copy.tar.xz", "--data-dir",
                              "{tmp}/data")(tmp if (tmp / "copy.tar.xz").write_bytes(bytes(range(256)) * 8)
                                            else None)),
]


CASES += [
    Case("svor-huge-inputs", "`SVOR().fit(X * 1e200, y)` (was cvxpy's \"Problem data contains NaN or Inf\" of "
         "a finite X)", ValueError,
         r"^SVOR\(\): the 'rbf' kernel is NaN or infinite on these inputs \(finite, up to "
         r"\|x\| = \S+e\+200, but their squared norms or distances overflow float64\); scale the inputs",
         huge_inputs("SVOR")),
]
