"""The tidy table helpers."""
import numpy as np
import pandas as pd
import pytest

from ordrank.results import collect, curve_records, finalize, flatten_config, main, summarize, write_table


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
    main(["collect", str(tmp_path), "-o", str(tmp_path / "all.parquet")])
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
