"""Where the tests find their data files: tests/fixtures/ inside the repository (see its README.md
for the provenance of every file)."""

from __future__ import annotations

import pathlib

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"
