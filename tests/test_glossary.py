"""One meaning per word: docs/glossary.md's terms are used, and the retired words stay retired.

- every term of the glossary (a ``- **term**:`` bullet) occurs, as a whole word, in some tracked file
  other than the glossary (code, configs, docs, tests);
- no retired word (a house word renamed because it meant two things, or had a plain name) occurs in
  the tracked sources, configs, docs, scripts and notebooks, except in CHANGELOG.md, the glossary's
  "formerly" notes, this file and the lines that still read a file of the former name (ALLOWED);
- the README and docs/README.md link the glossary.
"""
import re
import subprocess

import pytest

from conftest import REPO

GLOSSARY = REPO / "docs" / "glossary.md"
TERM = re.compile(r"^- \*\*([^*]+)\*\*:", re.M)

# retired word (a case-sensitive regex) -> what says it now
RETIRED = {
    r"[Pp]eer|PEER": "external learner / external_cache / external=... / EXTERNAL=...",
    r"LOCATION_KEYS": "NOT_CONFIG_COLUMNS",
    r"--skip-pages": "--skip-huge-pages",
    r"--redraw\b|\bredraws\b": "--from-tables (rebuild reports, figures and page tables)",
    r"[Ff]ingerprint": "config hash (ordrank.app.config_hash)",
    r"\b[Rr]eadings\b|\b(one-pass|either|passes|other) reading\b": "interpretation",
    r"\bprimed?\b|prime_": "made / filled",
    r"reference (machine|implementations?|codes?|formulation|dual)": "2 cores / external learner / "
                                                                     "authors' code / oracle",
    r"ratings(\.| import .*)resolve_data_dir": "ordrank.datasets.data_dir.resolve_data_dir",
}
# (file, retired regex) pairs allowed: the code that still reads a file of the former name
ALLOWED = {
    ("src/ordrank/results/external_cache.py", r"[Pp]eer|PEER"),
    ("tests/test_external_cache.py", r"[Pp]eer|PEER"),
}
SKIPPED = {"CHANGELOG.md", "docs/glossary.md", "tests/test_glossary.py"}
CHECKED = re.compile(r"^(src/|conf/|docs/|tests/|experiments/|benchmarks/|notebooks/.*\.py$|README\.md$|Makefile$|"
                     r"run\.py$|pyproject\.toml$)")


def tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return [path for path in listed.splitlines() if (REPO / path).is_file()]


def texts(paths) -> dict[str, str]:
    found = {}
    for path in paths:
        try:
            found[path] = (REPO / path).read_text(encoding="utf-8")
        except UnicodeDecodeError:  # a binary file (parquet, png)
            continue
    return found


def terms() -> list[str]:
    return TERM.findall(GLOSSARY.read_text(encoding="utf-8"))


def retired_uses(files: dict[str, str]) -> list[str]:
    """``path:line: word (say: ...)`` for each retired word in ``files`` outside SKIPPED and ALLOWED."""
    uses = []
    for path, text in files.items():
        if path in SKIPPED or not CHECKED.match(path):
            continue
        for pattern, instead in RETIRED.items():
            if (path, pattern) in ALLOWED:
                continue
            for match in re.finditer(pattern, text):
                line = text.count("\n", 0, match.start()) + 1
                uses.append(f"{path}:{line}: {match.group(0)!r} (say: {instead})")
    return uses


def test_the_glossary_defines_the_words_it_should():
    found = {t.lower() for t in terms()}
    for word in ("job", "piece", "external learner", "yardstick", "reference", "config hash",
                 "interpretation", "oracle", "published number", "committed table", "staged"):
        assert word in found, f"docs/glossary.md: no entry for {word!r}"
    assert len(found) == len(terms()), "docs/glossary.md: a term is defined twice"


@pytest.mark.parametrize("term", terms())
def test_every_glossary_term_is_used(term):
    word = re.compile(rf"(?i)(?<![\w-]){re.escape(term)}s?(?![\w-])")
    users = [path for path, text in texts(tracked()).items() if path != "docs/glossary.md" and word.search(text)]
    assert users, f"docs/glossary.md defines {term!r}, used nowhere else: drop it or use it"


def test_no_retired_word_is_back():
    uses = retired_uses(texts(tracked()))
    assert not uses, "retired words (docs/glossary.md):\n" + "\n".join(uses)


def test_the_retired_word_check_sees_them():
    files = {"src/ordrank/x.py": "from ordrank.results.peer_cache import PeerCache\n",
             "docs/a.md": "ok\n`python experiments/reproduce.py --redraw`\n",
             "conf/b.yaml": "peers: cached\n", "CHANGELOG.md": "peers -> external\n",
             "notebooks/c.ipynb": "PEER\n", "docs/d.md": "a TypeError, the passes_mode interpretation\n"}
    uses = retired_uses(files)
    assert [u.split(":")[0] for u in uses] == ["src/ordrank/x.py", "src/ordrank/x.py", "docs/a.md", "conf/b.yaml"]
    assert "docs/a.md:2: '--redraw'" in uses[2]


def test_the_readme_and_the_notes_link_the_glossary():
    assert "(docs/glossary.md)" in (REPO / "README.md").read_text(encoding="utf-8")
    assert "(glossary.md)" in (REPO / "docs" / "README.md").read_text(encoding="utf-8")
