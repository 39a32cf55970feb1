"""`python -m ordrank.data import` of the web-scale sets downloaded by hand (MSLR-WEB10K/30K, Yahoo! set 1,
Istella-S): tiny fake archives and folders with the real layouts, installed as LETOR folds and read back.

The published sizes (`web_sets.PUBLISHED`) are replaced by the fakes' sizes for each test; the real table
is checked on its own (its numbers add up, and an archive with the official name but another size is
refused against it).
"""
import io
import shutil
import tarfile
import zipfile

import pytest
from hydra.utils import instantiate

from ordrank.data import list_sets, main
from ordrank.datasets import registry, web_sets
from ordrank.datasets.fetch import fetch, missing, status
from ordrank.datasets.registry import FetchError
from ordrank.datasets.install import install_local
from ordrank.datasets.letor import LetorData
from ordrank.datasets.naming import dataset_spec
from ordrank.datasets.web_sets import PUBLISHED, Published, count_lines

from conftest import make_cfg
from test_fetch import entries

N_FEATURES = {"mslr-web10k": 136, "mslr-web30k": 136, "yahoo-ltr-set1": 699, "istella-s": 220}
ARCHIVES = {"mslr-web10k": "MSLR-WEB10K.zip", "mslr-web30k": "MSLR-WEB30K.zip",
            "yahoo-ltr-set1": "ltrc_yahoo.tar.bz2", "istella-s": "istella-s-letor.tar.gz"}


def letor_lines(qids, n_features: int) -> bytes:
    """Two documents per query, sparse features 1 and n_features (the widest index)."""
    return "".join(f"{(q + d) % 5} qid:{q} 1:{0.25 * d} {n_features}:{q}.5\n"
                   for q in qids for d in range(2)).encode()


def upstream_files(name: str) -> dict[str, bytes]:
    """The set's files as distributed (archive paths), a few queries each."""
    n = N_FEATURES[name]
    if name.startswith("mslr"):  # subsets S1..S5 of two queries, rotated as MSLR's folds
        subsets = [[10 * i + 1, 10 * i + 2] for i in range(5)]
        files = {}
        for k in range(5):
            s = [subsets[(k + j) % 5] for j in range(5)]
            files |= {f"Fold{k + 1}/train.txt": letor_lines(s[0] + s[1] + s[2], n),
                      f"Fold{k + 1}/vali.txt": letor_lines(s[3], n), f"Fold{k + 1}/test.txt": letor_lines(s[4], n)}
        return files
    names = {"yahoo-ltr-set1": ("set1.train.txt", "set1.valid.txt", "set1.test.txt"),
             "istella-s": ("sample/train.txt", "sample/vali.txt", "sample/test.txt")}[name]
    return {f: letor_lines([3 * i + 1, 3 * i + 2, 3 * i + 3][: 3 - i], n) for i, f in enumerate(names)}


def pack(files: dict[str, bytes], archive, top: str = "") -> None:
    """``files`` into a zip or a tar (compression from the name), under the folder ``top``."""
    if str(archive).endswith(".zip"):
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
            for path, data in files.items():
                zipped.writestr(top + path, data)
        return
    mode = "w:bz2" if str(archive).endswith(".bz2") else "w:gz"
    with tarfile.open(archive, mode) as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(top + path)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def unpacked(files: dict[str, bytes], folder):
    for path, data in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
    return folder


def publish(monkeypatch, name: str, files: dict[str, bytes], archive=None, **changes) -> Published:
    """Replace the published sizes of ``name`` by those of the fake ``files`` (and ``archive``)."""
    installed = {f: upstream for f, upstream in registry.DATASETS[name].web.files}
    lines = {f: files[upstream].count(b"\n") for f, upstream in installed.items() if f.startswith("Fold1/")}
    values = {"archive_bytes": archive.stat().st_size if archive else None,
              "fold_documents": sum(lines.values()), "lines": lines, **changes}  # the fakes' folds are alike
    monkeypatch.setitem(PUBLISHED, name, Published(**values))
    return PUBLISHED[name]


@pytest.mark.parametrize("name", list(N_FEATURES))
def test_the_official_archive_installs_as_letor_folds(name, tmp_path, monkeypatch):
    files = upstream_files(name)
    archive = tmp_path / ARCHIVES[name]
    pack(files, archive)
    publish(monkeypatch, name, files, archive)
    data = tmp_path / "data"
    path = install_local(name, archive, data)
    assert path == data / name and entries(data) == [name]  # nothing else left in the data directory
    n_folds = 5 if name.startswith("mslr") else 1
    assert sorted(p.relative_to(path).as_posix() for p in path.rglob("*.txt")) == sorted(
        f"Fold{k}/{part}.txt" for k in range(1, n_folds + 1) for part in web_sets.PARTS)
    letor = LetorData(path=name, data_dir=data)
    assert letor.n_folds == n_folds and letor.layout == "LETOR 4.0"
    fold = letor.fold(1)
    assert fold.train.n_features == fold.test.n_features == N_FEATURES[name]
    assert (len(fold.train), len(fold.vali), len(fold.test)) == tuple(
        PUBLISHED[name].lines[f"Fold1/{p}.txt"] for p in web_sets.PARTS)
    assert LetorData(path=name, data_dir=data, n_features=N_FEATURES[name]).fold(n_folds).vali.n_queries >= 1
    config = instantiate(dataset_spec(make_cfg([f"dataset={name.replace('-', '_')}", f"data_dir={data}"]).dataset))
    assert config.n_folds == n_folds and config.fold(1).test.X.shape[1] == N_FEATURES[name]  # the dataset config
    assert config.fold(1).test.X.dtype == "float32" and config.evaluation == "4.0"
    found = status(name, data)
    assert found.complete and not found.checksummed  # present, and recorded as having no pinned checksums
    row = next(line for line in list_sets(data).splitlines() if line.startswith(name + " "))
    assert "present (no pinned checksums)" in row


@pytest.mark.parametrize("name", ["mslr-web30k", "yahoo-ltr-set1", "istella-s"])
def test_the_unpacked_folder_under_any_top_folder_is_copied_and_left_as_it_was(name, tmp_path, monkeypatch):
    files = upstream_files(name)
    publish(monkeypatch, name, files)
    source = unpacked(files, tmp_path / "download" / "unpacked here")
    path = install_local(name, tmp_path / "download", tmp_path / "data")
    assert LetorData(path=path, n_features=N_FEATURES[name]).n_folds == (5 if name.startswith("mslr") else 1)
    assert {p.relative_to(source).as_posix(): p.read_bytes() for p in source.rglob("*") if p.is_file()} == files
    again = install_local(name, tmp_path / "data", tmp_path / "other")  # a colleague's data directory
    assert (again / "Fold1" / "test.txt").read_bytes() == (path / "Fold1" / "test.txt").read_bytes()


def test_yahoo_from_the_webscope_download_holding_the_inner_archive(tmp_path, monkeypatch):
    files = upstream_files("yahoo-ltr-set1")
    inner = tmp_path / "ltrc_yahoo.tar.bz2"
    pack(files, inner)
    pack({"Webscope_C14/ltrc_yahoo.tar.bz2": inner.read_bytes(), "Webscope_C14/readme.txt": b"terms\n"},
         tmp_path / "dataset.tgz")
    publish(monkeypatch, "yahoo-ltr-set1", files)
    path = install_local("yahoo-ltr-set1", tmp_path / "dataset.tgz", tmp_path / "data")
    assert (path / "Fold1" / "vali.txt").read_bytes() == files["set1.valid.txt"]
    assert len(LetorData(path="yahoo-ltr-set1", data_dir=tmp_path / "data").fold(1).test) == 2
    del files["set1.test.txt"]
    pack(files, inner)
    pack({"ltrc_yahoo.tar.bz2": inner.read_bytes()}, tmp_path / "other.tgz")
    with pytest.raises(FetchError, match=r"yahoo-ltr-set1: \S+other\.tgz \(unpacked\): ltrc_yahoo\.tar\.bz2 lacks "
                                         r"set1\.test\.txt \(1 of 3 files missing\) in its top folder"):
        install_local("yahoo-ltr-set1", tmp_path / "other.tgz", tmp_path / "data2")
    assert entries(tmp_path / "data2") == []


def test_an_istella_archive_with_a_top_folder_and_other_files(tmp_path, monkeypatch):
    files = upstream_files("istella-s")
    archive = tmp_path / "istella-s-letor.tar.gz"
    pack({**files, "README": b"Non-Commercial Use Only\n", "full/train.txt": b"0 qid:1 1:1\n"}, archive,
         top="istella-s-letor/")
    publish(monkeypatch, "istella-s", files, archive)
    path = install_local("istella-s", archive, tmp_path / "data")
    assert sorted(p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file()) == [
        "Fold1/test.txt", "Fold1/train.txt", "Fold1/vali.txt"]


# --- a wrong layout, a wrong size: refused, naming the problem, nothing installed -------------------------

def test_a_missing_vali_file_is_named_before_anything_is_unpacked(tmp_path, monkeypatch):
    files = upstream_files("mslr-web10k")
    publish(monkeypatch, "mslr-web10k", files)
    del files["Fold3/vali.txt"]
    archive = tmp_path / "MSLR-WEB10K.zip"
    pack(files, archive)
    monkeypatch.setattr(zipfile.ZipFile, "extractall", lambda *a, **k: pytest.fail("unpacked a wrong layout"))
    with pytest.raises(FetchError, match=r"mslr-web10k: \S+MSLR-WEB10K\.zip \(zip\) lacks Fold3/vali\.txt "
                                         r"\(1 of 15 files missing\) in its top folder"):
        install_local("mslr-web10k", archive, tmp_path / "data")
    assert entries(tmp_path / "data") == []
    with pytest.raises(FetchError, match=r"lacks Fold3/vali\.txt \(1 of 15 files missing\) in MSLR-WEB10K/"):
        install_local("mslr-web10k", unpacked(files, tmp_path / "folder" / "MSLR-WEB10K").parent, tmp_path / "data")
    assert entries(tmp_path / "data") == []


def test_wrong_file_names_are_named_with_the_expected_layout(tmp_path, monkeypatch):
    files = upstream_files("istella-s")
    publish(monkeypatch, "istella-s", files)
    files["sample/valid.txt"] = files.pop("sample/vali.txt")
    archive = tmp_path / "istella-s-letor.tar.gz"
    pack(files, archive)
    with pytest.raises(FetchError, match=r"istella-s: \S+ \(unpacked\) lacks sample/vali\.txt .* in its top "
                                         r"folder; the Istella-S LETOR \(one fold\) layout is sample/train\.txt, "
                                         r"sample/vali\.txt, sample/test\.txt; other files there: sample/valid\.txt"):
        install_local("istella-s", archive, tmp_path / "data")
    renamed = {f"{part}.txt": data for part, data in zip(web_sets.PARTS, upstream_files("yahoo-ltr-set1").values())}
    with pytest.raises(FetchError, match=r"yahoo-ltr-set1: \S+ holds no file of the Yahoo! Learning to Rank "
                                         r"Challenge, set 1 \(one fold\) layout \(set1\.train\.txt, set1\.valid\.txt, "
                                         r"set1\.test\.txt\); found 3 files: test\.txt, train\.txt, vali\.txt"):
        install_local("yahoo-ltr-set1", unpacked(renamed, tmp_path / "yahoo"), tmp_path / "data")
    assert entries(tmp_path / "data") == []


def test_an_official_archive_of_another_size_is_refused_and_a_renamed_one_is_not_size_checked(tmp_path, monkeypatch):
    files = upstream_files("mslr-web10k")
    archive = tmp_path / "MSLR-WEB10K.zip"
    pack(files, archive)
    size = archive.stat().st_size
    publish(monkeypatch, "mslr-web10k", files, archive, archive_bytes=size + 1)
    with pytest.raises(FetchError, match=rf"mslr-web10k: \S+MSLR-WEB10K\.zip has {size:,} bytes, not the "
                                         rf"published {size + 1:,} of MSLR-WEB10K\.zip"):
        install_local("mslr-web10k", archive, tmp_path / "data")
    assert entries(tmp_path / "data") == []
    renamed = shutil.copyfile(archive, tmp_path / "MSLR-WEB10K (1).zip")
    assert install_local("mslr-web10k", renamed, tmp_path / "data").is_dir()


def test_documents_per_file_and_per_fold_are_counted(tmp_path, monkeypatch):
    files = upstream_files("mslr-web10k")
    publish(monkeypatch, "mslr-web10k", files)
    source = unpacked(files, tmp_path / "source")
    with open(source / "Fold1" / "train.txt", "ab") as f:
        f.write(b"0 qid:99 1:1")  # a last line without its newline still counts
    with pytest.raises(FetchError, match=r"mslr-web10k: Fold1/train\.txt in \S+ has 13 lines, not the published "
                                         r"12 documents"):
        install_local("mslr-web10k", source, tmp_path / "data")
    unpacked(files, source)
    (source / "Fold4" / "test.txt").write_bytes(files["Fold4/test.txt"][:-1] + b"\n\n")  # one blank line more
    with pytest.raises(FetchError, match=r"Fold4's files in \S+ have 21 lines \(Fold4/train\.txt 12, "
                                         r"Fold4/vali\.txt 4, Fold4/test\.txt 5\), not the published 20 documents "
                                         r"of every fold"):
        install_local("mslr-web10k", source, tmp_path / "data")
    assert entries(tmp_path / "data") == []


def test_count_lines_reads_in_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(web_sets, "CHUNK", 3)
    for text, n in [(b"", 0), (b"a\n", 1), (b"a\nb", 2), (b"a\r\nbb\r\ncc\r\n", 3), (b"\n\n", 2)]:
        (tmp_path / "f").write_bytes(text)
        assert count_lines(tmp_path / "f") == n, text


# --- the real table, the manual steps ----------------------------------------------------------------

def test_the_published_sizes_add_up_and_the_real_archive_size_is_checked(tmp_path):
    for name, published in PUBLISHED.items():
        assert sum(published.lines[f"Fold1/{p}.txt"] for p in web_sets.PARTS) == published.fold_documents, name
        assert set(published.lines) <= set(registry.DATASETS[name].web.installed), name
    assert PUBLISHED["mslr-web10k"].archive_bytes == 1_234_144_912
    assert PUBLISHED["mslr-web30k"].archive_bytes == 3_849_406_307
    assert (PUBLISHED["mslr-web10k"].fold_documents, PUBLISHED["mslr-web30k"].fold_documents) == (1_200_192, 3_771_125)
    assert PUBLISHED["yahoo-ltr-set1"].archive_bytes is None  # not published: only the layout and the lines
    pack(upstream_files("mslr-web30k"), tmp_path / "MSLR-WEB30K.zip")
    with pytest.raises(FetchError, match=r"has \d[\d,]* bytes, not the published 3,849,406,307 of MSLR-WEB30K\.zip"):
        install_local("mslr-web30k", tmp_path / "MSLR-WEB30K.zip", tmp_path / "data")
    with pytest.raises(FetchError, match=r"Fold1/train\.txt in \S+ has 12 lines, not the published 723,412 documents"):
        install_local("mslr-web10k", unpacked(upstream_files("mslr-web10k"), tmp_path / "folder"), tmp_path / "data")


def test_fetch_says_the_sets_are_manual_and_where_to_get_them(tmp_path, capsys):
    for name, url in [("mslr-web10k", "https://www.microsoft.com/en-us/research/project/mslr/"),
                      ("yahoo-ltr-set1", "webscope.sandbox.yahoo.com"), ("istella-s", "istella")]:
        with pytest.raises(FetchError, match=rf"{name}: manual download only \(.*\): get {ARCHIVES[name]}.* from "
                                             rf".*{url}.*python -m ordrank\.data import {name} PATH --data-dir "
                                             rf"{tmp_path}"):
            fetch(name, tmp_path)
    (line,) = missing(["mslr-web30k"], tmp_path)
    assert "not found" in line and "see the project page for its terms" in line and "MSLR-WEB30K.zip" in line
    assert main(["list", "--data-dir", str(tmp_path)]) == 0
    rows = {row.split()[0]: row for row in capsys.readouterr().out.splitlines()[2:]}
    assert all("absent (manual download)" in rows[name] for name in N_FEATURES)
    assert entries(tmp_path) == []


def test_cli_import(tmp_path, monkeypatch, capsys):
    files = upstream_files("istella-s")
    archive = tmp_path / "istella-s-letor.tar.gz"
    pack(files, archive)
    publish(monkeypatch, "istella-s", files, archive)
    assert main(["import", "istella-s", str(archive), "--data-dir", str(tmp_path / "data")]) == 0
    assert capsys.readouterr().out.startswith(f"istella-s: complete at {tmp_path / 'data' / 'istella-s'}")
    publish(monkeypatch, "istella-s", files, archive, archive_bytes=1)
    assert main(["import", "istella-s", str(archive), "--data-dir", str(tmp_path / "data")]) == 1
    assert "not the published 1 of istella-s-letor.tar.gz" in capsys.readouterr().err
