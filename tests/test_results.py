"""The tidy table helpers."""
import numpy as np
import pandas as pd
import pytest

from ordrank.results import (collect, curve_records, finalize, flatten_config, main, summarize, write_error,
                             write_table)


def test_curve_records_is_long():
    table = curve_records(np.array([[1.0, 2.0], [3.0, 4.0]]), [10, 20], algorithm="A", metric="m")
    assert table[["seed", "step", "value"]].values.tolist() == [[0, 10, 1], [0, 20, 2], [1, 10, 3], [1, 20, 4]]
    assert set(table.algorithm) == {"A"}


def test_flatten_config():
    flat = flatten_config({"a": {"b": 1, "c": [1, 2]}, "d": None})
    assert flat == {"config.a.b": 1, "config.a.c": "[1, 2]", "config.d": "null"}


def test_finalize_requires_schema():
    with pytest.raises(ValueError, match="lacks required columns"):
        finalize(pd.DataFrame({"seed": [0]}), "e", "d", {})


def test_atomic_write_keeps_old_table_on_failure(tmp_path):
    path = write_table(pd.DataFrame({"x": [1]}), tmp_path / "t.parquet")
    with pytest.raises(ValueError, match="unknown table format"):
        write_table(pd.DataFrame({"x": [2]}), tmp_path / "t.xlsx")
    assert pd.read_parquet(path).x.tolist() == [1]
    assert [p.name for p in tmp_path.iterdir()] == ["t.parquet"]  # no temp files left behind


def test_collect_cli_and_summary(tmp_path):
    for job in range(2):
        table = curve_records(np.full((3, 2), float(job)), [1, 2], algorithm=f"A{job}", metric="m")
        write_table(finalize(table, "e", "d", {"job": job}), tmp_path / str(job) / "results.parquet")
    assert main(["collect", str(tmp_path), "-o", str(tmp_path / "all.parquet")]) == 0
    both = collect([tmp_path / "all.parquet"])
    assert len(both) == 12 and set(both["config.job"]) == {0, 1}
    summary = summarize(both)
    assert summary["n"].tolist() == [3] * 4 and summary["sem"].tolist() == [0.0] * 4


def test_partition_keys_and_publish_byte_for_byte(tmp_path):
    from ordrank.results import key_columns, publish

    table = pd.DataFrame({"algorithm": ["B", "A"], "bins": [10, 10], "split": [1, 0],
                          "metric": ["mae", "mae"], "value": [0.5, 0.25], "status": ["ok", "ok"]})
    done = finalize(table, "e", "d", {"x": 1}, keys=("bins", "split"))
    assert done.columns[:8].tolist() == ["experiment", "dataset", "algorithm", "bins", "split",
                                         "metric", "value", "status"]
    assert done.algorithm.tolist() == ["A", "B"] and "step" not in done
    assert key_columns(done) == ["experiment", "dataset", "algorithm", "bins", "split", "metric"]
    path = write_table(done, tmp_path / "run" / "results.parquet")
    target = publish(path, tmp_path / "results", "e", "d")
    assert target == tmp_path / "results" / "e" / "d.parquet"
    assert target.read_bytes() == path.read_bytes()


def write_job(folder, job, state="finished", overrides=()):
    """A Hydra job folder as app.run leaves it: a finished table, an ERROR, or (killed) nothing."""
    (folder / ".hydra").mkdir(parents=True)
    (folder / ".hydra" / "overrides.yaml").write_text("".join(f"- {o}\n" for o in overrides))
    table = finalize(curve_records(np.full((2, 2), float(job)), [1, 2], algorithm="A", metric="m"),
                     "e", "d", {"job": job})
    if state == "finished":
        write_table(table, folder / "results.parquet")
        (folder / "FINISHED").write_text("config hash\n")
    elif state == "failed":
        write_table(table, folder / "results.partial.parquet")
        write_error(folder, ValueError("bad value\n on two lines"), list(overrides), "kept: 4 rows")


def test_collect_reports_failed_and_missing_jobs_and_exits_non_zero(tmp_path, capsys):
    sweep = tmp_path / "sweep"
    write_job(sweep / "seed=0", 0, overrides=["seed=0"])
    write_job(sweep / "seed=1", 1, "failed", overrides=["seed=1"])
    write_job(sweep / "seed=2", 2, "killed", overrides=["seed=2"])
    (sweep / "multirun.yaml").write_text(
        "hydra:\n  sweeper:\n    _target_: hydra._internal.core_plugins.basic_sweeper.BasicSweeper\n"
        "    params:\n      seed: 0,1,2,3\n  overrides:\n    task: []\n")
    out = tmp_path / "all.parquet"
    assert main(["collect", str(sweep), "-o", str(out)]) == 1
    report = capsys.readouterr().err
    assert "failed jobs (1):" in report and "ValueError: bad value on two lines; 4 rows of finished " \
        "pieces kept in results.partial.parquet" in report
    assert "missing jobs (2):" in report and "seed=2: no finished table and no ERROR" in report
    assert "seed=3: job #3 of" in report and "never started" in report
    assert "1 failed and 2 missing of 4 jobs" in report
    assert pd.read_parquet(out)["config.job"].tolist() == [0, 0, 0, 0]  # only what finished
    error = (sweep / "seed=1" / "ERROR").read_text().splitlines()
    assert error[:3] == ["ValueError: bad value on two lines", "overrides: seed=1", "kept: 4 rows"]


def test_collect_refuses_duplicate_rows(tmp_path, capsys):
    write_job(tmp_path / "sweep" / "a", 0)
    write_job(tmp_path / "sweep" / "copy_of_a", 0)
    write_job(tmp_path / "sweep" / "b", 1)  # same keys, other config: another sweep point, kept
    out = tmp_path / "all.parquet"
    assert main(["collect", str(tmp_path / "sweep"), "-o", str(out)]) == 2
    assert "rows occur more than once" in capsys.readouterr().err and not out.exists()
    with pytest.raises(ValueError, match="8 rows occur more than once"):
        collect(sorted((tmp_path / "sweep").rglob("results.parquet")))
    assert len(collect([tmp_path / "sweep" / p / "results.parquet" for p in ("a", "b")])) == 8


def test_collect_adds_new_sweeps_to_a_merged_table(tmp_path, capsys):
    """A table already merged (e.g. the committed one) and new sweep folders merge into one; the
    output may be one of the sources; a source that is neither a folder nor a table is refused."""
    from ordrank.results import timings_path

    write_job(tmp_path / "old" / "seed=0", 0)
    write_job(tmp_path / "new" / "seed=1", 1)
    write_job(tmp_path / "other" / "seed=2", 2)
    merged = tmp_path / "results" / "all.parquet"
    assert main(["collect", str(tmp_path / "old"), "-o", str(merged)]) == 0
    timings = finalize(curve_records(np.ones((1, 1)), [1], algorithm="A", metric="fit_seconds"), "e", "d", {})
    write_table(timings, timings_path(merged))
    assert main(["collect", str(merged), str(tmp_path / "new"), str(tmp_path / "other"), "-o", str(merged)]) == 0
    assert "of 2 jobs and 1 table file(s)" in capsys.readouterr().out
    assert sorted(set(pd.read_parquet(merged)["config.job"])) == [0, 1, 2]
    assert pd.read_parquet(timings_path(merged)).metric.tolist() == ["fit_seconds"]  # carried along
    assert main(["collect", str(merged), str(tmp_path / "new"), "-o", str(tmp_path / "twice.parquet")]) == 2
    assert "rows occur more than once" in capsys.readouterr().err  # seed=1 is in both
    (tmp_path / "notes.txt").write_text("x")
    assert main(["collect", str(tmp_path / "notes.txt"), "-o", str(tmp_path / "x.parquet")]) == 2
    assert "notes.txt is neither a folder nor a .parquet / .csv table" in capsys.readouterr().err


def test_expected_jobs_expand_params_and_command_line(tmp_path):
    from ordrank.results import expected_jobs

    (tmp_path / "multirun.yaml").write_text(
        "hydra:\n  sweeper:\n    _target_: hydra._internal.core_plugins.basic_sweeper.BasicSweeper\n"
        "    params:\n      dataset.name: pyrim,machine\n      protocol.splits: range(2)\n"
        "  overrides:\n    task: ['+experiment=x', 'protocol.splits=5', 'only=[A,B]']\n")
    jobs = expected_jobs(tmp_path)
    assert jobs == [["dataset.name=pyrim", "protocol.splits=5", "+experiment=x", "only=[A,B]"],
                    ["dataset.name=machine", "protocol.splits=5", "+experiment=x", "only=[A,B]"]]
    assert expected_jobs(tmp_path / "nowhere") is None


def test_progress_switch(monkeypatch, capsys):
    from ordrank.progress import progress

    monkeypatch.setenv("ORDRANK_PROGRESS", "1")  # on, although pytest's stderr is not a terminal
    with progress(2, "pieces") as bar:
        bar.update(2)
        bar.refresh()
    shown = capsys.readouterr().err
    assert "pieces: 100%" in shown and "2/2" in shown
    monkeypatch.setenv("ORDRANK_PROGRESS", "0")
    with progress(2, "pieces") as bar:
        bar.update(2)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("ORDRANK_PROGRESS", "yes")
    with pytest.raises(ValueError, match="ORDRANK_PROGRESS must be one of"):
        progress(2, "pieces")


def keyed_table(keys: dict, config=None):
    """A finalized table of one row per metric with the protocol ``keys`` {name: value}."""
    table = pd.DataFrame({"algorithm": ["A", "A"], **{k: [v, v] for k, v in keys.items()},
                          "metric": ["m1", "m2"], "value": [0.5, 0.25]})
    return finalize(table, "e", "d", config or {"x": 1}, keys=tuple(keys))


def test_protocol_keys_come_from_the_table_layout_not_a_global_list(tmp_path):
    """A protocol with keys no list names (``fold``, ``query``) is keyed right, with no edit here."""
    from ordrank.results import key_columns, protocol_keys

    table = keyed_table({"fold": 1, "query": 7})
    assert protocol_keys(table) == ["fold", "query"]
    assert key_columns(table) == ["experiment", "dataset", "algorithm", "fold", "query", "metric"]
    with pytest.raises(ValueError, match="not a results table"):
        protocol_keys(table[["metric", "value", "algorithm"]])


def test_duplicate_check_with_new_protocol_keys(tmp_path):
    paths = [write_table(keyed_table({"fold": f}), tmp_path / f"{i}.parquet")
             for i, f in enumerate([0, 1, 1])]
    assert len(collect(paths[:2])) == 4  # fold 0 and fold 1 differ only in the new key: kept
    with pytest.raises(ValueError, match="4 rows occur more than once"):
        collect(paths[1:])  # the same fold twice, same config: refused


def test_collect_tables_of_different_protocols_keeps_each_key(tmp_path):
    online = write_table(keyed_table({"seed": 0, "step": 1}), tmp_path / "online.parquet")
    ranking = write_table(keyed_table({"fold": 0, "query": 3}), tmp_path / "ranking.parquet")
    ranking2 = write_table(keyed_table({"fold": 0, "query": 4}), tmp_path / "ranking2.parquet")
    both = collect([online, ranking, ranking2])
    assert both.columns[:9].tolist() == ["experiment", "dataset", "algorithm", "seed", "step", "fold",
                                         "query", "metric", "value"]
    assert len(both) == 6
    with pytest.raises(ValueError, match="occur more than once"):
        collect([online, ranking, ranking])
