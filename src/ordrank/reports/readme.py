"""The generated tables of the results pages (docs/results/<paper>.md).

Each page holds tables computed from the committed results tables, between the markers
    <!-- BEGIN table:NAME --> ... <!-- END table:NAME -->
`experiments/reproduce.py` rewrites them; tests/test_reproduce.py checks they are up to date.
"""
from __future__ import annotations


def marker(name: str) -> tuple[str, str]:
    """The begin and end markers of generated table ``name``."""
    return f"<!-- BEGIN table:{name} -->", f"<!-- END table:{name} -->"


def generated_blocks(text: str) -> dict[str, str]:
    """The content between every pair of markers in ``text``: {name: content}."""
    import re

    found = {}
    for match in re.finditer(r"<!-- BEGIN table:([\w.-]+) -->\n(.*?)<!-- END table:\1 -->", text, re.S):
        found[match.group(1)] = match.group(2)
    return found


def replace_block(text: str, name: str, content: str, where: str = "README.md") -> str:
    """``text`` with the content between the markers of ``name`` replaced by ``content``.

    Raises ValueError naming ``where`` and the marker when the pair is missing or not unique.
    """
    begin, end = marker(name)
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ValueError(f"{where}: expected exactly one '{begin}' followed by one '{end}'")
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    return f"{head}{begin}\n{content.rstrip(chr(10))}\n{end}{tail}"
