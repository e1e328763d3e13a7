"""Turn the decision tables of docs/decisions.md into one ``###`` heading per decision.

A row ``| W1 | decision | evidence |`` becomes::

    ### W1 — a short title from the decision's first words

    decision

    **Evidence.** evidence

under the same ``##`` area heading.  Text that is not a decision table is kept as it is, so the
script can be run again after a branch adds a section as a table (the lead's merges): it converts
only what is still a table.  A row whose id is already a heading with the same text is dropped (a
merge once left a copy of H9-H12); the same id with different text stops the script, as renaming
one of them is a decision to record, not the script's to make.

    python scripts/decisions_headings.py [docs/decisions.md]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROW = re.compile(r"^\| *([A-Z]{1,3}[0-9]+[a-z]?) *\|(.*)\| *$")
TABLE_HEAD = re.compile(r"^\| *# *\|([^|]*)\|([^|]*)\| *$")
RULE = re.compile(r"^\|[-| :]+\|? *$")
HEADING = re.compile(r"^### ([A-Z]{1,3}[0-9]+[a-z]?) — ")
CELL_SPLIT = re.compile(r"(?<!\\)\|")
TITLE_WIDTH = 72


def short_title(text: str) -> str:
    """The decision's first clause, cut at a word near TITLE_WIDTH characters."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [label](link) -> label
    text = re.sub(r"\*\*|<br>", "", text).replace("\\|", "|").strip()
    first = re.split(r"(?<=[a-z0-9)`'\"])[.;:] ", text, maxsplit=1)[0].rstrip(".;: ")
    if len(first) > TITLE_WIDTH:
        cut = first[:TITLE_WIDTH].rsplit(" ", 1)[0]
        first = cut.rstrip(",;:(- ") + " …"
    if first.count("`") % 2:  # never leave a code span open in a heading
        head, _, _ = first.rpartition("`")
        first = head.rstrip(",;:(- ") + " …"
    return first


def convert(text: str) -> tuple[str, list[str]]:
    out: list[str] = []
    ids: list[str] = []
    seen: dict[str, str] = {}
    label = "Evidence"
    lines = text.split("\n")
    for line in lines:
        if m := HEADING.match(line):
            ids.append(m.group(1))
            seen.setdefault(m.group(1), "")
        if m := TABLE_HEAD.match(line):
            label = "Why" if m.group(2).strip() == "Why" else "Evidence"
            continue
        if RULE.match(line) and out and not out[-1].strip():
            continue
        m = ROW.match(line)
        if not m:
            out.append(line)
            continue
        ident = m.group(1)
        cells = [c.strip() for c in CELL_SPLIT.split(m.group(2))]
        if len(cells) < 2:
            raise SystemExit(f"{ident}: expected a decision and its evidence")
        # an unescaped | in the evidence (AT2 quotes "LOW|MEDIUM|HIGH") belongs to the evidence
        decision, evidence = cells[0].replace("\\|", "|"), "|".join(cells[1:]).replace("\\|", "|")
        if ident in seen:
            if seen[ident] == decision + evidence:
                continue
            raise SystemExit(f"{ident} is two different decisions: rename one and record it")
        seen[ident] = decision + evidence
        body = f"{decision}\n\n**{label}.** {evidence}"
        ids.append(ident)
        if out and out[-1].strip():
            out.append("")
        out += [f"### {ident} — {short_title(decision)}", "", body, ""]
    result = re.sub(r"\n{3,}", "\n\n", "\n".join(out))
    return result, ids


def main(argv: list[str]) -> int:
    path = Path(argv[1] if len(argv) > 1 else "docs/decisions.md")
    text, ids = convert(path.read_text(encoding="utf-8"))
    path.write_text(text, encoding="utf-8")
    print(f"{path}: {len(ids)} decisions, one heading each")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
