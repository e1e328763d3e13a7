"""The QML message catalogue (registry/qmlmessages.py): one text per number, each extension in its own
range, and no QML number written anywhere else in the source, so nothing bypasses the catalogue."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from qmlite.registry import qmlmessages as QML

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE_FILE = ROOT / "registry" / "qmlmessages.py"
QML_NUMBER = re.compile(r"QML(\d{4})([A-Z]?)")
ENTRIES = {name: value for name, value in vars(QML).items() if isinstance(value, QML.QmlMessage)}


def _source_files() -> list[Path]:
    """Every file of the installed packages (pyproject.toml's package-dir) and of scripts/: Python,
    and the console's HTML and JavaScript, which could print a message too."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {ROOT / path for path in conf["package-dir"].values()} | {ROOT / "scripts"}
    files: set[Path] = set()
    for folder in folders:
        for pattern in ("*.py", "*.js", "*.html", "*.toml", "*.mqsc"):
            files.update(p for p in folder.rglob(pattern) if ".venv" not in p.parts)
    return sorted(files)


def test_no_number_is_used_twice():
    numbers: dict[int, str] = {}
    for name, entry in ENTRIES.items():
        assert entry.number not in numbers, f"{name} reuses {entry.id}, already {numbers[entry.number]}"
        numbers[entry.number] = name
    assert sorted(QML.CATALOGUE) == sorted(e.id for e in ENTRIES.values())  # every entry is in the catalogue


def test_no_text_is_given_two_numbers():
    texts = [entry.template for entry in ENTRIES.values()]
    assert len(set(texts)) == len(texts)


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_each_entry_lies_in_its_extensions_range(name):
    entry = ENTRIES[name]
    assert entry.extension in QML.RANGES, f"{name}: no range for extension {entry.extension!r}"
    assert entry.number in QML.RANGES[entry.extension], f"{entry.id} ({name}) is outside {entry.extension}'s range"
    assert entry.severity in QML.SEVERITIES and len(entry.severity) == 1


def test_the_ranges_do_not_overlap():
    seen: set[int] = set()
    for extension, numbers in QML.RANGES.items():
        assert not seen & set(numbers), f"{extension}'s range overlaps another"
        seen |= set(numbers)


def test_an_entry_renders_its_id_and_fields():
    assert QML.RESET_DONE(deleted=3, restored=0, cleared=12, kept=1) == (
        "QML0001I: qmlite reset: 3 objects deleted, 0 restored, 12 messages cleared, 1 kept in use.")
    assert QML.SNAPSHOT_NOT_FOUND(name="A").startswith("QML0213E: ")
    with pytest.raises(KeyError):  # a field the caller forgot is an error, not a message with a hole
        QML.SNAPSHOT_NOT_FOUND()


def test_no_source_file_writes_a_qml_number_itself():
    offenders = []
    for path in _source_files():
        if path == CATALOGUE_FILE:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if QML_NUMBER.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "QML numbers belong in registry/qmlmessages.py:\n" + "\n".join(offenders)


def test_every_entry_is_emitted_somewhere():
    text = "\n".join(p.read_text(errors="replace") for p in _source_files() if p != CATALOGUE_FILE)
    unused = [name for name in ENTRIES if not re.search(rf"\b{name}\b", text)]
    assert not unused, f"catalogue entries nothing prints: {unused}"


def test_the_docs_name_only_catalogued_messages():
    """README.md and docs/*.md (but docs/decisions.md, whose MC1 lists the numbers before the catalogue)
    name a QML message only as the catalogue has it, severity letter included."""
    wrong = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        if path.name == "decisions.md":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for match in re.finditer(r"QML\d{4}[A-Z]", line):  # a message; "QML0100-0199" is a range
                if match.group(0) not in QML.CATALOGUE:
                    wrong.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)}")
    assert not wrong, "\n".join(wrong)
