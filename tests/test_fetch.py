"""Data fetching: downloads from a local HTTP server, pinned checksums, atomic installs, list/missing/require.

Nothing here touches the internet: every test serves files from ``tmp_path`` on 127.0.0.1. The fake
sets get their hashes re-pinned for the test; the real-data tests serve the shared files with the
registry's own pinned hashes (and show that the ORCA archives are rebuilt byte for byte).
"""
import contextlib
import dataclasses
import functools
import hashlib
import http.server
import io
import os
import subprocess
import sys
import tarfile
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from ordrank.data import main
from ordrank.datasets import registry
from ordrank.datasets.fetch import fetch, missing, require, status
from ordrank.datasets.registry import Check, Download, FetchError
from ordrank.datasets.partitions import BINS, NAMES, BenchmarkData
from ordrank.datasets.ratings import load_movielens_100k

REPO = Path(__file__).resolve().parents[1]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_head(self):  # "/cut/<path>": announce the whole file, send half of it, hang up
        if self.path.startswith("/cut/"):
            data = Path(self.directory, self.path[len("/cut/"):]).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return None
        return super().send_head()


@contextlib.contextmanager
def http_server(root: Path):
    """Serve the folder `root` on 127.0.0.1; yields its URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """(folder served over HTTP, its URL); no retries, no proxy, no ORDRANK_DATA_URL from outside."""
    root = tmp_path / "mirror"
    root.mkdir()
    monkeypatch.setattr("ordrank.datasets.fetch.RETRIES", 0)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.delenv("ORDRANK_DATA_URL", raising=False)
    with http_server(root) as url:
        yield root, url


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def serve(root: Path, folder: str, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        (root / folder / path).parent.mkdir(parents=True, exist_ok=True)
        (root / folder / path).write_bytes(data)


def pin(monkeypatch, name: str, **changes) -> registry.DataSet:
    """Replace registry entry `name` by a copy with `changes` for this test."""
    ds = dataclasses.replace(registry.DATASETS[name], **changes)
    monkeypatch.setitem(registry.DATASETS, name, ds)
    return ds


def only(ds: registry.DataSet, prefixes) -> dict:
    """Checks and downloads of `ds` whose source or path starts with one of `prefixes`."""
    return {"checks": tuple(c for c in ds.checks if c.source.startswith(tuple(prefixes))),
            "downloads": tuple(d for d in ds.downloads if d.path.startswith(tuple(prefixes)))}


def entries(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir()) if path.exists() else []


U_DATA = b"".join(f"{u}\t{i}\t{(u * i) % 5 + 1}\t88125000{u}\n".encode() for u in range(1, 5) for i in range(1, 4))


def fake_movielens_zip() -> tuple[bytes, dict[str, bytes]]:
    files = {"u.data": U_DATA, **{name: f"fake {name}\n".encode() for name in registry.MOVIELENS_100K_FILES
                                  if name != "u.data"}, "u1.base": b"extra file of the zip\n"}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for name, data in files.items():
            zipped.writestr(f"ml-100k/{name}", data)
    return buffer.getvalue(), files


def pin_fake_movielens(monkeypatch, root: Path) -> dict[str, bytes]:
    archive, files = fake_movielens_zip()
    serve(root, "movielens-100k", {"ml-100k.zip": archive})
    pin(monkeypatch, "movielens-100k", downloads=(Download("ml-100k.zip", known_hash=sha256(archive)),),
        checks=tuple(Check((f,), sha256(files[f]), "ml-100k.zip") for f in registry.MOVIELENS_100K_FILES))
    return files


# --- fetch works, and the loaders read the result -------------------------------------------------------

@pytest.fixture
def fake_movielens(mirror, monkeypatch):
    root, url = mirror
    return pin_fake_movielens(monkeypatch, root)


def test_fetch_unzips_movielens_and_the_loader_reads_it(mirror, fake_movielens, tmp_path):
    data = tmp_path / "data"
    path = fetch("movielens-100k", data, base_url=mirror[1])
    assert path == data / "movielens-100k"
    assert (path / "u.data").read_bytes() == U_DATA and (path / "u1.base").is_file()
    with pytest.warns(UserWarning, match="not the published data"):  # fake u.data: another size
        ratings = load_movielens_100k(data)
    assert ratings.n_ratings == 12 and ratings.matrix.shape == (4, 3)
    assert entries(data) == ["movielens-100k"]  # no temporary folder left
    assert status("movielens-100k", data).complete and missing(["movielens-100k"], data) == []


def test_fetch_reads_the_mirror_from_the_environment_and_the_data_dir_from_ORDRANK_DATA(
        mirror, fake_movielens, tmp_path, monkeypatch):
    monkeypatch.setenv("ORDRANK_DATA_URL", mirror[1])
    monkeypatch.setenv("ORDRANK_DATA", str(tmp_path / "env-data"))
    assert fetch("movielens-100k") == tmp_path / "env-data" / "movielens-100k"
    (tmp_path / "env-data" / "movielens-100k" / "u.data").unlink()
    assert main(["fetch", "movielens-100k"]) == 0  # the CLI resolves both the same way
    assert (tmp_path / "env-data" / "movielens-100k" / "u.data").read_bytes() == U_DATA


def fake_partition(rng, n: int, n_inputs: int, bins: int) -> bytes:
    X = rng.normal(size=(n, n_inputs))
    y = np.arange(n) % bins + 1
    return "".join(" ".join(f"{v:.6f}" for v in row) + f" {label}\n" for row, label in zip(X, y)).encode()


def test_fetch_packs_orca_members_into_the_archive_the_loader_reads(mirror, monkeypatch, tmp_path):
    root, url = mirror
    rng = np.random.default_rng(0)
    members = {m: fake_partition(rng, 6, 3, 5) for m in registry._orca_members("5bins/pyrim")}
    serve(root, "orca-discretized-regression", members)
    packed = tmp_path / "expected.tar.xz"
    registry.pack_tar_xz(root / "orca-discretized-regression", members, packed)
    pin(monkeypatch, "orca", checks=(Check(("5bins/pyrim.tar.xz",), sha256(packed.read_bytes()), "5bins/pyrim"),),
        downloads=tuple(Download(m) for m in members))

    data = tmp_path / "data"
    fetch("orca", data, base_url=url)
    archive = data / "orca-discretized-regression" / "5bins" / "pyrim.tar.xz"
    with tarfile.open(archive) as tar:
        assert tar.getnames() == sorted(members)
    X_train, y_train, X_test, y_test = BenchmarkData("pyrim", bins=5, source="orca", data_dir=data).split(3)
    expected = np.loadtxt(root / "orca-discretized-regression" / "5bins/pyrim/matlab/train_pyrim.3")
    np.testing.assert_array_equal(X_train, expected[:, :-1])
    np.testing.assert_array_equal(y_train, expected[:, -1])


def test_fetch_chu_files_as_they_are(mirror, monkeypatch, tmp_path):
    root, url = mirror
    rng = np.random.default_rng(1)
    files = {f: fake_partition(rng, 5, 2, 10) for f in registry._chu_files("machinecpu/10bins")}
    serve(root, "chu-ghahramani-2005-ordinal", files)
    listing = "".join(f"{sha256(files[f])}  {f}\n" for f in sorted(files))
    pin(monkeypatch, "chu", checks=(Check(tuple(files), sha256(listing.encode()), "machinecpu/10bins"),),
        downloads=tuple(Download(f) for f in files))
    data = tmp_path / "data"
    fetch("chu", data, base_url=url)
    splits = list(BenchmarkData("machine", bins=10, source="chu", data_dir=data).splits())
    assert len(splits) == 20 and all(len(s[0]) == 5 for s in splits)


# --- corrupted, truncated and cut downloads: a clear error, nothing left behind -------------------------

@pytest.mark.parametrize("damage", ["corrupted", "truncated"])
def test_a_bad_download_names_set_url_and_hashes_and_leaves_nothing(mirror, monkeypatch, tmp_path, damage):
    root, url = mirror
    good = b"M,0.455,0.365,0.095,0.514,0.2245,0.101,0.15,15\n" * 50
    bad = good[:100] + b"X" + good[101:] if damage == "corrupted" else good[:len(good) // 3]
    serve(root, "uci-abalone", {"abalone.data": bad, "abalone.names": b"names\n"})
    pin(monkeypatch, "uci-abalone", downloads=(Download("abalone.names", known_hash=sha256(b"names\n")),
                                               Download("abalone.data", known_hash=sha256(good))),
        checks=(Check(("abalone.names",), sha256(b"names\n")), Check(("abalone.data",), sha256(good))))
    data = tmp_path / "data"
    with pytest.raises(FetchError) as error:
        fetch("uci-abalone", data, base_url=url)
    message = str(error.value)
    for part in ("uci-abalone", f"{url}/uci-abalone/abalone.data", sha256(good), sha256(bad)):
        assert part in message
    assert entries(data) == []  # not even the good abalone.names, nor a temporary file


def test_a_bad_member_of_a_packed_set_names_the_folder_url_and_hashes(mirror, monkeypatch, tmp_path):
    root, url = mirror
    files = {f: b"1 2 3\n" for f in registry._chu_files("pyrimidines/5bins")}
    listing = "".join(f"{sha256(files[f])}  {f}\n" for f in sorted(files))
    files[next(iter(files))] = b"1 2"  # truncated on the server
    serve(root, "chu-ghahramani-2005-ordinal", files)
    pin(monkeypatch, "chu", checks=(Check(tuple(files), sha256(listing.encode()), "pyrimidines/5bins"),),
        downloads=tuple(Download(f) for f in files))
    data = tmp_path / "data"
    data.mkdir()
    (data / "keep.txt").write_text("a user's file")
    with pytest.raises(FetchError, match=f"chu: pyrimidines/5bins/ .*{url}/chu-ghahramani-2005-ordinal/"
                                         f"pyrimidines/5bins does not match its pinned sha256: "
                                         f"expected {sha256(listing.encode())}, got [0-9a-f]{{64}}"):
        fetch("chu", data, base_url=url)
    assert entries(data) == ["keep.txt"]


def test_a_connection_cut_mid_file_is_a_download_error(mirror, monkeypatch, tmp_path):
    root, url = mirror
    serve(root, "uci-abalone", {"abalone.data": b"x" * 5000})
    pin(monkeypatch, "uci-abalone", downloads=(Download("abalone.data", known_hash=sha256(b"x" * 5000)),),
        checks=(Check(("abalone.data",), sha256(b"x" * 5000)),))
    data = tmp_path / "data"
    with pytest.raises(FetchError, match=f"uci-abalone: could not download {url}/cut/uci-abalone/abalone.data"):
        fetch("uci-abalone", data, base_url=f"{url}/cut")
    assert entries(data) == []


def test_a_failed_fetch_keeps_the_old_files_and_a_good_one_replaces_only_its_own(mirror, fake_movielens, tmp_path):
    data = tmp_path / "data"
    folder = data / "movielens-100k"
    folder.mkdir(parents=True)
    (folder / "u.data").write_bytes(b"old\n")
    (folder / "notes.txt").write_text("mine")
    (mirror[0] / "movielens-100k" / "ml-100k.zip").write_bytes(b"not a zip")
    with pytest.raises(FetchError, match="does not match its pinned checksum"):
        fetch("movielens-100k", data, base_url=mirror[1])
    assert (folder / "u.data").read_bytes() == b"old\n" and entries(data) == ["movielens-100k"]
    (mirror[0] / "movielens-100k" / "ml-100k.zip").write_bytes(fake_movielens_zip()[0])
    fetch("movielens-100k", data, base_url=mirror[1])
    assert (folder / "u.data").read_bytes() == U_DATA and (folder / "notes.txt").read_text() == "mine"


def test_a_zip_without_the_expected_folder_is_an_unpack_error(mirror, monkeypatch, tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        zipped.writestr("other/u.data", U_DATA)
    serve(mirror[0], "movielens-100k", {"ml-100k.zip": buffer.getvalue()})
    pin(monkeypatch, "movielens-100k", downloads=(Download("ml-100k.zip", known_hash=sha256(buffer.getvalue())),))
    with pytest.raises(FetchError, match="movielens-100k: could not unpack .*ml-100k.zip: the zip archive has no "
                                         "folder ml-100k/"):
        fetch("movielens-100k", tmp_path / "data", base_url=mirror[1])
    assert entries(tmp_path / "data") == []


# --- list, missing, require, unknown names --------------------------------------------------------------

def test_missing_and_require_say_how_to_get_each_set(tmp_path):
    data = tmp_path / "data"
    lines = missing(["movielens-100k", "eachmovie", "orca"], data)
    assert len(lines) == 3
    assert lines[0].startswith(f"movielens-100k (MovieLens 100K) at {data / 'movielens-100k'}: not found")
    assert lines[0].endswith(f"get it with: python -m ordrank.data fetch movielens-100k --data-dir {data}")
    assert "no public download" in lines[1] and f"Put Vote.txt at {data}/eachmovie/Vote.txt" in lines[1]
    assert "python -m ordrank.data fetch orca" in lines[2]
    with pytest.raises(FileNotFoundError) as error:
        require(["movielens-100k", "eachmovie"], data)
    assert str(error.value).splitlines()[1:] == [f"- {line}" for line in lines[:2]]
    assert str(data) in str(error.value).splitlines()[0]
    with pytest.raises(ValueError, match="unknown data set 'movielens'; known: movielens-100k, movielens-1m"):
        missing(["movielens"], data)


def test_missing_names_a_file_with_the_wrong_checksum_and_a_missing_one(tmp_path):
    folder = tmp_path / "movielens-100k"
    folder.mkdir()
    (folder / "u.data").write_bytes(b"1\t1\t5\t0\n")
    (line,) = missing(["movielens-100k"], tmp_path)
    pinned = registry.MOVIELENS_100K_FILES["u.data"]
    assert "README missing" in line and "u.data has sha256 " in line and f"not the pinned {pinned}" in line
    assert "(7 problems)" in line


def test_require_passes_when_complete_and_accepts_the_alias_folder(tmp_path, monkeypatch):
    pin(monkeypatch, "movielens-1m", checks=(Check(("ratings.dat",), None),))
    (tmp_path / "ml-1m").mkdir()
    (tmp_path / "ml-1m" / "ratings.dat").write_text("1::1::5::0\n")
    require(["movielens-1m"], tmp_path)  # no pinned hash: present is enough
    files = {f: f"x{f}".encode() for f in registry.MOVIELENS_100K_FILES}
    pin(monkeypatch, "movielens-100k", checks=tuple(Check((f,), sha256(d)) for f, d in files.items()))
    serve(tmp_path, "ml-100k", files)  # the loaders' other folder
    require(["movielens-100k"], tmp_path)


def test_fetch_of_a_set_without_public_download_gives_the_manual_steps(tmp_path):
    with pytest.raises(FetchError, match="eachmovie: no public download: .*zenodo.*Put Vote.txt at"):
        fetch("eachmovie", tmp_path)
    assert entries(tmp_path) == []


def test_cli_list_fetch_check_and_unknown_names(mirror, fake_movielens, tmp_path, capsys):
    data = str(tmp_path / "data")
    assert main(["list", "--data-dir", data]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0] == f"data directory: {data}" and table[1].split()[:5] == ["NAME", "STATE", "SIZE", "FOLDER", "FROM"]
    rows = {line.split()[0]: line for line in table[2:]}
    assert list(rows) == list(registry.DATASETS)
    assert " absent " in rows["movielens-100k"] and "absent (manual download)" in rows["eachmovie"]
    assert "https://files.grouplens.org/datasets/movielens/ml-100k.zip" in rows["movielens-100k"]

    assert main(["check", "movielens-100k", "--data-dir", data]) == 1
    assert "python -m ordrank.data fetch movielens-100k" in capsys.readouterr().err
    assert main(["--data-dir", data, "fetch", "movielens-100k", "--base-url", mirror[1]]) == 0
    assert capsys.readouterr().out == f"movielens-100k: complete at {data}/movielens-100k\n"
    assert main(["check", "movielens-100k", "--data-dir", data]) == 0
    main(["list", "--data-dir", data])
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("movielens-100k"))
    assert row.split()[1] == "complete" and "movielens-100k/" in row

    assert main(["fetch", "movielens-100k", "nope", "--data-dir", data]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown data set 'nope'; known: " + ", ".join(registry.DATASETS) in err


def test_fetch_all_fetches_every_set_with_a_download_and_skips_the_manual_one(mirror, monkeypatch, tmp_path, capsys):
    for name in registry.DATASETS:
        if registry.DATASETS[name].downloads and name != "uci-abalone":
            pin(monkeypatch, name, downloads=(Download("gone.zip"),))  # 404 on the mirror
    serve(mirror[0], "uci-abalone", {"abalone.data": b"d\n", "abalone.names": b"n\n"})
    pin(monkeypatch, "uci-abalone", downloads=(Download("abalone.data"), Download("abalone.names")),
        checks=(Check(("abalone.data",), sha256(b"d\n")),))
    assert main(["fetch", "all", "--data-dir", str(tmp_path), "--base-url", mirror[1]]) == 1
    out, err = capsys.readouterr()
    assert out == f"uci-abalone: complete at {tmp_path}/uci-abalone\n"
    assert "eachmovie: skipped, no public download" in err
    assert err.count("error: ") == len([n for n in registry.DATASETS if registry.DATASETS[n].downloads]) - 1
    assert f"movielens-10m: could not download {mirror[1]}/ml-10M100K/gone.zip: 404" in err


def test_python_m_ordrank_data_runs(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "ORDRANK_DATA": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "ordrank.data", "fetch", "nope"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("python -m ordrank.data: error: unknown data set")


# --- the registry itself ---------------------------------------------------------------------------------

def test_registry_covers_every_file_the_loaders_read():
    orca, chu = registry.DATASETS["orca"], registry.DATASETS["chu"]
    assert len(orca.checks) == len(NAMES["orca"]) * len(BINS) and len(orca.downloads) == 24 * 40
    chu_files = {f for check in chu.checks for f in check.files}
    for benchmark in NAMES["chu"]:
        for bins in BINS:
            data = BenchmarkData.__new__(BenchmarkData)  # not __init__: it needs the files
            data.benchmark, data.bins, data.source, data.data_dir = benchmark, bins, "chu", "D"
            folder = data.source_path.relative_to(Path("D") / chu.folder).as_posix()
            assert {f"{folder}/{a}" for i in range(20) for a in data._files(i)} <= chu_files
    for name, ds in registry.DATASETS.items():
        assert ds.checks and all(len(c.sha256 or "0" * 64) == 64 for c in ds.checks), name
        assert bool(ds.downloads) == (ds.install is not None) == (not ds.manual), name  # manual: by hand
        assert len({d.path for d in ds.downloads}) == len(ds.downloads), name


def test_pack_tar_xz_is_deterministic(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").write_bytes(b"1 2\n")
    (tmp_path / "a" / "y").write_bytes(b"3 4\n")
    registry.pack_tar_xz(tmp_path, ["a/y", "a/x"], tmp_path / "one.tar.xz")
    os.utime(tmp_path / "a" / "x", (0, 0))
    registry.pack_tar_xz(tmp_path, ["a/x", "a/y"], tmp_path / "two.tar.xz")
    assert (tmp_path / "one.tar.xz").read_bytes() == (tmp_path / "two.tar.xz").read_bytes()
    with tarfile.open(tmp_path / "one.tar.xz") as tar:
        assert [(m.name, m.mtime, m.mode, m.uid, m.uname) for m in tar] == [
            ("a/x", registry.TAR_MTIME, 0o644, 0, ""), ("a/y", registry.TAR_MTIME, 0o644, 0, "")]


# --- the real files with the registry's own pinned checksums -------------------------------------------

def test_real_chu_and_abalone_fetched_whole_from_a_mirror_of_the_data_dir(mirror, shared_data_dir, tmp_path):
    """The shared data directory is laid out as a mirror of these two sets: serve it as it is."""
    with http_server(shared_data_dir) as url:
        assert main(["fetch", "chu", "uci-abalone", "--data-dir", str(tmp_path), "--base-url", url]) == 0
    assert status("chu", tmp_path).complete and status("uci-abalone", tmp_path).complete
    assert len(list((tmp_path / "chu-ghahramani-2005-ordinal").rglob("*_t*_*.*"))) == 400
    assert BenchmarkData("pyrim", bins=5, source="chu", data_dir=tmp_path).split(19)[0].shape == (50, 27)


def test_real_orca_archives_are_rebuilt_byte_for_byte(mirror, shared_data_dir, tmp_path, monkeypatch):
    root, url = mirror
    archives = ["5bins/pyrim", "10bins/machine10"]
    for archive in archives:
        with tarfile.open(shared_data_dir / "orca-discretized-regression" / f"{archive}.tar.xz") as tar:
            serve(root, "orca-discretized-regression", {m.name: tar.extractfile(m).read() for m in tar})
    pin(monkeypatch, "orca", **only(registry.DATASETS["orca"], archives))  # the registry's pinned hashes
    fetch("orca", tmp_path / "data", base_url=url)
    for archive in archives:
        got = tmp_path / "data" / "orca-discretized-regression" / f"{archive}.tar.xz"
        assert got.read_bytes() == (shared_data_dir / "orca-discretized-regression" / f"{archive}.tar.xz").read_bytes()
    assert BenchmarkData("machine", bins=10, data_dir=tmp_path / "data").split(0)[0].shape == (150, 6)
    for benchmark in NAMES["orca"]:  # and the registry has every archive the loader reads
        for bins in BINS:
            path = BenchmarkData(benchmark, bins=bins, data_dir=shared_data_dir).source_path
            assert path.relative_to(shared_data_dir / "orca-discretized-regression").as_posix()[:-7] in \
                registry.ORCA_ARCHIVES


def test_real_movielens_unpacks_to_the_pinned_hashes(mirror, shared_data_dir, tmp_path, monkeypatch):
    root, url = mirror
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for name in registry.MOVIELENS_100K_FILES:
            zipped.write(shared_data_dir / "movielens-100k" / name, f"ml-100k/{name}")
    serve(root, "movielens-100k", {"ml-100k.zip": buffer.getvalue()})
    # the zip is ours, so only its hash is re-pinned; the unpacked files meet the registry's hashes
    pin(monkeypatch, "movielens-100k", downloads=(Download("ml-100k.zip", known_hash=sha256(buffer.getvalue())),))
    fetch("movielens-100k", tmp_path / "data", base_url=url)
    assert load_movielens_100k(tmp_path / "data").n_ratings == 100_000
    assert missing(["movielens-100k"], tmp_path / "data") == []


def ohsumed_zip(subsets: dict[str, bytes], leave_out: str = "") -> bytes:
    """OHSUMED.zip as LETOR 3.0 lays it out, made from the subsets: OHSUMED/QueryLevelNorm/Fold<k>/
    {train,vali,test}.txt, Fold k testing on S_{k-1} (S5 for Fold1) and validating on the one before."""
    s = [subsets[f"S{i}.txt"] for i in range(1, 6)]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("OHSUMED/Feature-min/Fold1/test.txt", b"other versions are ignored\n")
        for k in range(1, 6):
            test, vali, train = (k + 3) % 5, (k + 2) % 5, [(k + j) % 5 for j in (4, 5, 6)]
            parts = {"train": b"".join(s[i] for i in train), "vali": s[vali], "test": s[test]}
            for part, data in parts.items():
                if f"Fold{k}/{part}" != leave_out:
                    zipped.writestr(f"OHSUMED/QueryLevelNorm/Fold{k}/{part}.txt", data)
    return buffer.getvalue()


def test_real_ohsumed_subsets_come_from_the_official_zip_layout(mirror, shared_data_dir, tmp_path):
    from ordrank.datasets.letor import LetorData

    root, url = mirror
    shared = shared_data_dir / "letor3-ohsumed" / "QueryLevelNorm"
    subsets = {f"S{i}.txt": (shared / f"S{i}.txt").read_bytes() for i in range(1, 6)}
    serve(root, "letor3-ohsumed", {"OHSUMED.zip": ohsumed_zip(subsets)})
    assert main(["fetch", "letor3-ohsumed", "--data-dir", str(tmp_path), "--base-url", url]) == 0  # pinned sha256s
    for name, data in subsets.items():
        assert (tmp_path / "letor3-ohsumed" / "QueryLevelNorm" / name).read_bytes() == data
    assert sorted(p.name for p in (tmp_path / "letor3-ohsumed").rglob("*")) == ["QueryLevelNorm", *sorted(subsets)]
    assert missing(["letor3-ohsumed"], tmp_path) == []
    assert len(LetorData("letor3-ohsumed", data_dir=tmp_path, n_features=45).fold(1).train) == 9_219


def test_an_ohsumed_zip_without_a_fold_or_with_other_files_is_refused(mirror, tmp_path):
    root, url = mirror
    fake = {f"S{i}.txt": f"{i} qid:{i} 1:0.5 #docid = {i}\n".encode() for i in range(1, 6)}
    serve(root, "letor3-ohsumed", {"OHSUMED.zip": ohsumed_zip(fake, leave_out="Fold3/test")})
    with pytest.raises(FetchError, match=r"letor3-ohsumed: could not unpack the download from "
                                         f"{url}/letor3-ohsumed/OHSUMED.zip: the zip archive has no "
                                         r"QueryLevelNorm/Fold3/test.txt"):
        fetch("letor3-ohsumed", tmp_path / "data", base_url=url)
    serve(root, "letor3-ohsumed", {"OHSUMED.zip": ohsumed_zip(fake)})  # complete, but not the pinned files
    with pytest.raises(FetchError, match=r"letor3-ohsumed: QueryLevelNorm/S1.txt made from .*OHSUMED.zip does not "
                                         r"match its pinned sha256: expected 77db6790.*\(4 more checks failed\)"):
        fetch("letor3-ohsumed", tmp_path / "data", base_url=url)
    assert entries(tmp_path / "data") == []
