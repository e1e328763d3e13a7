"""The wheel's packages by rule (decision PK1): every folder with an ``__init__.py`` under a root of
pyproject.toml's ``[tool.setuptools.package-dir]``, named by that root's package.  So
``registry/testing/`` is ``qmlite.registry.testing`` as soon as it exists, and no hand list can
forget it.

Everything else (metadata, the roots themselves, package data) stays in pyproject.toml; setuptools
takes only ``packages`` from here.  setuptools' own ``packages.find`` cannot do this: it names what
it finds after the folder it searched (``registry.testing``), not after a ``package-dir`` entry.

``tests/test_import_graph.py`` and tests/test_packaging.py import ``packages()`` from this file (then
``__name__`` is not ``"__main__"``, and nothing is built).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def package_roots(root: Path = HERE) -> dict[str, Path]:
    """package name -> folder, pyproject.toml's ``package-dir`` as it is written."""
    if sys.version_info < (3, 11):  # tomllib; the same floor as requires-python, said plainly
        raise SystemExit("qmlite needs Python 3.11 or later")
    import tomllib

    conf = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    return {name: root / folder for name, folder in conf["tool"]["setuptools"]["package-dir"].items()}


def package_folders(root: Path = HERE) -> dict[str, Path]:
    """Every package the wheel holds -> its folder.  A root's walk stops at a folder without an
    ``__init__.py`` (static files, ``__pycache__``) and at a folder that is another root
    (``client/ibmmqc/`` is the top-level ``ibmmqc``, not ``qmlite.client.ibmmqc``)."""
    roots = package_roots(root)
    claimed = {folder.resolve() for folder in roots.values()}
    found: dict[str, Path] = {}

    def walk(name: str, folder: Path) -> None:
        found[name] = folder
        for child in sorted(folder.iterdir()):
            if child.is_dir() and (child / "__init__.py").is_file() and child.resolve() not in claimed:
                walk(f"{name}.{child.name}", child)

    for name, folder in roots.items():
        if (folder / "__init__.py").is_file():
            walk(name, folder)
    return found


def packages(root: Path = HERE) -> list[str]:
    return sorted(package_folders(root))


if __name__ == "__main__":  # setuptools' build backend runs this file as __main__
    from setuptools import setup

    setup(packages=packages())
