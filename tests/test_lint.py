"""The linter, so that ``pytest`` alone catches what ``make test`` does: ``ruff check .`` passes (its
rules: pyproject.toml's ``[tool.ruff]``), and every ``# noqa`` names the codes it waives and why.

A waiver reads ``# noqa: CODE[, CODE] - why`` (``--``, ``(why)`` or ``# why`` after the codes work
too: ruff reads the codes and stops at the first word that is not one). A bare ``# noqa`` (every
code) or codes with no reason is refused here; a waiver that waives nothing is ruff's RUF100.
"""
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

from conftest import REPO

# the Python files ruff checks that may hold a waiver (notebooks/*.ipynb are excluded: paired copies)
FOLDERS = ["src", "tests", "experiments", "benchmarks", "notebooks"]
# a line's noqa directive, or a whole file's (ruff's or flake8's): the same rules, codes then why
DIRECTIVE = re.compile(r"#\s*(?:(?:ruff|flake8)\s*:\s*)?noqa\b(?P<rest>.*)", re.IGNORECASE)
CODES = re.compile(r":\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*")
REASON = re.compile(r"^\s*(?:--?|—|–|\(|#)?\s*(?=\S)(?=.*[^\W\d_]{2})")  # some words after the codes


def python_files() -> list[Path]:
    files = [path for folder in FOLDERS for path in sorted((REPO / folder).rglob("*.py"))]
    return files + [REPO / "run.py"]


def waivers(path: Path) -> list[tuple[int, str]]:
    """(line, comment) of each comment in ``path`` holding a noqa directive (strings are not comments)."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return [(token.start[0], token.string) for token in tokens
            if token.type == tokenize.COMMENT and DIRECTIVE.search(token.string)]


def unexplained(comment: str) -> str | None:
    """What is missing from the noqa directive in ``comment``: None when it names codes and a reason."""
    rest = DIRECTIVE.search(comment)["rest"]
    codes = CODES.match(rest)
    if codes is None:
        return "no codes (a bare noqa waives every rule): name them, `# noqa: CODE - why`"
    if REASON.match(rest[codes.end():]) is None:
        return "no reason: say why after the codes, `# noqa: CODE - why`"
    return None


def test_unexplained_waivers_are_found():
    assert unexplained("# noqa") and unexplained("#noqa: E402") and unexplained("# noqa: E402, F401 -")
    assert unexplained("# noqa: E402 -- 2") and unexplained("# NOQA") and unexplained("# ruff: noqa: E501")
    assert not unexplained("# noqa: E402 - after sys.path is set")
    assert not unexplained("# noqa: E402, F401 -- re-exported")
    assert not unexplained("# noqa: F401 (used by the scripts)")
    assert not unexplained("# noqa: BLE001 - a failed grid point scores NaN")
    assert not unexplained("# first a comment # noqa: BLE001 - recorded in the table")


def test_every_noqa_names_its_codes_and_its_reason():
    found = [f"{path.relative_to(REPO)}:{line}: {problem}: {comment.strip()}"
             for path in python_files() for line, comment in waivers(path)
             if (problem := unexplained(comment))]
    assert not found, "noqa without codes or reason:\n" + "\n".join(found)


def test_ruff_check_passes():
    """The whole tree as ``make test`` lints it (the venv's ruff, the project's configuration)."""
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "concise", "."],
                          cwd=REPO, capture_output=True, text=True)
    assert "No module named ruff" not in done.stderr, "ruff is not installed: pip install -e '.[dev]'"
    assert done.returncode == 0, f"ruff check . failed:\n{done.stdout}{done.stderr}"
    # a directive ruff cannot parse is ignored with a warning, not an error: refuse it here
    assert "Invalid `# noqa` directive" not in done.stderr, done.stderr


def test_make_test_lints_before_the_suite():
    """``make test`` (CI's command) and ``make test-fast`` fail on a lint error before pytest starts."""
    makefile = (REPO / "Makefile").read_text()
    for target in ("test", "test-fast"):
        recipe = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, flags=re.M)[1].splitlines()
        lint = [k for k, line in enumerate(recipe) if "ruff check ." in line]
        suite = [k for k, line in enumerate(recipe) if "pytest" in line]
        assert lint and suite and lint[0] < suite[0], f"make {target}: {recipe}"
