"""Bad inputs of issue 16: the last silent-wrong results, crashes and lost-work cases, each now a
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

QUICK = ["+experiment=svor_benchmark_quick", "dataset.name=pyrim", "protocol.splits=0"]
CASES += [
    Case("grid-value-invalid", "`+experiment=svor_benchmark_quick +protocol.grids.PRank={n_epochs:[0,1]}` "
         "(the bad point was dropped silently)", ValueError,
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
