"""The index of validation/README.md's rules: each rule written before its held-out table, and what it gave.

Run ``python validation/index_rules.py`` after adding a rule: it rewrites the table between the README's
``<!-- rules-index -->`` markers from the headings (a ``### ...`` heading that says "rule written", and the first
``#### What ...: outcome`` heading after it, or where the outcome is stated in the text, an ``<!-- outcome: ... -->``
line in the rule's section). ``tests/test_validation_docs.py`` checks that the table is current.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent / "README.md"
BEGIN, END = "<!-- rules-index -->", "<!-- /rules-index -->"
_RULE = re.compile(r"^(?P<title>.*?) \((?P<when>[^()]*rule written[^()]*)\)\s*$")
_OUTCOME = re.compile(r"^What .*\)\s*:\s*(?P<outcome>.+)$")
_MARKER = re.compile(r"^<!-- outcome: (?P<outcome>.+?) -->\s*$")


def slug(heading: str, seen: dict[str, int]) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered."""
    base = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
    n = seen.get(base, 0)
    seen[base] = n + 1
    return base if n == 0 else f"{base}-{n}"


def rules(text: str) -> list[tuple[str, str, str, str]]:
    """(title, anchor, date, outcome) of every rule heading, in the file's order."""
    out: list[list[str]] = []
    seen: dict[str, int] = {}
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        marker = None if in_code else _MARKER.match(line)
        if marker and out and out[-1][3] == "":
            out[-1][3] = marker["outcome"].strip()
        if in_code or not line.startswith("#"):
            continue
        level, _, heading = line.partition(" ")
        if len(level) > 6 or level.strip("#"):
            continue
        anchor = slug(heading, seen)
        if len(level) <= 3:
            m = _RULE.match(heading) if level == "###" else None
            if m:
                date = re.search(r"\d{4}-\d{2}-\d{2}", m["when"])
                out.append([m["title"].strip(), anchor, date.group(0) if date else "", ""])
            elif out and out[-1][3] == "":
                out[-1][3] = "-"  # the next section began before an outcome was written under this rule
        elif level == "####" and out and out[-1][3] == "":
            m = _OUTCOME.match(heading)
            if m:
                out[-1][3] = m["outcome"].strip()
    return [(t, a, d, o or "-") for t, a, d, o in out]


def render(text: str) -> str:
    """The README with its rules index rewritten."""
    rows = ["| # | rule (written before its held-out table was measured or scored) | written | outcome |",
            "|---:|---|---|---|"]
    for i, (title, anchor, date, outcome) in enumerate(rules(text), 1):
        rows.append(f"| {i} | [{title.replace('|', '/')}](#{anchor}) | {date} | {outcome.replace('|', '/')} |")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    if not rest:
        raise ValueError(f"{README}: no {BEGIN} marker")
    return f"{head}{BEGIN}\n" + "\n".join(rows) + f"\n{END}{tail}"


if __name__ == "__main__":
    new = render(README.read_text())
    README.write_text(new)
    sys.stdout.write(f"{README}: {len(rules(new))} rules indexed\n")
