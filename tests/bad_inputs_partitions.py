"""Bad inputs of a user's partition folder (dataset=partitions; rows of the table in tests/test_bad_inputs.py)."""
from ordrank.datasets.partition_folder import PartitionFolder

from conftest import Case, make_cfg, write

TRAIN = "0.1 1 1\n0.2 2 2\n0.3 1 3\n0.4 2 1\n"
TEST = "0.5 1 2\n0.6 2 3\n"


def orca(**files):
    """A trigger: read partition 0 of ``<tmp>/auto/matlab/{train,test}_auto.data.{0,1}``; ``files`` replace
    some (``train0="..."``), a value None leaves that file out."""
    def trigger(tmp):
        for k in (0, 1):
            for kind, text in (("train", TRAIN), ("test", TEST)):
                text = files.get(f"{kind}{k}", text)
                if text is not None:
                    write(tmp / "auto" / "matlab" / f"{kind}_auto.data.{k}", text)
        return PartitionFolder(tmp / "auto").split(0)
    return trigger


def chu(train_line: str):
    """A trigger: Chu's layout ``<tmp>/chu/diabetes.data.ord_{train,test}_3.1``, train line 3 replaced."""
    def trigger(tmp):
        lines = TRAIN.splitlines()
        lines[2] = train_line
        write(tmp / "chu" / "diabetes.data.ord_train_3.1", "\n".join(lines) + "\n")
        write(tmp / "chu" / "diabetes.data.ord_test_3.1", TEST)
        return PartitionFolder(tmp / "chu").split(0)
    return trigger


def build_on_folder(*overrides):
    """A trigger: build (as ``python run.py`` does before any work) a config reading ``<tmp>/auto``."""
    def trigger(tmp):
        from ordrank.app import build

        orca()(tmp)
        return build(make_cfg([*overrides, f"data_dir={tmp}"]))
    return trigger


CASES = [
    Case("partitions-name-of-another-set", "`+experiment=svor_benchmark dataset=partitions dataset.path=<folder> "
         "dataset.bins=null` (the experiment's `dataset.name: pyrim` labelled the user's rows `pyrim`)", ValueError,
         r"^dataset\.name=pyrim is another data set's name \(the ORCA and Chu benchmarks \(dataset=orca, "
         r"dataset=chu\)\), not that of your folder auto: set dataset\.name=<its name> \(the table's `dataset` "
         r"column\)$",
         build_on_folder("+experiment=svor_benchmark", "dataset=partitions", "dataset.path=auto",
                         "dataset.bins=null", "only=PRank")),
    Case("named-set-given-a-path", "`+experiment=svor_benchmark +quick=svor_benchmark +dataset.path=<folder>` (was: "
         "BenchmarkData got an unexpected keyword argument 'path')", ValueError,
         r"^dataset\.path=auto: the data set 'pyrim' is a named one \(ordrank\.datasets\.partitions\.BenchmarkData\), "
         r"not a folder; for your own folder or archive of train/test partitions use dataset=partitions "
         r"dataset\.path=auto dataset\.name=<its name>",
         build_on_folder("+experiment=svor_benchmark", "+quick=svor_benchmark", "+dataset.path=auto", "only=PRank")),
    Case("partitions-column-count", "a user's test file with one column more than its train file", ValueError,
         r"^<tmp>/auto/matlab/test_auto\.data\.0 has 4 columns but <tmp>/auto/matlab/train_auto\.data\.0 has 3 "
         r"\(inputs and label\): train and test must have the same columns$",
         orca(test0="0.5 1 9 2\n0.6 2 9 3\n")),
    Case("partitions-label-zero", "label `0` on line 3 of a Chu-layout file `diabetes.data.ord_train_3.1`", ValueError,
         r"^<tmp>/chu/diabetes\.data\.ord_train_3\.1, line 3: label '0' is not an integer rank in 1\.\.3: '0\.3 1 0'$",
         chu("0.3 1 0")),
    Case("partitions-label-fraction", "label `2.5` on line 3 of a Chu-layout file", ValueError,
         r"^<tmp>/chu/diabetes\.data\.ord_train_3\.1, line 3: label '2\.5' is not an integer rank in 1\.\.3",
         chu("0.3 1 2.5")),
    Case("partitions-non-numeric", "`abc` on line 3 of a Chu-layout file", ValueError,
         r"^<tmp>/chu/diabetes\.data\.ord_train_3\.1, line 3: non-numeric field 'abc'",
         chu("0.3 abc 2")),
    Case("partitions-missing-test", "`train_auto.data.1` without its `test_auto.data.1`", FileNotFoundError,
         r"^missing test file for the train file <tmp>/auto/matlab/train_auto\.data\.1: expected "
         r"test_auto\.data\.1 beside it$", orca(test1=None)),
    Case("partitions-missing-train", "`test_auto.data.1` without its `train_auto.data.1`", FileNotFoundError,
         r"^missing train file for the test file <tmp>/auto/matlab/test_auto\.data\.1", orca(train1=None)),
    Case("partitions-one-rank", "a first partition whose labels are all 1 (ranks inferred)", ValueError,
         r"^<tmp>/auto/matlab/train_auto\.data\.0: every label of the first partition is 1",
         orca(train0="0.1 1\n0.2 1\n", test0="0.3 1\n")),
    Case("partitions-none", "`dataset.path` naming a folder without partition files", FileNotFoundError,
         r"^<tmp>/auto: no partition files found",
         lambda tmp: PartitionFolder(write(tmp / "auto" / "notes.txt", "x\n").parent)),
]
