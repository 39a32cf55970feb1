"""The web-scale learning-to-rank sets that are downloaded by hand: MSLR-WEB10K/30K, Yahoo! set 1, Istella-S.

None of them can be fetched automatically (a license page, an agreement, a sign-in), and no checksum
of their archives is pinned here (they could not be downloaded to compute one). Each :class:`WebLayout`
says what ``python -m ordrank.data import NAME PATH`` (:mod:`ordrank.datasets.web_import`) takes from
the official archive or its unpacked folder and where it puts each file, always in the LETOR folder
layout ``Fold<k>/{train,vali,test}.txt`` that :class:`ordrank.datasets.letor.LetorData` reads.

:data:`PUBLISHED` holds the published sizes the import checks: the archive's byte count (checked when
the file given has the official archive name) and documents per file (lines, counted without parsing).
Where a count was not published, only the layout is checked. It is a module constant so that tests
can replace it with the sizes of small fake archives.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

PARTS = ("train", "vali", "test")
CHUNK = 1 << 24  # bytes read at a time when counting lines


@dataclass(frozen=True)
class WebLayout:
    """A set downloaded by hand: its ``title``, ``origin`` (where to get it), ``terms``, ``size`` (for
    ``list``), the official ``archive`` name, ``files`` (installed path, path in the archive's top
    folder), ``inner`` archives that may hold the files one level down (Yahoo's download) and a ``note``
    on the archive for the manual steps."""

    title: str
    origin: str
    terms: str
    size: str
    archive: str
    files: tuple[tuple[str, str], ...]
    inner: tuple[str, ...] = ()
    note: str = ""

    @property
    def installed(self) -> tuple[str, ...]:
        return tuple(installed for installed, _ in self.files)

    def manual(self, name: str) -> str:
        """The manual steps (``<data dir>`` is replaced by the data directory where they are shown)."""
        return (f"manual download only ({self.terms}): get {self.archive}{self.note} from {self.origin}, then "
                f"install it with: python -m ordrank.data import {name} PATH --data-dir <data dir>, PATH being "
                f"the archive or its unpacked folder (the layout and the published sizes are checked; no "
                f"pinned checksums)")


@dataclass(frozen=True)
class Published:
    """Published sizes: ``archive_bytes`` of the official archive, ``fold_documents`` (each fold's
    train + vali + test lines) and ``lines`` of single installed files; None or absent: not published."""

    archive_bytes: int | None = None
    fold_documents: int | None = None
    lines: dict[str, int] = field(default_factory=dict)


def _folds(n: int, naming=lambda k, part: f"Fold{k}/{part}.txt") -> tuple[tuple[str, str], ...]:
    return tuple((f"Fold{k}/{part}.txt", naming(k, part)) for k in range(1, n + 1) for part in PARTS)


MSLR = "https://www.microsoft.com/en-us/research/project/mslr/"
MSLR_TERMS = "Microsoft Research's release for research use; see the project page for its terms"
WEBSCOPE = "https://webscope.sandbox.yahoo.com/catalog.php?datatype=c&did=64"
ISTELLA = "https://istella.ai (its LETOR page; earlier http://quickrank.isti.cnr.it/istella-dataset/)"

WEB_LAYOUTS: dict[str, WebLayout] = {
    "mslr-web10k": WebLayout(
        "MSLR-WEB10K (Microsoft Learning to Rank, 5 folds)", f"Microsoft Research, {MSLR}", MSLR_TERMS,
        "1.2 GB zip", "MSLR-WEB10K.zip", _folds(5)),
    "mslr-web30k": WebLayout(
        "MSLR-WEB30K (Microsoft Learning to Rank, 5 folds)", f"Microsoft Research, {MSLR}", MSLR_TERMS,
        "3.8 GB zip", "MSLR-WEB30K.zip", _folds(5)),
    "yahoo-ltr-set1": WebLayout(
        "Yahoo! Learning to Rank Challenge, set 1 (one fold)",
        f"Yahoo! Webscope, dataset C14 (Learning to Rank Challenge; C14B, version 2.0, in the catalog), {WEBSCOPE}",
        "Yahoo! Webscope's data agreement, accepted when requesting the data", "size not published",
        "ltrc_yahoo.tar.bz2", _folds(1, lambda k, part: f"set1.{'valid' if part == 'vali' else part}.txt"),
        inner=("ltrc_yahoo.tar.bz2", "ltrc_yahoo.tgz"),
        note=" (inside the Webscope download, dataset.tgz or Webscope_C14B.tgz with ltrc_yahoo.tgz; import takes "
             "either)"),
    "istella-s": WebLayout(
        "Istella-S LETOR (one fold)", f"Istella, {ISTELLA}",
        "the Istella LETOR license agreement: non-commercial use only", "0.5 GB tar.gz",
        "istella-s-letor.tar.gz", _folds(1, lambda k, part: f"sample/{part}.txt")),
}
"""The manual sets by name (``ordrank.datasets.registry`` registers each as a DataSet)."""

PUBLISHED: dict[str, Published] = {
    # MSLR page and TFDS's checksums.tsv (archive bytes); Fold1 train/test as reported in LightGBM's and
    # others' benchmarks, vali = the fold's total minus both (every fold holds all five subsets S1..S5).
    "mslr-web10k": Published(1_234_144_912, 1_200_192,
                             {"Fold1/train.txt": 723_412, "Fold1/vali.txt": 235_259, "Fold1/test.txt": 241_521}),
    "mslr-web30k": Published(3_849_406_307, 3_771_125,
                             {"Fold1/train.txt": 2_270_296, "Fold1/vali.txt": 747_218, "Fold1/test.txt": 753_611}),
    # Chapelle & Chang 2011, Table 1 (urls per part); no published archive size.
    "yahoo-ltr-set1": Published(None, 709_877,
                                {"Fold1/train.txt": 473_134, "Fold1/vali.txt": 71_083, "Fold1/test.txt": 165_660}),
    # Istella's README (3,408,630 pairs) and TFDS's checksums.tsv (archive bytes); train/test as reported by
    # users of the set, vali = the total minus both.
    "istella-s": Published(472_129_615, 3_408_630,
                           {"Fold1/train.txt": 2_043_304, "Fold1/vali.txt": 684_076, "Fold1/test.txt": 681_250}),
}
"""Published sizes each import checks (see :class:`Published`)."""


def count_lines(path: Path) -> int:
    """Lines of ``path``: its newlines (LF; CRLF counts once), plus one for a last line without one."""
    count, last = 0, b"\n"
    with open(path, "rb") as file:
        while chunk := file.read(CHUNK):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")
