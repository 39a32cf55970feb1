"""Bad inputs of the LETOR loader (rows of the table in tests/test_bad_inputs.py)."""
from unittest import mock

from ordrank.datasets import letor_file
from ordrank.datasets.letor import LetorData, LetorFormatError, letor_folds, load_letor

from conftest import Case, make_cfg, write

GOOD = "2 qid:1 1:0.5 2:1 3:0 #docid = a\n0 qid:1 1:0.2 2:0 3:1 #docid = b\n"


def line_2(text: str, n_features=3):
    """A trigger: read ``<tmp>/Fold1/train.txt`` whose second line is ``text``."""
    def trigger(tmp):
        return load_letor(write(tmp / "Fold1" / "train.txt", "2 qid:1 1:0.5 2:1 3:0\n" + text + "\n"),
                          n_features=n_features)
    return trigger


def with_memory(available: int, trigger):
    """``trigger`` on a machine with ``available`` bytes of memory available."""
    def on_that_machine(tmp):
        with mock.patch.object(letor_file, "available_memory", lambda: available):
            return trigger(tmp)
    return on_that_machine


def fold(**parts):
    """A trigger: a LETOR 4.0 folder ``<tmp>/set/Fold1`` whose parts are GOOD with queries 1, 2, 3 unless given."""
    def trigger(tmp):
        for i, part in enumerate(("train", "vali", "test"), 1):
            write(tmp / "set" / "Fold1" / f"{part}.txt", parts.get(part, GOOD.replace("qid:1", f"qid:{i}")))
        return letor_folds(tmp / "set")
    return trigger


def build_config(tmp, *overrides):
    """Build the datasets of a config with ``data_dir=<tmp>`` (as ``python run.py`` does before any work)."""
    from ordrank.app import build

    return build(make_cfg([*overrides, f"data_dir={tmp}", "+algorithm@algorithms.PRank=prank"]))


def build_experiment(tmp, *overrides):
    """Build an experiment's config with ``data_dir=<tmp>`` (its own learners)."""
    from ordrank.app import build

    return build(make_cfg([*overrides, f"data_dir={tmp}"]))


CASES = [
    Case("letor-qid-not-contiguous", "a LETOR file where query 1 comes back after query 2", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 3: query 1 appears again after query 2 \(its rows ended at line 1\); "
         r"the rows of a query must be contiguous$",
         lambda tmp: load_letor(write(tmp / "Fold1" / "train.txt", "0 qid:1 1:1\n1 qid:2 1:1\n0 qid:1 1:2\n"))),
    Case("letor-feature-beyond-count", "`4:0.5` in a file read with `n_features=3` (OHSUMED: 45)", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: feature index 4 is beyond the expected 3 features$",
         line_2("1 qid:1 1:0.1 2:0.2 4:0.5")),
    Case("letor-label-not-integer", "a LETOR line whose label is `1.5`", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: label '1\.5' is not a non-negative integer \(relevance grade\)$",
         line_2("1.5 qid:1 1:0.1")),
    Case("letor-malformed-feature", "a LETOR line with the token `2;0.5`", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: malformed feature '2;0\.5' \(expected index:value\)$",
         line_2("1 qid:1 1:0.1 2;0.5 3:1")),
    Case("letor-missing-qid", "a LETOR line without `qid:` after the label", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: expected qid:<integer> after the label, got '1:0\.1'$",
         line_2("1 1:0.1 2:0.5")),
    Case("letor-unsorted-features", "a LETOR line with `3:1 2:0.5`", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: feature index 2 after 3: indices must increase along a line$",
         line_2("1 qid:1 1:0.1 3:1 2:0.5")),
    Case("letor-null-feature", "a line of LETOR's NULL version (`2:NULL`)", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: malformed feature '2:NULL' \(expected index:value\) \(LETOR's NULL "
         r"version: read its MIN or QueryLevelNorm version\)$", line_2("1 qid:1 1:0.1 2:NULL 3:1")),
    Case("letor-empty-file", "an empty LETOR file", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt: no query in the file \(empty, or only comments and blank lines\)$",
         lambda tmp: load_letor(write(tmp / "Fold1" / "train.txt", "\n"))),
    Case("letor-query-in-two-parts", "query 1 in both `Fold1/train.txt` and `Fold1/test.txt`", LetorFormatError,
         r"^Fold1: query 1 is in both train \(<tmp>/set/Fold1/train\.txt\) and test \(<tmp>/set/Fold1/test\.txt\); "
         r"a fold's parts \(and subsets\) must hold different queries$", fold(test=GOOD)),
    Case("letor-feature-counts-differ", "`Fold1/vali.txt` with 4 features, train and test with 3", LetorFormatError,
         r"^Fold1: its files have different feature counts \(train 3 in <tmp>/set/Fold1/train\.txt, vali 4 in "
         r"<tmp>/set/Fold1/vali\.txt, test 3 in <tmp>/set/Fold1/test\.txt\); pass n_features",
         fold(vali="0 qid:2 1:1 4:1\n")),
    Case("letor-fold-file-missing", "a LETOR 4.0 folder whose `Fold2/` has no `vali.txt`", FileNotFoundError,
         r"^<tmp>/set/Fold2/vali\.txt not found \(LETOR 4\.0 layout: every Fold<k>/ holds train\.txt, vali\.txt, "
         r"test\.txt\)$",
         lambda tmp: (fold()(tmp), [write(tmp / "set" / "Fold2" / f, GOOD) for f in ("train.txt", "test.txt")],
                      letor_folds(tmp / "set"))),
    Case("letor-unknown-layout", "`dataset=letor dataset.path=<folder>` holding only `data.txt`", LetorFormatError,
         r"^<tmp>/mine: unknown LETOR layout; looked in it and in its QueryLevelNorm/ for "
         r"Fold<k>/\{train,vali,test\}\.txt \(LETOR 4\.0\), Fold<k>/\{trainingset,validationset,testset\}\.txt "
         r"\(LETOR 3\.0\) and S1\.txt \.\. Sn\.txt \(subsets\)$",
         lambda tmp: (write(tmp / "mine" / "data.txt", GOOD), LetorData(str(tmp / "mine")))),
    Case("letor-ohsumed-missing", "`dataset=letor_ohsumed` with no `letor3-ohsumed/` in the data directory",
         FileNotFoundError,
         r"^LETOR folder not found: expected it at <tmp>/letor3-ohsumed\. .* Get it with: python -m ordrank\.data "
         r"fetch letor3-ohsumed --data-dir <tmp>\.$", lambda tmp: build_config(tmp, "dataset=letor_ohsumed")),
    Case("letor-named-set-given-a-path", "`+experiment=letor_ohsumed +quick=letor_ohsumed dataset.path=<folder>` "
         "(ran the user's folder as `letor_ohsumed` with 45 features)", ValueError,
         r"^dataset\.path=mine: letor_ohsumed is a named data set \(conf/dataset/letor_ohsumed\.yaml reads "
         r"letor3-ohsumed under data_dir\); for your own folder use dataset=letor dataset\.path=mine "
         r"dataset\.name=<its name> \(the table's `dataset` column\)$",
         lambda tmp: (write(tmp / "mine" / "Fold1" / "train.txt", GOOD),
                      build_experiment(tmp, "+experiment=letor_ohsumed", "+quick=letor_ohsumed", "dataset.path=mine"))),
    Case("letor-no-path", "`dataset=letor dataset.path=null`", ValueError,
         r"^dataset\.path must name a LETOR folder, e\.g\. dataset\.path=/data/MQ2008$",
         lambda tmp: build_config(tmp, "dataset=letor", "dataset.path=null")),
    Case("letor-qid-beyond-int64", "`qid:12345678901234567890123` (23 digits)", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: query id 12345678901234567890123 is beyond the 64-bit integer range$",
         line_2("1 qid:12345678901234567890123 1:0.1", n_features=None)),
    Case("letor-index-beyond-int32", "`2147483648:1` (2^31) read with `n_features=None`", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: feature index 2147483648 is beyond 2147483647, the largest the "
         r"SVMlight parser reads$", line_2("1 qid:1 2147483648:1", n_features=None)),
    Case("letor-index-too-wide", "`1000000000:1` read with `n_features=None` (X dense: 14.9 GiB) on a machine "
         "with 8 GiB of memory available", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: X would take 14\.9 GiB dense \(2 rows x 1000000000 features, the largest "
         r"index 1000000000 being on this line\), more than the 8\.0 GiB of memory available; is the index a typo\?$",
         with_memory(8 * 2 ** 30, line_2("1 qid:1 1000000000:1", n_features=None))),
    Case("letor-index-thousands-of-digits", "`1` followed by 4999 digits as a feature index", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: feature index 11111111111111111111\.\.\. \(5000 digits\) is beyond "
         r"2147483647, the largest the SVMlight parser reads$",
         line_2("1 qid:1 " + "1" * 5000 + ":1", n_features=None)),
    Case("letor-negative-index-thousands-of-digits", "`-` and 5000 digits as a feature index", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: feature index -22222222222222222222\.\.\. \(5000 digits\) in "
         r"'-222222222222222222222222222222222222222'\.\.\. \(5003 characters\): indices start at 1$",
         line_2("1 qid:1 -" + "2" * 5000 + ":1")),
    Case("letor-qid-thousands-of-digits", "`qid:` and 5000 digits", LetorFormatError,
         r"^<tmp>/Fold1/train\.txt, line 2: query id 33333333333333333333\.\.\. \(5000 digits\) is beyond the "
         r"64-bit integer range$", line_2("1 qid:" + "3" * 5000 + " 1:1")),
    Case("letor-n-features-negative", "`load_letor(path, n_features=-1)`", ValueError,
         r"^n_features must be None or a positive integer \(the feature count\), got -1$", line_2("1 qid:1 1:1", -1)),
    Case("letor-n-features-zero", "`load_letor(path, n_features=0)`", ValueError,
         r"^n_features must be None or a positive integer \(the feature count\), got 0$", line_2("1 qid:1 1:1", 0)),
    Case("letor-n-features-float", "`load_letor(path, n_features=3.0)`", ValueError,
         r"^n_features must be None or a positive integer \(the feature count\), got 3\.0$",
         line_2("1 qid:1 1:1", 3.0)),
    Case("letor-n-features-bool", "`load_letor(path, n_features=True)`", ValueError,
         r"^n_features must be None or a positive integer \(the feature count\), got True$",
         line_2("1 qid:1 1:1", True)),
    Case("letor-dtype-unknown", "`load_letor(path, dtype='double precision')`", ValueError,
         r"^dtype must be float32 or float64, got 'double precision'$",
         lambda tmp: load_letor(write(tmp / "a.txt", GOOD), dtype="double precision")),
    Case("letor-folds-n-features-negative", "`letor_folds(folder, n_features=-1)` (checked before any reading)",
         ValueError, r"^n_features must be None or a positive integer \(the feature count\), got -1$",
         lambda tmp: letor_folds(tmp / "no such folder", n_features=-1)),
    Case("letor-folds-dtype-unknown", "`letor_folds(folder, dtype=int)`", ValueError,
         r"^dtype must be float32 or float64, got <class 'int'>$", lambda tmp: letor_folds(tmp, dtype=int)),
    Case("letor-float32-overflow", "`1:3.5e38` read with `dtype=float32` (beyond float32's range)", LetorFormatError,
         r"^<tmp>/a\.txt, line 1: a feature value is NaN or infinite$",
         lambda tmp: load_letor(write(tmp / "a.txt", "1 qid:1 1:3.5e38\n"), dtype="float32")),
]
