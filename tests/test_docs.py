"""The README and docs/ stay short and true: the README fits in five minutes' reading, every relative
link (and image) of the README and docs/**/*.md resolves to a file and, with an #anchor, to one of its
headings, and every path the README's layout names exists."""
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
# [text](target) and ![alt](target); the target ends at whitespace or ")"; code spans are skipped
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE = re.compile(r"`[^`\n]*`")


def prose(text: str) -> str:
    """``text`` without fenced code blocks and code spans (where brackets are not links)."""
    return CODE.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    return LINK.findall(prose(text))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*|_(?=\W)|(?<=\W)_|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip())
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in the markdown file ``path`` (GitHub numbers repeated ones -1, -2, ...)."""
    seen: dict[str, int] = {}
    found = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        where = f"{page.relative_to(REPO)}: ({target})"
        if not path.exists():
            broken.append(f"{where}: no {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{where}: no heading #{anchor} in {path.relative_to(REPO)}")
    return broken


def test_readme_reads_in_five_minutes():
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines: move detail to docs/ (at most 250)"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_link_resolves(page):
    assert not broken_links(page), "\n".join(broken_links(page))


def test_the_link_check_sees_broken_links_and_anchors(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## The `x` part (b)\n", encoding="utf-8")
    page = tmp_path / "README.md"
    page.write_text("[ok](docs/a.md) [ok](docs/a.md#the-x-part-b) ![img](docs/none.png) [x](#nowhere)\n"
                    "[web](https://example.org/x) `[not a link](nowhere.md)`\n"
                    "```\n[in code](nowhere.md)\n```\n[bad anchor](docs/a.md#a-pag)\n", encoding="utf-8")
    broken = broken_links(page)
    assert len(broken) == 3 and "docs/none.png" in broken[0]
    assert "#nowhere" in broken[1] and "#a-pag" in broken[2]


def layout_paths() -> list[str]:
    """The first word of each line of the README's Layout block: a path from the repository root."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```\n(.*?)^```", section, re.S | re.M)
    assert block, "README.md: no code block under ## Layout"
    return [line.split()[0] for line in block.group(1).splitlines() if line.strip()]


def test_the_layout_names_only_paths_that_exist():
    paths = layout_paths()
    assert len(paths) >= 10
    missing = [p for p in paths if not (REPO / p).exists()]
    assert not missing, f"README.md's Layout names paths that do not exist: {missing}"
    folders = [p for p in paths if p.endswith("/")]
    assert all((REPO / p).is_dir() for p in folders), "a path ending in / is a folder"


GENERATED = {"__pycache__", "build", "outputs", "multirun", "logs", "data"}  # .gitignore's folders


def test_the_layout_names_every_folder():
    """Every folder at the top, of the package and of its algorithms is in the layout."""
    named = {p.rstrip("/") for p in layout_paths()}
    missing = []
    for parent in (REPO, REPO / "src" / "ordrank", REPO / "src" / "ordrank" / "algorithms"):
        for folder in sorted(parent.iterdir()):
            relative = folder.relative_to(REPO).as_posix()
            if (folder.is_dir() and not folder.name.startswith(".") and folder.name not in GENERATED
                    and not folder.name.endswith(".egg-info") and relative != "src"
                    and not any(n == relative or n.startswith(relative + "/") for n in named)):
                missing.append(relative + "/")
    assert not missing, f"README.md's Layout leaves out {missing}"


def test_no_issue_numbers_outside_the_changelog():
    """The code and docs say what is; the history (and the issues behind it) is CHANGELOG.md's."""
    import subprocess

    listed = subprocess.run(["git", "grep", "-nIiE", r"\bissues? ?#?[0-9]+\b", "--", ".", ":!CHANGELOG.md",
                             ":!tests/test_docs.py"], cwd=REPO, capture_output=True, text=True)
    assert listed.returncode in (0, 1), listed.stderr
    assert not listed.stdout, "issue numbers outside CHANGELOG.md:\n" + listed.stdout
