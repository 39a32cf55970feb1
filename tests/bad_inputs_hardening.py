"""Bad inputs of issue 16: the last silent-wrong results, crashes and lost-work cases, each now a
clear error (rows of the bad-input table, see tests/test_bad_inputs.py)."""
from __future__ import annotations

from ordrank.algorithms._ordinal import Diverged

from conftest import Case
from test_bad_inputs import app_run

CASES = [
    Case("wh-grows-run", "`only=WH algorithms.WH.eta=1.0` (2,000 rounds): the error grows geometrically "
         "but takes ~2,000 rounds to overflow", Diverged,
         r"^WidrowHoff\(eta=1\.0\) diverged: its error \|y − w·x\| grew to \S+ ranks \(past 1e\+06; "
         r"each update multiplies it by \|1 − η‖x‖²\|.*eta=1\.0 is stable only below 2/‖x‖²",
         app_run("only=WH", "algorithms.WH.eta=1.0", "protocol.n_rounds=2000", checked_first=False)),
]
