"""qmlite as a user installs it: the wheel pip builds from this checkout, the files the Dockerfile copies,
its ENTRYPOINT, and fresh virtual environments that see nothing of the checkout.

Shared by tests/test_packaging.py, tests/test_installed_wheel.py and tests/client/test_pymqi_venv.py.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import json
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import zipfile

REPO = pathlib.Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"
PIP_TIMEOUT = 600  # a cold pip cache downloads every dependency


def clean_env() -> dict[str, str]:
    """The caller's environment without what would let a child see this checkout or its .venv
    (PYTHONPATH, VIRTUAL_ENV) or steer qmlite (QMLITE_*)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "QMLITE_"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@dataclasses.dataclass(frozen=True)
class Venv:
    root: pathlib.Path
    env: dict[str, str]

    @property
    def python(self) -> str:
        return str(self.root / "bin" / "python")

    def bin(self, name: str) -> str:
        return str(self.root / "bin" / name)

    def pip_install(self, *args: str, env: dict[str, str] | None = None) -> None:
        subprocess.run([self.python, "-m", "pip", "install", "-q", *args], check=True, timeout=PIP_TIMEOUT,
                       env=env or self.env)


def fresh_venv(root: pathlib.Path) -> Venv:
    """A new virtual environment at ``root`` with the standard library and pip only."""
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=120)
    return Venv(root, clean_env())


# ---- the checkout and the wheel --------------------------------------------------------------------
@functools.cache
def setup_py():
    """The repository's setup.py as a module (not as ``__main__``: nothing is built), for its rule:
    ``package_folders()``, ``packages()``, ``package_roots()``."""
    spec = importlib.util.spec_from_file_location("qmlite_setup_py", REPO / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wheel_path(file: str, folders: dict[str, pathlib.Path], repo: pathlib.Path = REPO) -> str | None:
    """Where the checkout's ``file`` belongs in the wheel: under the deepest package folder holding it
    (``server/http/static/index.html`` -> ``qmlite/server/http/static/index.html``), or None."""
    path = (repo / file).resolve()
    best = None
    for name, folder in folders.items():
        folder = folder.resolve()
        if path.is_relative_to(folder) and (best is None or len(folder.parts) > len(best[1].parts)):
            best = (name, folder)
    if best is None:
        return None
    return "/".join((*best[0].split("."), *path.relative_to(best[1]).parts))


def checkout_files(repo: pathlib.Path = REPO) -> list[str]:
    """The working tree's files as git sees them: tracked, and untracked but not ignored.  What a
    ``pip install .`` or a ``docker build .`` reads, less what .gitignore calls build output (.venv,
    build/, *.egg-info, __pycache__), which no wheel file comes from."""
    out = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    return sorted(f for f in out.split("\0") if f and (repo / f).is_file())  # a deleted tracked file is gone


def copy_files(files: list[str], src: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / name, target)
    return dest


def build_wheel(src: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    """``pip wheel`` of the project at ``src`` (in pip's isolated build environment, as ``pip install``
    builds it); ``src`` must be a copy: setuptools writes build/ and *.egg-info into it."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
                   check=True, timeout=PIP_TIMEOUT, env=clean_env(), cwd=out)
    [wheel] = out.glob("qmlite-*.whl")
    return wheel


def wheel_names(wheel: pathlib.Path) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


# ---- the Dockerfile ----------------------------------------------------------------------------------
def instructions(path: pathlib.Path = DOCKERFILE) -> list[tuple[str, str]]:
    """(INSTRUCTION, its arguments) in order; continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in path.read_text().splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        whole = (pending + stripped).strip()
        pending = ""
        keyword, _, rest = whole.partition(" ")
        out.append((keyword.upper(), rest.strip()))
    return out


def only(keyword: str, path: pathlib.Path = DOCKERFILE) -> list[str]:
    return [rest for kw, rest in instructions(path) if kw == keyword]


def entrypoint(path: pathlib.Path = DOCKERFILE) -> list[str]:
    """The ENTRYPOINT's argv; the JSON (exec) form only, the form that gets signals (a shell form would
    leave qmlite deaf to SIGTERM)."""
    [last] = only("ENTRYPOINT", path)[-1:]
    argv = json.loads(last)
    assert isinstance(argv, list) and all(isinstance(a, str) for a in argv), last
    return argv


def image_env(path: pathlib.Path = DOCKERFILE) -> dict[str, str]:
    """ENV's variables (the KEY=VALUE form)."""
    env: dict[str, str] = {}
    for rest in only("ENV", path):
        for word in shlex.split(rest):
            key, eq, value = word.partition("=")
            assert eq, f"ENV {rest!r}: only the KEY=VALUE form is read"
            env[key] = value
    return env


def copy_into_image(context: pathlib.Path, image: pathlib.Path, path: pathlib.Path = DOCKERFILE) -> pathlib.Path:
    """Lay out under ``image`` (a stand-in for the image's root) what the Dockerfile's WORKDIR and COPY
    lines take from the build ``context``, as docker does: a folder's contents go into the destination,
    a file into a destination ending in ``/``.  Returns the WORKDIR of the first RUN, where
    ``pip install .`` builds."""
    workdir = pathlib.PurePosixPath("/")
    build_dir = None
    for kw, rest in instructions(path):
        if kw == "WORKDIR":
            workdir = workdir / rest
        elif kw == "RUN" and build_dir is None:
            build_dir = image / workdir.relative_to("/")
        elif kw in ("COPY", "ADD"):
            words = json.loads(rest) if rest.startswith("[") else shlex.split(rest)
            assert not any(w.startswith("--") for w in words), f"{kw} {rest}: flags are not modelled"
            *sources, dest = words
            target = image / (workdir / dest).relative_to("/")
            for source in sources:
                origin = context / source
                if origin.is_dir():
                    shutil.copytree(origin, target, dirs_exist_ok=True)
                else:
                    assert dest.endswith("/") or len(sources) == 1, f"{kw} {rest}: several files need a folder"
                    into = target / origin.name if dest.endswith("/") else target
                    into.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(origin, into)
    assert build_dir is not None, "no RUN builds the image"
    return build_dir


def last_workdir(path: pathlib.Path = DOCKERFILE) -> pathlib.PurePosixPath:
    """The WORKDIR the ENTRYPOINT (and ``docker exec``) run in."""
    workdir = pathlib.PurePosixPath("/")
    for rest in only("WORKDIR", path):
        workdir = workdir / rest
    return workdir
