"""LETOR loader: SVMlight ranking lines, the three fold layouts, errors naming file and line, real OHSUMED."""
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import dump_svmlight_file

from ordrank.app import build
from ordrank.datasets import letor
from ordrank.datasets.letor import LetorData, LetorFormatError, find_layout, letor_folds, load_letor

from conftest import make_cfg, write

TINY = ("2 qid:7 1:0.5 2:1 3:0 #docid = d1\n"
        "0 qid:7 1:0.25 3:2 #docid = d2 inc = 1 prob = 0.5\n"
        "\n"
        "# a comment line\n"
        "1 qid:3 2:-1.5e-1 #docid = GX01-2\n")


def lines(qid: int, n: int = 2, features: int = 3, label=lambda i: i % 3) -> str:
    """`n` documents of query `qid`, every feature written (as LETOR files do)."""
    return "".join(f"{label(i)} qid:{qid} " + " ".join(f"{j}:{(qid + i + j) / 10:.2f}" for j in range(1, features + 1))
                   + f" #docid = {qid}-{i}\n" for i in range(n))


def test_a_file_is_read_with_labels_queries_docids_and_skips_blank_and_comment_lines(tmp_path):
    data = load_letor(write(tmp_path / "a.txt", TINY))
    np.testing.assert_array_equal(data.X, [[0.5, 1, 0], [0.25, 0, 2], [0, -0.15, 0]])
    assert data.y.tolist() == [2, 0, 1] and data.y.dtype == np.int64
    assert data.qid.tolist() == [7, 7, 3] and data.n_queries == 2 and len(data) == 3
    assert data.docid.tolist() == ["d1", "d2", "GX01-2"] and data.path == tmp_path / "a.txt"
    assert not data.X.flags.writeable  # read-only (copy to modify)
    wide = load_letor(tmp_path / "a.txt", n_features=5)
    assert wide.X.shape == (3, 5) and not wide.X[:, 3:].any()


def test_windows_line_ends_and_files_without_docids(tmp_path):
    crlf = load_letor(write(tmp_path / "crlf.txt", TINY.replace("\n", "\r\n")))
    lf = load_letor(write(tmp_path / "lf.txt", TINY))
    np.testing.assert_array_equal(crlf.X, lf.X)
    assert crlf.docid.tolist() == lf.docid.tolist() == ["d1", "d2", "GX01-2"]
    plain = load_letor(write(tmp_path / "b.txt", "1 qid:1 1:1\n0 qid:1 1:2\n"))
    assert plain.docid is None and plain.X.shape == (2, 1)


def test_each_call_reads_the_file_again(tmp_path):
    path = write(tmp_path / "a.txt", "1 qid:1 1:1\n")
    assert load_letor(path).X is not load_letor(path).X  # nothing cached
    write(path, "1 qid:1 1:1\n0 qid:2 1:3\n")
    assert load_letor(path).n_queries == 2


@given(sizes=st.lists(st.integers(1, 6), min_size=1, max_size=8), n_features=st.integers(1, 6),
       seed=st.integers(0, 2**32 - 1))
def test_what_scikit_learn_writes_is_read_back(sizes, n_features, seed, tmp_path_factory):
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    X = np.round(rng.normal(size=(n, n_features)), 6) * (rng.random((n, n_features)) < 0.7)
    y, qid = rng.integers(0, 5, n), np.repeat(rng.permutation(1000)[:len(sizes)], sizes)
    path = tmp_path_factory.mktemp("dump") / "x.txt"
    dump_svmlight_file(X, y, str(path), zero_based=False, query_id=qid)
    data = load_letor(path, n_features=n_features)
    np.testing.assert_array_equal(data.X, X)
    assert data.y.tolist() == y.tolist() and data.qid.tolist() == qid.tolist()


# --- every malformed line names its file and 1-based line -------------------------------------------------

BAD_LINES = [
    ("0 qid:1 1:1\n1 qid:2 1:1\n0 qid:1 1:2\n", 3, r"query 1 appears again after query 2 \(its rows ended at line 1\)"),
    ("0 qid:1 1:1 2:1 3:1\n0 qid:1 1:1 2:1 3:1 4:1\n", 2, r"feature index 4 is beyond the expected 3 features"),
    ("0 qid:1 1:1\n1.5 qid:1 1:1\n", 2, r"label '1\.5' is not a non-negative integer"),
    ("0 qid:1 1:1\nhigh qid:1 1:1\n", 2, r"label 'high' is not a non-negative integer"),
    ("-1 qid:1 1:1\n", 1, r"label '-1' is not a non-negative integer"),
    ("0 qid:1 1:1\n0 1:1 2:1\n", 2, r"expected qid:<integer> after the label, got '1:1'"),
    ("0 qid:a 1:1\n", 1, r"expected qid:<integer> after the label, got 'qid:a'"),
    ("0 qid:1 1:1\n0 qid:1 1:1 2;5 3:1\n", 2, r"malformed feature '2;5' \(expected index:value\)"),
    ("0 qid:1 1:1\n0 qid:1 1:x 2:1\n", 2, r"malformed feature '1:x'"),
    ("0 qid:1 1:1\n0 qid:1 0:1 2:1\n", 2, r"feature index 0 in '0:1': indices start at 1"),
    ("0 qid:1 1:1\n0 qid:1 2:1 1:1 3:1\n", 2, r"feature index 1 after 2: indices must increase"),
    ("0 qid:1 1:1\n\n0 qid:1 1:1 2:NULL\n", 3, r"malformed feature '2:NULL' .*LETOR's NULL version"),
    ("0 qid:1 1:1\n# x\n0 qid:1 1:1 2:nan\n", 3, r"a feature value is NaN or infinite"),
    ("0 qid:1 1:1\n0 qid:1 1:1\n1 qid:2 1:1 2:-inf\n", 3, r"a feature value is NaN or infinite"),
    ("0 qid:1 1:1 #docid = a\n0 qid:1 1:1\n", 2, r"no '#docid = \.\.\.' comment, while line 1 has one; every line"),
    ("0 qid:1 1:1\n0 qid:1 1:1 #docid = a\n", 2, r"a '#docid = \.\.\.' comment, while line 1 has none; every line"),
]


@pytest.mark.parametrize("text, line, pattern", BAD_LINES, ids=[f"case{i}" for i in range(len(BAD_LINES))])
def test_a_malformed_line_is_named_by_file_and_line(tmp_path, text, line, pattern):
    path = write(tmp_path / "Fold1" / "train.txt", text)
    with pytest.raises(LetorFormatError, match=re.escape(f"{path}, line {line}: ") + pattern):
        load_letor(path, n_features=3)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_a_file_without_queries(tmp_path, text):
    path = write(tmp_path / "empty.txt", text)
    with pytest.raises(LetorFormatError, match=re.escape(f"{path}: no query in the file")):
        load_letor(path)


# --- the three layouts, end to end ------------------------------------------------------------------------

def write_folds(root, names, n_folds=2, features=3):
    """A Fold<k>/ layout: query q of fold k, part j is 100 k + 10 j + (0, 1)."""
    for k in range(1, n_folds + 1):
        for j, name in enumerate(names):
            q = 100 * k + 10 * j
            write(root / f"Fold{k}" / name, lines(q, 3, features) + lines(q + 1, 2, features))


@pytest.mark.parametrize("names, layout", [(("train.txt", "vali.txt", "test.txt"), "LETOR 4.0"),
                                           (("trainingset.txt", "validationset.txt", "testset.txt"), "LETOR 3.0")])
def test_fold_folders_of_letor_4_and_3(tmp_path, names, layout):
    write_folds(tmp_path / "set", names, n_folds=3)
    folds = letor_folds(tmp_path / "set", n_features=3)
    assert [f.name for f in folds] == ["Fold1", "Fold2", "Fold3"] and find_layout(tmp_path / "set")[0] == layout
    for k, fold in enumerate(folds, 1):
        for j, part in enumerate((fold.train, fold.vali, fold.test)):
            assert part.qid.tolist() == [100 * k + 10 * j] * 3 + [100 * k + 10 * j + 1] * 2
            assert part.X.shape == (5, 3) and part.docid[0] == f"{100 * k + 10 * j}-0"
        assert fold.files["test"] == [tmp_path / "set" / f"Fold{k}" / names[2]]


def test_subsets_rotate_into_folds_and_the_query_level_norm_subfolder_is_found(tmp_path):
    for i in range(1, 6):
        write(tmp_path / "ohsumed" / "QueryLevelNorm" / f"S{i}.txt", lines(10 * i, 2) + lines(10 * i + 1, 3))
    layout, found = find_layout(tmp_path / "ohsumed")
    assert layout == "5 subsets"
    folds = letor_folds(tmp_path / "ohsumed")
    first = lambda part: int(part.qid[0]) // 10  # noqa: E731 - the subset a part starts with
    assert [(first(f.train), first(f.vali), first(f.test)) for f in folds] == [(1, 4, 5), (2, 5, 1), (3, 1, 2),
                                                                               (4, 2, 3), (5, 3, 4)]
    assert [np.unique(f.train.qid // 10).tolist() for f in folds][:2] == [[1, 2, 3], [2, 3, 4]]
    assert all(len(f.train) == 15 and len(f.vali) == len(f.test) == 5 for f in folds)
    assert not folds[0].train.X.flags.writeable and not folds[0].test.X.flags.writeable
    assert [p.name for p in found[3][1]["train"]] == ["S4.txt", "S5.txt", "S1.txt"]


def test_any_number_of_subsets_from_three(tmp_path):
    for i in range(1, 4):
        write(tmp_path / f"S{i}.txt", lines(i))
    folds = letor_folds(tmp_path)
    assert [(f.train.qid[0], f.vali.qid[0], f.test.qid[0]) for f in folds] == [(1, 2, 3), (2, 3, 1), (3, 1, 2)]


def test_letor_data_reads_a_folder_under_the_data_directory_on_demand(tmp_path):
    write_folds(tmp_path / "MQ2008", ("train.txt", "vali.txt", "test.txt"), n_folds=5, features=4)
    data = LetorData("MQ2008", data_dir=tmp_path, n_features=4)
    assert data.layout == "LETOR 4.0" and data.n_folds == 5 and data.folder == tmp_path / "MQ2008"
    assert data.fold(5).name == "Fold5" and data.fold(1).test.qid[0] == 120  # numbered as LETOR's folds
    assert [f.name for f in data.folds()] == ["Fold1", "Fold2", "Fold3", "Fold4", "Fold5"]
    assert LetorData(str(tmp_path / "MQ2008")).fold(1).train.n_features == 4  # absolute path, inferred count
    for bad in (0, 6, True):
        with pytest.raises(IndexError, match=r"fold number must be an integer in 1\.\.5 \(Fold1 \.\. Fold5\)"):
            data.fold(bad)


# --- fold-level errors -------------------------------------------------------------------------------------

def test_a_query_in_two_parts_of_a_fold(tmp_path):
    write_folds(tmp_path, ("train.txt", "vali.txt", "test.txt"), n_folds=1)
    write(tmp_path / "Fold1" / "test.txt", lines(1) + lines(100))  # query 100 is also in train
    with pytest.raises(LetorFormatError, match=r"Fold1: query 100 is in both train \(.*Fold1/train.txt\) and test "
                                               r"\(.*Fold1/test.txt\)"):
        letor_folds(tmp_path)


def test_parts_with_different_feature_counts(tmp_path):
    write_folds(tmp_path, ("train.txt", "vali.txt", "test.txt"), n_folds=1)
    write(tmp_path / "Fold1" / "vali.txt", lines(7, features=4))
    with pytest.raises(LetorFormatError, match=r"Fold1: its files have different feature counts \(train 3 in .*, "
                                               r"vali 4 in .*, test 3 in .*\); pass n_features"):
        letor_folds(tmp_path)
    assert letor_folds(tmp_path, n_features=4)[0].train.X.shape == (5, 4)


def test_subsets_with_different_feature_counts(tmp_path):
    for i in range(1, 4):  # three subsets: Fold1 trains on S1 alone
        write(tmp_path / f"S{i}.txt", lines(i, features=4 if i == 2 else 3))
    with pytest.raises(LetorFormatError, match=r"Fold1: its files have different feature counts \(train 3 in .*S1.txt, "
                                               r"vali 4 in .*S2.txt, test 3 in .*S3.txt\)"):
        letor_folds(tmp_path)


def test_missing_fold_file_unknown_layout_missing_folder_and_gaps(tmp_path):
    write_folds(tmp_path / "a", ("train.txt", "vali.txt", "test.txt"), n_folds=2)
    (tmp_path / "a" / "Fold2" / "vali.txt").unlink()
    with pytest.raises(FileNotFoundError, match=r"a/Fold2/vali.txt not found \(LETOR 4.0 layout"):
        find_layout(tmp_path / "a")
    write(tmp_path / "b" / "data.txt", lines(1))
    with pytest.raises(LetorFormatError, match=r"b: unknown LETOR layout; looked in it and in its QueryLevelNorm/ "
                                               r"for Fold<k>/\{train,vali,test\}.txt \(LETOR 4.0\)"):
        find_layout(tmp_path / "b")
    with pytest.raises(FileNotFoundError, match=r"LETOR folder .*/nowhere not found"):
        find_layout(tmp_path / "nowhere")
    for i in (1, 2, 4):
        write(tmp_path / "c" / f"S{i}.txt", lines(i))
    with pytest.raises(LetorFormatError, match=r"subsets S1.txt, S2.txt, S4.txt; .* numbered without gaps"):
        find_layout(tmp_path / "c")
    write_folds(tmp_path / "d", ("train.txt", "vali.txt", "test.txt"), n_folds=3)
    (tmp_path / "d" / "Fold2").rename(tmp_path / "d" / "Fold7")
    with pytest.raises(LetorFormatError, match=r"d: folds Fold1, Fold3, Fold7; they must be numbered Fold1 \.\. Foldn"):
        find_layout(tmp_path / "d")


# --- configs ------------------------------------------------------------------------------------------------

def test_the_ohsumed_config_names_the_path_and_the_fetch_command_when_missing(tmp_path):
    cfg = make_cfg(["dataset=letor_ohsumed", f"data_dir={tmp_path}", "+algorithm@algorithms.PRank=prank"])
    with pytest.raises(FileNotFoundError, match=re.escape(f"expected it at {tmp_path}/letor3-ohsumed.")
                       + r".*python -m ordrank.data fetch letor3-ohsumed --data-dir " + re.escape(str(tmp_path))):
        build(cfg)
    with pytest.raises(ValueError, match=r"dataset.path must name a LETOR folder"):
        build(make_cfg(["dataset=letor", "dataset.path=null", "+algorithm@algorithms.PRank=prank"]))


def test_the_any_folder_config_reads_a_user_folder(tmp_path):
    write_folds(tmp_path / "mine", ("trainingset.txt", "validationset.txt", "testset.txt"), n_folds=2)
    data = build(make_cfg(cfg_overrides(tmp_path)))["dataset"]
    assert data.layout == "LETOR 3.0" and data.n_folds == 2 and data.fold(2).vali.qid[0] == 210
    assert data.fold(1).train.X.dtype == np.float64
    single = build(make_cfg([*cfg_overrides(tmp_path), "dataset.dtype=float32"]))["dataset"]  # a key, no "+"
    assert single.fold(1).train.X.dtype == np.float32
    assert np.array_equal(single.fold(1).test.X, data.fold(1).test.X.astype(np.float32))


def cfg_overrides(tmp_path):
    return ["dataset=letor", f"dataset.path={tmp_path / 'mine'}", "+algorithm@algorithms.PRank=prank"]


# --- the real OHSUMED ---------------------------------------------------------------------------------------

def test_real_ohsumed(shared_data_dir):
    data = LetorData("letor3-ohsumed", data_dir=shared_data_dir, n_features=45)
    folds = list(data.folds())
    assert data.layout == "5 subsets" and len(folds) == 5
    everything = letor.concat([load_letor(shared_data_dir / "letor3-ohsumed" / "QueryLevelNorm" / f"S{i}.txt", 45)
                               for i in range(1, 6)])
    assert len(everything) == 16_140 and everything.n_queries == 106 and everything.n_features == 45
    assert np.bincount(everything.y).tolist() == [11_303, 2_585, 2_252]
    assert len(np.unique(everything.docid)) > 14_000  # docids read from the comments
    assert (len(folds[0].train), len(folds[0].vali), len(folds[0].test)) == (9_219, 3_538, 3_383)
    for fold in folds:
        assert len(fold.train) + len(fold.vali) + len(fold.test) == 16_140
        assert fold.train.n_queries + fold.vali.n_queries + fold.test.n_queries == 106
    assert [f.test.path.name for f in folds] == ["S5.txt", "S1.txt", "S2.txt", "S3.txt", "S4.txt"]
    assert everything.X.min() == 0 and everything.X.max() == 1  # QueryLevelNorm: min-max scaled per query
