"""Any partitioned folder or archive (ordrank.datasets.partition_folder): found without registration in
ORCA's matlab/ layout and Wei Chu's layout, odd stems, any partition count and rank count; bad files
named with their line; constant training columns dropped; end to end through ordrank.app.run and run.py."""
import os
import re
import subprocess
import sys
import tarfile
import zipfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ordrank.app import run
from ordrank.datasets.partition_folder import PartitionFolder, drop_constant, find_partitions
from ordrank.datasets.partitions import BenchmarkData

from conftest import REPO, make_cfg, write


def rows(n: int, ranks: int = 3, offset: int = 0, constant: bool = False) -> str:
    """``n`` rows of two inputs (three with a constant middle one) and a label cycling 1..ranks."""
    lines = []
    for r in range(n):
        inputs = [f"{0.5 * (r + offset):g}", *(["7"] if constant else []), f"{(r * 7 + offset) % 5:g}"]
        lines.append(" ".join([*inputs, str(r % ranks + 1)]))
    return "\n".join(lines) + "\n"


def orca_folder(root, stem="auto.data", n=30, first=0, ranks=3, replace=None, drop=()):
    """``<root>/<stem>/matlab/{train,test}_<stem>.<i>``, i = first..first+n-1 (12 train, 6 test rows)."""
    folder = root / "user" / "matlab"
    for i in range(first, first + n):
        for kind, size in (("train", 12), ("test", 6)):
            name = f"{kind}_{stem}.{i}"
            if name not in drop:
                write(folder / name, (replace or {}).get(name, rows(size, ranks, offset=i)))
    write(root / "user" / "README", "not a partition file\n")
    return root / "user"


def chu_folder(root, stem="diabetes.data.ord", n=30, bins=(3,), replace=None, drop=()):
    """``<root>/chu/<B>bins/<stem>_{train,test}_<B>.<k>``, k = 1..n, for each B in ``bins``."""
    for b in bins:
        for k in range(1, n + 1):
            for kind, size in (("train", 12), ("test", 6)):
                name = f"{stem}_{kind}_{b}.{k}"
                if name not in drop:
                    write(root / "chu" / f"{b}bins" / name, (replace or {}).get(name, rows(size, b, offset=k)))
    return root / "chu"


def pack(folder, path):
    """The files under ``folder`` in the archive ``path`` (tar of any compression by suffix, or zip)."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    if path.suffix == ".zip":
        with zipfile.ZipFile(path, "w") as archive:
            for p in files:
                archive.write(p, p.relative_to(folder.parent).as_posix())
    else:
        mode = {".xz": "w:xz", ".gz": "w:gz", ".tar": "w"}[path.suffix]
        with tarfile.open(path, mode) as tar:
            for p in files:
                tar.add(p, p.relative_to(folder.parent).as_posix())
    return path


def test_orca_layout_odd_stem_30_partitions_3_ranks(tmp_path):
    data = PartitionFolder(orca_folder(tmp_path))
    assert (data.n_splits, data.n_ranks, data.found.layout, data.found.stem) == (30, 3, "orca", "auto.data")
    X_train, y_train, X_test, y_test = data.split(29)  # files numbered 0..29: the last is train_auto.data.29
    np.testing.assert_array_equal(X_train[:, 0], 0.5 * (np.arange(12) + 29))
    np.testing.assert_array_equal(y_train, np.arange(12) % 3 + 1)
    assert X_test.shape == (6, 2) and y_test.dtype == np.int64
    assert len(list(data.splits())) == 30


def test_chu_layout_odd_stem_one_based_and_bins_choose_the_subfolder(tmp_path):
    folder = chu_folder(tmp_path, bins=(3, 10))
    with pytest.raises(ValueError, match=r"several partition sets.*3 bins.*10 bins.*dataset\.bins"):
        PartitionFolder(folder)
    data = PartitionFolder(folder, bins=3)
    assert (data.n_splits, data.n_ranks, data.found.stem) == (30, 3, "diabetes.data.ord")
    np.testing.assert_array_equal(data.split(0)[0][:, 0], 0.5 * (np.arange(12) + 1))  # file .1 is partition 0
    assert PartitionFolder(folder / "10bins").n_ranks == 10  # B from the file names
    with pytest.raises(ValueError, match="no partition set matches"):
        PartitionFolder(folder, bins=5)


@pytest.mark.parametrize("suffix", [".tar.xz", ".tar.gz", ".zip"])
def test_archive_reads_like_the_folder(tmp_path, suffix):
    folder = orca_folder(tmp_path, stem="auto")
    archive = pack(folder, tmp_path / f"auto{suffix}")
    packed, plain = PartitionFolder(archive), PartitionFolder(folder)
    assert packed.found.archive and packed.n_splits == 30
    for a, b in zip(packed.splits(), plain.splits()):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(packed.split(17)[2], plain.split(17)[2])


def test_relative_path_under_the_data_dir(tmp_path):
    orca_folder(tmp_path)
    assert PartitionFolder("user", data_dir=tmp_path).source == tmp_path / "user"


def test_constant_training_columns_are_dropped_from_train_and_test(tmp_path):
    train = rows(12, constant=True)
    test = "1 9 3 2\n2 7 1 1\n"  # the test part differs in the constant column: dropped all the same
    folder = orca_folder(tmp_path, n=2, replace={"train_auto.data.1": train, "test_auto.data.1": test})
    X_train, _, X_test, _ = PartitionFolder(folder).split(1)
    np.testing.assert_array_equal(X_test, [[1, 3], [2, 1]])
    assert X_train.shape == (12, 2) and not (X_train == 7).all(axis=0).any()
    only = "\n".join(f"5 {r % 2 + 1}" for r in range(12))
    with pytest.raises(ValueError, match=re.escape("train_auto.data.0: every input column is constant")):
        PartitionFolder(orca_folder(tmp_path / "b", n=1, replace={"train_auto.data.0": only,
                                                                  "test_auto.data.0": "1 1\n"})).split(0)


def test_ranks_inferred_from_the_first_partition_and_checked_in_the_others(tmp_path):
    folder = orca_folder(tmp_path, n=3, replace={"test_auto.data.2": rows(6, 4)})
    data = PartitionFolder(folder)
    assert data.n_ranks == 3
    with pytest.raises(ValueError, match=r"test_auto\.data\.2, line 4: label '4' is not an integer rank in "
                                         r"1\.\.3: .*largest label of the first partition"):
        data.split(2)
    assert PartitionFolder(folder, bins=3).n_ranks == 3
    with pytest.raises(ValueError, match=r"dataset\.bins=10, but the labels of the first partition .* run up "
                                         r"to 3: set dataset\.bins=null"):
        PartitionFolder(folder, bins=10)


def test_an_experiments_bins_cannot_silently_set_the_ranks(tmp_path):
    """svor_benchmark sets dataset.bins: 10 and dataset.name: pyrim; dataset=partitions inherits them."""
    from ordrank.app import build

    folder = orca_folder(tmp_path, n=2)
    overrides = ["+experiment=svor_benchmark", "+quick=svor_benchmark", "dataset=partitions", f"dataset.path={folder}"]
    with pytest.raises(ValueError, match=r"dataset\.bins=10, but the labels .* run up to 3"):
        build(make_cfg(overrides))
    parts = build(make_cfg([*overrides, "dataset.bins=null", "dataset.name=auto"]))
    assert parts["dataset"].n_ranks == 3


def test_numbering_with_a_gap_and_a_folder_without_partitions(tmp_path):
    folder = orca_folder(tmp_path, n=4, drop=("train_auto.data.2", "test_auto.data.2"))
    with pytest.raises(ValueError, match=r"numbered \[0, 1, 3\].*without gaps"):
        PartitionFolder(folder)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no partition files found"):
        find_partitions(tmp_path / "empty")


def test_real_chu_folder_equals_the_named_reader(shared_data_dir):
    """Wei Chu's pyrimidines (stem `pyrim`, not the folder's name) found by the folder reader alone."""
    found = PartitionFolder("chu-ghahramani-2005-ordinal/pyrimidines", data_dir=shared_data_dir, bins=10)
    named = BenchmarkData("pyrim", 10, "chu", shared_data_dir, drop_constant=True)
    assert (found.n_splits, found.n_ranks, found.found.stem) == (20, 10, "pyrim")
    for i in (0, 19):
        for a, b in zip(found.split(i), named.split(i)):
            np.testing.assert_array_equal(a, b)
    assert found.split(0)[0].shape[1] == 26  # 27 inputs, one constant over the data set


def test_drop_constant_is_off_for_the_named_sets_and_changes_only_constant_columns(shared_data_dir):
    """svor_benchmark's inputs stay as committed; ORCA's pyrim has training-constant columns."""
    kept, dropped = (BenchmarkData("pyrim", 10, "orca", shared_data_dir, drop_constant=d) for d in (False, True))
    X_train, _, X_test, _ = kept.split(0)
    assert X_train.shape[1] == 26 and (np.ptp(X_train, axis=0) == 0).sum() == 2
    keep = np.ptp(X_train, axis=0) > 0
    np.testing.assert_array_equal(dropped.split(0)[0], X_train[:, keep])
    np.testing.assert_array_equal(dropped.split(0)[2], X_test[:, keep])
    with pytest.raises(ValueError, match="drop_constant"):
        BenchmarkData("pyrim", 10, "orca", shared_data_dir, drop_constant="yes")


TINY = ["protocol=partitions", "features=standardize", "+algorithm@algorithms.PRank=prank",
        "protocol.splits=[0,29]", "protocol.cv_folds=2", "+protocol.grids.PRank.n_epochs=[1,2]"]


def test_end_to_end_through_the_app(tmp_path):
    folder = orca_folder(tmp_path)
    cfg = make_cfg(["dataset=partitions", f"dataset.path={folder}", "dataset.name=auto", *TINY])
    table = pd.read_parquet(run(cfg, tmp_path / "out"))
    assert set(table["split"]) == {0, 29} and set(table["bins"]) == {3}
    assert set(table["dataset"]) == {"auto"} and table["status"].eq("ok").all()
    mae = table.loc[table["metric"] == "mae", "value"]
    assert len(mae) == 2 and mae.between(0, 2).all()


def test_end_to_end_through_run_py_on_a_chu_archive(tmp_path):
    archive = pack(chu_folder(tmp_path, stem="auto.data"), tmp_path / "auto.tar.gz")
    cmd = [sys.executable, "run.py", "dataset=partitions", f"dataset.path={archive}", "dataset.name=auto",
           *TINY, f"hydra.run.dir={tmp_path / 'run'}"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert done.returncode == 0, done.stderr[-2000:]
    table = pd.read_parquet(tmp_path / "run" / "results.parquet")
    assert set(table["split"]) == {0, 29} and set(table["bins"]) == {3}
    bad = subprocess.run([*cmd[:2], "dataset=partitions", f"dataset.path={tmp_path / 'nowhere'}", *TINY],
                         cwd=REPO, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert bad.returncode == 2 and "partition folder or archive not found" in bad.stderr


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 8), st.integers(1, 6), st.data())
def test_drop_constant_keeps_exactly_the_varying_training_columns(n, d, data):
    X_train = np.array(data.draw(st.lists(st.lists(st.sampled_from([0.0, 1.0, -2.5]), min_size=d, max_size=d),
                                          min_size=n, max_size=n)))
    X_test = X_train[::-1] + 1.0
    varying = np.ptp(X_train, axis=0) > 0
    if not varying.any():
        with pytest.raises(ValueError, match="every input column is constant"):
            drop_constant(X_train, X_test, "here")
        return
    kept_train, kept_test = drop_constant(X_train, X_test, "here")
    np.testing.assert_array_equal(kept_train, X_train[:, varying])
    np.testing.assert_array_equal(kept_test, X_test[:, varying])
