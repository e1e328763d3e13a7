"""Packaging that cannot drift: the wheel's packages come from setup.py's rule, every module of the
checkout has a package, the Dockerfile copies everything the wheel is built from, and its ENTRYPOINT
is a ``qmlite serve`` the parser accepts.  The installed wheel at work: tests/test_installed_wheel.py."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re
import tomllib

import pytest

from qmlite import cli
from tests.support import wheelkit

RULE = wheelkit.setup_py()


def test_the_rule_finds_every_package_folder_under_the_roots(tmp_path):
    # a project of three roots, one inside another, as client/ holds client/ibmmqc/
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools.package-dir]\n"top" = "top"\n"top.lib" = "lib"\n"inner" = "lib/inner"\n')
    for folder in ("top", "lib", "lib/new", "lib/new/deeper", "lib/inner", "lib/inner/part"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "lib" / "static").mkdir()  # data, no __init__.py: not a package
    (tmp_path / "lib" / "__pycache__").mkdir()
    assert RULE.packages(tmp_path) == ["inner", "inner.part", "top", "top.lib", "top.lib.new", "top.lib.new.deeper"]


def test_the_wheels_packages_include_those_a_hand_list_left_out():
    found = RULE.package_folders(wheelkit.REPO)
    assert {"qmlite.registry.testing", "qmlite.server.http", "qmlite.client.samples", "ibmmqc", "pymqe"} <= set(found)
    assert found["ibmmqc"] == wheelkit.REPO / "client" / "ibmmqc"
    assert not {"qmlite.client.ibmmqc", "qmlite.client.pymqe"} & set(found)  # ibmmqc and pymqe are top level
    conf = tomllib.loads((wheelkit.REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "packages" not in conf  # a hand list beside the rule would win over it


def test_every_module_of_the_checkout_lies_in_a_package():
    # a .py file in a folder without __init__.py under a root would be left out of the wheel silently
    folders = RULE.package_folders(wheelkit.REPO)
    roots = [folder.relative_to(wheelkit.REPO).as_posix() + "/" for folder in RULE.package_roots().values()]
    modules = [f for f in wheelkit.checkout_files() if f.endswith(".py") and f.startswith(tuple(roots))]
    assert len(modules) > 100
    homeless = [f for f in modules if (wheelkit.REPO / f).parent not in set(folders.values())]
    assert homeless == []


def test_the_dockerfile_reader(tmp_path):
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text("FROM x\n# a comment\nWORKDIR /opt/a\nCOPY one two ./\nCOPY pkg/ pkg/\nRUN a \\\n    && b\n"
                          "WORKDIR /srv\n"
                          'ENV A=1 \\\n    B="two words"\nENTRYPOINT ["prog", "serve"]\n')
    context = tmp_path / "context"
    (context / "pkg" / "sub").mkdir(parents=True)
    for name in ("one", "two", "pkg/sub/m.py", "left"):
        (context / name).write_text(name)
    workdir = wheelkit.copy_into_image(context, tmp_path / "image", dockerfile)
    assert workdir == tmp_path / "image" / "opt" / "a"
    assert sorted(p.relative_to(workdir).as_posix() for p in workdir.rglob("*") if p.is_file()) == [
        "one", "pkg/sub/m.py", "two"]
    assert wheelkit.only("RUN", dockerfile) == ["a  && b"]
    assert wheelkit.last_workdir(dockerfile) == pathlib.PurePosixPath("/srv")
    assert wheelkit.image_env(dockerfile) == {"A": "1", "B": "two words"}
    assert wheelkit.entrypoint(dockerfile) == ["prog", "serve"]


def test_the_entrypoint_is_a_serve_command_the_parser_accepts():
    program, *argv = wheelkit.entrypoint()
    scripts = tomllib.loads((wheelkit.REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert program in scripts and argv[0] == "serve"
    args = cli.build_parser().parse_args(argv)  # a rejected option exits here (SystemExit 2)
    assert args.func is cli._serve
    # every option is spelled out as `qmlite serve --help` lists it (argparse would take an abbreviation)
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), pytest.raises(SystemExit):
        cli.build_parser().parse_args(["serve", "--help"])
    options = [a for a in argv if a.startswith("--")]
    assert {"--host", "--port", "--data-dir"} <= set(options)
    unlisted = [o for o in options if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", help_text.getvalue())]
    assert unlisted == []
    # and each value arrives where serve reads it
    for option, value in zip(argv, argv[1:]):
        if option.startswith("--") and not value.startswith("--"):
            assert str(getattr(args, option[2:].replace("-", "_"))) == value, option


def test_the_entrypoint_runs_away_from_the_copied_sources(tmp_path):
    # `docker exec CONTAINER python -m qmlite runmqsc` in the folder COPY filled would import its qmlite/
    image = tmp_path / "image"
    context = wheelkit.copy_files(wheelkit.checkout_files(), wheelkit.REPO, tmp_path / "context")
    build_dir = wheelkit.copy_into_image(context, image)
    assert (build_dir / "qmlite" / "cli.py").is_file()
    final = image / wheelkit.last_workdir().relative_to("/")
    assert final != build_dir and not (final / "qmlite").exists()


@pytest.mark.slow
def test_the_wheel_holds_every_file_of_its_packages(checkout_wheel):
    names = wheelkit.wheel_names(checkout_wheel)
    folders = RULE.package_folders(wheelkit.REPO)
    expected = {wheelkit.wheel_path(f, folders) for f in wheelkit.checkout_files()} - {None}
    assert {"qmlite/registry/testing/clock.py", "qmlite/server/http/static/index.html", "ibmmqc/_mqi.py",
            "pymqe/__init__.py", "qmlite/cli.py"} <= expected
    assert sorted(expected - names) == []
    extra = {n for n in names if ".dist-info/" not in n} - expected
    assert sorted(extra) == []  # nothing from outside the package folders (tests/, scripts/, build/)


@pytest.mark.slow
def test_the_dockerfile_copies_everything_the_wheel_is_built_from(checkout_wheel, tmp_path):
    # the image's `RUN pip install .` builds from what COPY put in its WORKDIR: the same wheel, file by file
    context = wheelkit.copy_files(wheelkit.checkout_files(), wheelkit.REPO, tmp_path / "context")
    workdir = wheelkit.copy_into_image(context, tmp_path / "image")
    assert [rest for rest in wheelkit.only("RUN") if rest.startswith("pip install") and " . " in rest + " "]
    (tmp_path / "out").mkdir()
    in_image = wheelkit.build_wheel(workdir, tmp_path / "out")
    assert in_image.name == checkout_wheel.name
    assert sorted(wheelkit.wheel_names(in_image) ^ wheelkit.wheel_names(checkout_wheel)) == []


def test_ibms_control_commands_are_console_scripts_and_linked_into_opt_mqm_bin():
    from qmlite import ibmcli

    scripts = tomllib.loads((wheelkit.REPO / "pyproject.toml").read_text())["project"]["scripts"]
    ibm = {name: target for name, target in scripts.items() if target.startswith("qmlite.ibmcli:")}
    assert set(ibm) == set(ibmcli.USAGE)  # each has its usage text
    assert all(callable(getattr(ibmcli, target.split(":")[1])) for target in ibm.values())
    [run] = [line for line in wheelkit.only("RUN", wheelkit.REPO / "Dockerfile") if "/opt/mqm/bin" in line]
    assert set(run.split("for c in ")[1].split("; do")[0].split()) == set(ibm)
