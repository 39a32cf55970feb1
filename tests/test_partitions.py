"""Tests of the ORCA / Chu benchmark partition loader: the real files, malformed files, redrawn splits, configs."""
import io
import re
import tarfile
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from hydra.utils import instantiate
from omegaconf import OmegaConf

from ordrank.datasets.partitions import CHU_KEERTHI, NAMES, BenchmarkData

CONF = Path(__file__).resolve().parents[1] / "conf"

# train rows, test rows, inputs — the same at 5 and 10 bins (PROVENANCE tables of the two folders)
ORCA = {"pyrim": (50, 24, 26), "machine": (150, 59, 6), "housing": (300, 206, 13), "abalone": (1000, 3177, 10),
        "stock": (600, 350, 9), "bank1": (50, 8142, 8), "bank2": (75, 8117, 32), "computer1": (100, 8092, 12),
        "computer2": (125, 8067, 21), "calhousing": (150, 20490, 8), "census1": (175, 22609, 8),
        "census2": (200, 22584, 16)}
CHU = {"pyrim": (50, 24, 27), "machine": (150, 59, 6), "housing": (300, 206, 13), "abalone": (1000, 3177, 10),
       "stock": (600, 350, 9)}


def rows(X, y):
    """Rows of [X, y] in lexicographic order: equal results = same multiset of rows."""
    table = np.column_stack([X, y])
    return table[np.lexsort(table.T[::-1])]


def check_split(split, bins, n_train, n_test, n_inputs):
    X_train, y_train, X_test, y_test = split
    assert X_train.shape == (n_train, n_inputs) and X_test.shape == (n_test, n_inputs)
    assert y_train.shape == (n_train,) and y_test.shape == (n_test,)
    assert X_train.dtype == X_test.dtype == np.float64 and y_train.dtype == y_test.dtype == np.int64
    for y in (y_train, y_test):
        assert y.min() >= 1 and y.max() <= bins


# --- the real files -----------------------------------------------------------------------------------

def test_names():
    assert set(CHU_KEERTHI) <= set(NAMES["orca"]) and set(NAMES["chu"]) <= set(NAMES["orca"])
    assert set(NAMES["orca"]) == set(ORCA) and set(NAMES["chu"]) == set(CHU)


@pytest.mark.parametrize("bins", [5, 10])
@pytest.mark.parametrize("name", list(ORCA))
def test_orca_first_and_last_partition(shared_data_dir, name, bins):
    data = BenchmarkData(name, bins, "orca", shared_data_dir)
    assert data.n_splits == 20 and data.n_ranks == bins and data.source_path.is_file()
    first, last = data.split(0), data.split(19)  # the files' .0/.19, or .1/.20 for bank1, computer1, census1
    for split in (first, last):
        check_split(split, bins, *ORCA[name])
    full = rows(np.vstack([first[0], first[2]]), np.concatenate([first[1], first[3]]))
    np.testing.assert_array_equal(full, rows(np.vstack([last[0], last[2]]), np.concatenate([last[1], last[3]])))
    counts = np.bincount(full[:, -1].astype(int), minlength=bins + 1)[1:]
    assert counts.max() - counts.min() <= 1  # equal-frequency bins
    np.testing.assert_array_equal(np.bincount(first[1], minlength=bins + 1),  # stratified training sets
                                  np.bincount(last[1], minlength=bins + 1))


@pytest.mark.parametrize("name, bins", [("pyrim", 10), ("bank1", 5)])  # a 0-based and a 1-based archive
def test_orca_all_partitions(shared_data_dir, name, bins):
    data = BenchmarkData(name, bins, "orca", shared_data_dir)
    splits = list(data.splits())
    assert len(splits) == 20
    full = rows(np.vstack([splits[0][0], splits[0][2]]), np.concatenate([splits[0][1], splits[0][3]]))
    for split in splits:
        check_split(split, bins, *ORCA[name])
        np.testing.assert_array_equal(rows(np.vstack([split[0], split[2]]), np.concatenate([split[1], split[3]])),
                                      full)
    assert any(not np.array_equal(splits[0][1], split[1]) or not np.array_equal(splits[0][0], split[0])
               for split in splits[1:])
    for i in (0, 7, 19):
        for got, want in zip(data.split(i), splits[i]):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("bins", [5, 10])
@pytest.mark.parametrize("name", list(CHU))
def test_chu_partitions(shared_data_dir, name, bins):
    data = BenchmarkData(name, bins, "chu", shared_data_dir)
    assert data.n_splits == 20 and data.source_path.is_dir()
    splits = list(data.splits())
    assert len(splits) == 20
    for split in splits:
        check_split(split, bins, *CHU[name])
    first, last = splits[0], splits[-1]
    np.testing.assert_array_equal(rows(np.vstack([first[0], first[2]]), np.concatenate([first[1], first[3]])),
                                  rows(np.vstack([last[0], last[2]]), np.concatenate([last[1], last[3]])))


def test_data_dir_from_environment(shared_data_dir, monkeypatch):
    monkeypatch.setenv("ORDRANK_DATA", str(shared_data_dir))
    assert BenchmarkData("machine", 5, "chu").split(0)[0].shape == (150, 6)


# --- redrawn splits -----------------------------------------------------------------------------------

def test_redraw_is_stratified_seeded_and_sized(shared_data_dir):
    spec = {"train_size": 5000, "n_splits": 3, "seed": 7}
    data = BenchmarkData("calhousing", 10, "orca", shared_data_dir, redraw=spec)
    assert data.n_splits == 3
    X0, y0, X1, y1 = BenchmarkData("calhousing", 10, "orca", shared_data_dir).split(0)
    full = rows(np.vstack([X0, X1]), np.concatenate([y0, y1]))
    class_sizes = np.bincount(full[:, -1].astype(int), minlength=11)[1:]
    splits = list(data.splits())
    assert len(splits) == 3
    for X_train, y_train, X_test, y_test in splits:
        check_split((X_train, y_train, X_test, y_test), 10, 5000, 15640, 8)
        np.testing.assert_array_equal(rows(np.vstack([X_train, X_test]), np.concatenate([y_train, y_test])), full)
        train_counts = np.bincount(y_train, minlength=11)[1:]
        assert np.all(np.abs(train_counts - 5000 * class_sizes / class_sizes.sum()) <= 1)
    assert not np.array_equal(splits[0][1], splits[1][1]) or not np.array_equal(splits[0][0], splits[1][0])
    again = BenchmarkData("calhousing", 10, "orca", shared_data_dir, redraw=dict(spec)).split(2)
    for got, want in zip(again, splits[2]):
        np.testing.assert_array_equal(got, want)
    other = BenchmarkData("calhousing", 10, "orca", shared_data_dir, redraw={**spec, "seed": 8}).split(2)
    assert not np.array_equal(other[0], splits[2][0])


def test_redraw_too_large_names_the_setting(tmp_path):
    make_orca(tmp_path)
    data = BenchmarkData("pyrim", 5, "orca", tmp_path, redraw={"train_size": 15, "n_splits": 2, "seed": 0})
    with pytest.raises(ValueError, match="dataset.redraw"):
        data.split(0)


# --- small written files: layout, validation and error messages ----------------------------------------

GOOD = [f"{0.1 * r:.5f} {-0.2 * r:.5f} {r % 5 + 1}" for r in range(10)]


def table(n, bad=None):
    """`n` good lines of 2 inputs and a rank 1..5; with `bad`, line 3 replaced by it."""
    lines = GOOD[:n]
    if bad is not None:
        lines[2] = bad
    return "\n".join(lines) + "\n"


def make_orca(root, name="pyrim", bins=5, replace=None, drop=()):
    """An ORCA-style archive of 20 partitions (10 train, 5 test rows) under `root`; returns its path."""
    stem = name + ("10" if bins == 10 else "") if name in NAMES["chu"] else f"{name}-{bins}"
    path = root / "orca-discretized-regression" / f"{bins}bins" / f"{stem}.tar.xz"
    path.parent.mkdir(parents=True, exist_ok=True)
    first = 1 if name in ("bank1", "computer1", "census1") else 0
    with tarfile.open(path, "w:xz") as tar:
        for k in range(first, first + 20):
            for kind, n in (("test", 5), ("train", 10)):
                member = f"{bins}bins/{stem}/matlab/{kind}_{stem}.{k}"
                if member not in drop:
                    data = (replace or {}).get(member, table(n)).encode()
                    info = tarfile.TarInfo(member)
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
    return path


def make_chu(root, replace=None, drop=()):
    """Chu-style machine CPU files, 5 bins, 20 partitions (10 train, 5 test rows); returns their folder."""
    folder = root / "chu-ghahramani-2005-ordinal" / "machinecpu" / "5bins"
    folder.mkdir(parents=True)
    for k in range(1, 21):
        for kind, n in (("train", 10), ("test", 5)):
            name = f"machine_{kind}_5.{k}"
            if name not in drop:
                (folder / name).write_text((replace or {}).get(name, table(n)))
    return folder


def test_small_archive_and_one_based_numbering(tmp_path):
    make_orca(tmp_path, "bank1", 10)
    data = BenchmarkData("bank1", 10, "orca", tmp_path)
    assert len(list(data.splits())) == 20
    X_train, y_train, X_test, y_test = data.split(19)
    np.testing.assert_allclose(X_train[:, 1], -0.2 * np.arange(10), atol=1e-12)
    np.testing.assert_array_equal(y_train, np.arange(10) % 5 + 1)
    assert X_test.shape == (5, 2)


BAD_LINES = [
    ("0.1 abc 2", "non-numeric field 'abc'"),
    ("0.1 0.2", "expected 3 fields"),
    ("0.1 0.2 0.3 2", "expected 3 fields"),
    ("0.1 nan 2", "NaN or infinite"),
    ("0.1 inf 2", "NaN or infinite"),
    ("0.1 0.2 0", "label '0' is not an integer rank in 1..5"),
    ("0.1 0.2 6", "label '6' is not an integer rank in 1..5"),
    ("0.1 0.2 2.5", "label '2.5' is not an integer rank in 1..5"),
]


@pytest.mark.parametrize("bad, reason", BAD_LINES)
def test_malformed_member_names_archive_member_and_line(tmp_path, bad, reason):
    member = "5bins/pyrim/matlab/train_pyrim.3"
    path = make_orca(tmp_path, replace={member: table(10, bad)})
    data = BenchmarkData("pyrim", 5, "orca", tmp_path)
    data.split(2)  # other partitions do not parse the bad member
    with pytest.raises(ValueError, match=re.escape(f"{path} member {member}, line 3: {reason}")):
        data.split(3)
    with pytest.raises(ValueError, match=re.escape(f"{member}, line 3")):
        list(data.splits())


@pytest.mark.parametrize("bad, reason", BAD_LINES)
def test_malformed_chu_file_names_file_and_line(tmp_path, bad, reason):
    folder = make_chu(tmp_path, replace={"machine_test_5.20": table(5, bad)})
    data = BenchmarkData("machine", 5, "chu", tmp_path)
    with pytest.raises(ValueError, match=re.escape(f"{folder / 'machine_test_5.20'}, line 3: {reason}")):
        data.split(19)


def test_blank_lines_are_skipped_but_counted(tmp_path):
    member = "5bins/pyrim/matlab/test_pyrim.0"
    make_orca(tmp_path, replace={member: f"{GOOD[0]}\n\n{GOOD[1]}\n0.1 x 1\n"})
    with pytest.raises(ValueError, match=re.escape(f"{member}, line 4: non-numeric field 'x'")):
        BenchmarkData("pyrim", 5, "orca", tmp_path).split(0)
    make_orca(tmp_path, "machine", replace={"5bins/machine/matlab/test_machine.0": f"{GOOD[0]}\n\n{GOOD[1]}\n"})
    assert BenchmarkData("machine", 5, "orca", tmp_path).split(0)[2].shape == (2, 2)


def test_empty_member_and_input_count_mismatch(tmp_path):
    make_orca(tmp_path, replace={"5bins/pyrim/matlab/test_pyrim.0": "",
                                 "5bins/pyrim/matlab/test_pyrim.1": "1.0 2\n"})
    data = BenchmarkData("pyrim", 5, "orca", tmp_path)
    with pytest.raises(ValueError, match=re.escape("test_pyrim.0 is empty")):
        data.split(0)
    with pytest.raises(ValueError, match="test_pyrim.1 has 1 inputs but .*train_pyrim.1 has 2"):
        data.split(1)


def test_missing_member_names_archive_and_member(tmp_path):
    member = "5bins/pyrim/matlab/test_pyrim.7"
    path = make_orca(tmp_path, drop={member})
    data = BenchmarkData("pyrim", 5, "orca", tmp_path)
    data.split(6)
    with pytest.raises(FileNotFoundError, match=re.escape(f"{path} has no member {member}")):
        data.split(7)
    with pytest.raises(FileNotFoundError, match=re.escape(member)):
        list(data.splits())


def test_missing_archive_or_file_fails_at_construction(tmp_path):
    expected = tmp_path / "orca-discretized-regression" / "10bins" / "census2-10.tar.xz"
    with pytest.raises(FileNotFoundError, match=re.escape(str(expected))) as error:
        BenchmarkData("census2", 10, "orca", tmp_path)
    message = str(error.value)
    assert "data_dir" in message and "ORDRANK_DATA" in message and "orreview" in message
    folder = make_chu(tmp_path, drop={"machine_train_5.12"})
    with pytest.raises(FileNotFoundError, match=re.escape(str(folder / "machine_train_5.12"))) as error:
        BenchmarkData("machine", 5, "chu", tmp_path)
    assert "ORDRANK_DATA" in str(error.value) and "chuwei" in str(error.value)


@pytest.mark.parametrize("kwargs, key", [
    ({"benchmark": "bank2", "source": "chu"}, "dataset.name"),
    ({"benchmark": "census"}, "dataset.name"),
    ({"benchmark": "pyrim", "bins": 7}, "dataset.bins"),
    ({"benchmark": "pyrim", "source": "uci"}, "dataset.source"),
    ({"benchmark": "pyrim", "redraw": {"train_size": 10}}, "dataset.redraw"),
    ({"benchmark": "pyrim", "redraw": {"train_size": 0, "n_splits": 2, "seed": 0}}, "dataset.redraw.train_size"),
    ({"benchmark": "pyrim", "redraw": {"train_size": 10, "n_splits": 2, "seed": -1}}, "dataset.redraw.seed"),
])
def test_bad_settings_name_the_config_key(tmp_path, kwargs, key):
    with pytest.raises(ValueError, match=re.escape(key)):
        BenchmarkData(**kwargs, data_dir=tmp_path)


def test_split_index_out_of_range(tmp_path):
    make_orca(tmp_path)
    data = BenchmarkData("pyrim", 5, "orca", tmp_path)
    for i in (-1, 20):
        with pytest.raises(IndexError, match=r"0\.\.19"):
            data.split(i)


# --- Hydra configs ------------------------------------------------------------------------------------

@pytest.mark.parametrize("config, source", [("orca", "orca"), ("chu", "chu")])
def test_configs_instantiate_like_the_app(shared_data_dir, config, source):
    overrides = [f"dataset={config}", "dataset.name=housing", "dataset.bins=5", f"data_dir={shared_data_dir}",
                 "dataset.redraw={train_size: 100, n_splits: 2, seed: 0}"]
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose("config", overrides=overrides)
    spec = OmegaConf.to_container(cfg.dataset, resolve=True)
    spec.pop("name")  # as ordrank.app.build does
    data = instantiate(spec, _convert_="all")
    assert (data.benchmark, data.bins, data.source, data.n_splits) == ("housing", 5, source, 2)
    check_split(data.split(1), 5, 100, 406, 13)
