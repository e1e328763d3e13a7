"""What ``qmlite serve`` does before its first connection, made cheaper for issue 24 (docs/decisions.md
ST1-ST5): each shortcut is checked here to give exactly what the general path gives."""

from __future__ import annotations

import dataclasses
import gc
import json
import pathlib
import subprocess
import sys
import time

import pytest

from qmlite import cli
from qmlite.pcf import constants as C
from qmlite.registry.security import authrecs
from qmlite.registry.security import vocab as A
from qmlite.server import config
from qmlite.server.opening import Opening, open_queue_manager

_SERVE_ARGVS = (
    ["serve"],
    ["serve", "--port", "0", "--host", "0.0.0.0", "--qmgr", "QMA", "--qmgr", "QMB", "--create-on-connect", "T*"],
    ["serve", "--data-dir", "d", "--config", "c.toml", "--publish-exit", "m:f", "--monitor-interval", "2.5",
     "--clock", "virtual", "--http-port", "9443", "--http-host", "::1", "--tls-cert", "a", "--tls-key", "b",
     "--pki-dir", "p", "--mqsc", "x.mqsc", "y.mqsc", "--mqsc-dir", "m", "--strict", "--log-json", "--log-level",
     "debug"],
)


def _serve_parser(parser):
    return next(a for a in parser._actions if a.dest == "command").choices["serve"]


def test_the_serve_only_parser_is_the_full_parsers_serve_command():
    alone, full = cli.build_parser(only_serve=True), cli.build_parser()
    assert _serve_parser(alone).format_help() == _serve_parser(full).format_help()
    for argv in _SERVE_ARGVS:
        assert vars(alone.parse_args(argv)) == vars(full.parse_args(argv)), argv


def test_serve_loads_none_of_the_other_commands_modules():
    code = ("import sys; from qmlite.cli import build_parser; build_parser(only_serve=True); "
            "print(sorted(m for m in sys.modules if m.startswith(('qmlite.control', 'qmlite.ibmcli', 'qmlite.trace', "
            "'qmlite.pipeline', 'cryptography'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_serve_that_fails_to_start_in_process_leaves_the_collector_on(capsys):
    assert gc.isenabled()
    assert cli.main(["serve", "--port", "0", "--qmgr", "not a name!"]) == 2
    assert gc.isenabled()
    assert "invalid queue manager name 'not a name!'" in capsys.readouterr().err


def _definitions(qm) -> dict:
    """Every definition of a queue manager, without what differs between two opens (stamps, ids)."""
    reg = qm.registry
    moving = {"created", "altered", "sub_id", "destination_correl_id", "resumed", "alteration_date",
              "alteration_time"}

    def plain(obj):
        return {k: v for k, v in dataclasses.asdict(obj).items() if k not in moving}

    out = {"qmgr": {k: v for k, v in plain(reg.qmgr).items() if k not in ("identifier",)}}
    for name in ("queues", "topics", "subs", "namelists", "processes"):
        out[name] = {key: plain(obj) for key, obj in getattr(reg, name).items()}
    out["definitions"] = {kind: {key: plain(obj) for key, obj in objs.items()} for kind,
                          objs in reg.definitions.items()}
    return out


@pytest.mark.parametrize("overrides", [{}, {"dev_objects": False}, {"qmgr_name": "QMX", "clock": "virtual"},
                                       {"app_password": "app", "admin_password": "s3cret"}])
def test_opening_on_a_thread_gives_the_queue_manager_the_direct_open_gives(tmp_path, overrides):
    opened = []
    for sub, how in (("thread", "opening"), ("direct", "open_queue_manager")):
        cfg = config.load(environ={}, overrides={"port": 0, "data_dir": tmp_path / sub, **overrides})
        qm = Opening(cfg).result() if how == "opening" else open_queue_manager(cfg)
        try:
            opened.append(_definitions(qm))
            assert qm.configured_max_handles == cfg.max_handles
            assert (qm.registry.clock is time.time) == (cfg.clock != "virtual")
        finally:
            qm.shutdown()
    assert opened[0] == opened[1]
    assert opened[0]["queues"]  # something was compared


def test_opening_on_a_thread_raises_what_the_open_raises(tmp_path):
    cfg = config.load(environ={}, overrides={"port": 0, "data_dir": tmp_path / "d"})
    open_queue_manager(cfg).shutdown()
    other = dataclasses.replace(cfg, qmgr_name="QM2")
    with pytest.raises(ValueError, match="holds queue manager 'QM1', not 'QM2'"):
        Opening(other).result()


def test_opening_on_a_thread_runs_the_start_up_mqsc(tmp_path):
    script = tmp_path / "a.mqsc"
    script.write_text("DEFINE QLOCAL(STARTED.Q) DESCR('from a script')\nDEFINE QLOCAL(BAD Q)\n")
    cfg = config.load(environ={}, overrides={"port": 0, "data_dir": tmp_path / "d", "mqsc_files": (script,)})
    qm = Opening(cfg).result()
    try:
        assert qm.registry.queues["STARTED.Q"].description == "from a script"
    finally:
        qm.shutdown()
    strict = dataclasses.replace(cfg, data_dir=tmp_path / "e", mqsc_strict=True)
    with pytest.raises(config.ConfigError, match=r"a\.mqsc:2: DEFINE QLOCAL\(BAD Q\)"):
        Opening(strict).result()


def test_the_engine_loads_its_handlers_at_first_use_and_the_same_ones(tmp_path):
    from qmlite.registry.admin import commands
    from qmlite.registry.admin.engine import Engine

    cfg = config.load(environ={}, overrides={"port": 0, "data_dir": tmp_path / "d"})
    qm = open_queue_manager(cfg)
    try:
        lazy = Engine(qm.registry)
        assert lazy._handlers is None  # nothing imported or registered yet
        eager = Engine(qm.registry)
        eager._handlers = {}
        commands.register_all(eager)
        assert {k: v.__qualname__ for k, v in lazy.handlers.items()} == \
               {k: v.__qualname__ for k, v in eager._handlers.items()}
        assert C.MQCMD_PING_Q_MGR in lazy.handlers and C.MQCMD_ESCAPE in lazy.handlers
    finally:
        qm.shutdown()


def test_known_entity_answers_as_the_sets_of_known_principals_and_groups(tmp_path):
    from qmlite.registry.mqsc import run_mqsc

    cfg = config.load(environ={}, overrides={"port": 0, "data_dir": tmp_path / "d"})
    qm = open_queue_manager(cfg)
    try:
        run_mqsc(qm, "DEFINE CHANNEL(SOME.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('chanuser')\n"
                     "SET CHLAUTH('X.*') TYPE(ADDRESSMAP) ADDRESS('10.*') USERSRC(MAP) MCAUSER('mapped')\n"
                     "SET AUTHREC PROFILE('Q.**') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT)\n"
                     "SET AUTHREC PROFILE('Q.**') OBJTYPE(QUEUE) GROUP('mqm') AUTHADD(GET)\n")
        reg = qm.registry
        principals, groups = authrecs.known_principals(reg), authrecs.known_groups(reg)
        assert {"chanuser", "mapped", "app"} <= principals
        for entity in sorted(principals | groups | {"nobody", "", "APP", "chanuser2"}):
            assert authrecs.known_entity(reg, entity, A.MQZAET_PRINCIPAL) == (entity in principals), entity
            assert authrecs.known_entity(reg, entity, A.MQZAET_GROUP) == (entity in groups), entity
    finally:
        qm.shutdown()


def test_tls_without_a_key_repository_loads_no_cryptography_and_says_why(tmp_path):
    code = f"""
import sys, pathlib
from qmlite.server import config, log
from qmlite.server.opening import open_queue_manager
from qmlite.server.tls import ServerTLS
cfg = config.load(environ={{}}, overrides={{"port": 0, "data_dir": pathlib.Path({str(tmp_path / 'd')!r}),
                                          "pki_dir": {str(tmp_path / 'nothing')!r}}})
qm = open_queue_manager(cfg)
tls = ServerTLS(cfg, qm.registry, log.get())
print(repr(tls.reload()))
print(repr(tls.problem))
print("cryptography" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    why = "'key repository /var/mqm/qmgrs/QM1/ssl/key: neither key.p12 nor key.pem found'"
    assert out[-3:] == [why, why, "False"]
    (logged,) = out[:-3]  # and the one error line (IBM's AMQ9657E), saying why
    assert "key_repository_error" in logged and "AMQ9657E" in logged and why[1:-1] in logged


# docs/decisions.md ST11: modules a served queue manager's start (and a first connection) never needs load at
# their feature's first use.  Each check runs in a fresh interpreter: this one has imported everything.
DEFERRED = ("qmlite.registry.pubsub.selectors", "qmlite.registry.monitoring.configevents",
            "qmlite.registry.pubsub.publishexit")

_SERVE_TO_READY = """
import json, os, sys
from qmlite.server import app
def ready(*args, **kwargs):
    print(json.dumps(sorted(m for m in sys.modules if m.startswith(("qmlite.", "cryptography")))), flush=True)
    os._exit(0)
app.ready_lines = ready
from qmlite.cli import main
main(sys.argv[1:])
"""


def test_a_served_queue_managers_start_imports_none_of_the_deferred_modules(tmp_path):
    out = subprocess.run([sys.executable, "-c", _SERVE_TO_READY, "serve", "--port", "0",
                          "--data-dir", str(tmp_path / "d")], capture_output=True, text=True, timeout=120)
    loaded = json.loads(out.stdout.splitlines()[-1])
    assert "qmlite.registry.qmgr" in loaded and "qmlite.server.listener" in loaded  # it did start
    assert [m for m in DEFERRED if m in loaded] == []
    # no MQTT channel runs: MQTT's modules load at a channel's first start (docs/decisions.md TT17)
    assert "qmlite.server.telemetryio" in loaded  # the service was plugged in
    assert [m for m in loaded if m.startswith(("qmlite.server.mqtt", "qmlite.pcf.mqtt"))] == []


def test_keys_mounted_are_read_at_the_first_tls_handshake_not_at_start(tmp_path):
    # decision KR1: the TLS environment is set up by the first TLS channel, so even a queue manager with a
    # key repository starts without cryptography (the channel tests connect over TLS after such a start).
    from qmlite.keys import testpki as pki

    made = pki.init(tmp_path / "pki")
    out = subprocess.run([sys.executable, "-c", _SERVE_TO_READY, "serve", "--port", "0", "--data-dir",
                          str(tmp_path / "d"), "--pki-dir", str(made.pki_dir)], capture_output=True, text=True,
                         timeout=120)
    loaded = json.loads(out.stdout.splitlines()[-1])
    assert "qmlite.server.listener" in loaded  # it did start
    assert [m for m in loaded if m.startswith("cryptography") or m == "qmlite.keys.repository"] == []


_FIRST_USE = """
import json, pathlib, sys
from qmlite.pcf import constants as C
from qmlite.registry.mqsc import run_mqsc
from qmlite.server import config
from qmlite.server.opening import open_queue_manager

def loaded():
    return [m for m in %r if m in sys.modules]

report = {}
data = pathlib.Path(sys.argv[1])
cfg = config.load(environ={}, overrides={"port": 0, "data_dir": data / "a"})
qm = open_queue_manager(cfg)
report["opened"] = loaded()

def mqsc(text):
    (result,) = run_mqsc(qm, text)
    return result

# a selector: a subscription's and an MQOPEN's selection strings are checked and compiled at first use
report["good_selector"] = mqsc("DEFINE SUB(ST11.S) TOPICSTR('st11/a') DEST(DEV.QUEUE.1) "
                               "SELECTOR('colour = ''red''')").reason_code
report["bad_selector"] = mqsc("DEFINE SUB(ST11.T) TOPICSTR('st11/b') DEST(DEV.QUEUE.1) "
                              "SELECTOR('colour = = 1')").reason_code
report["after_selector"] = loaded()
# configuration events: raised once CONFIGEV is enabled
depth = lambda: int(mqsc("DISPLAY QLOCAL(SYSTEM.ADMIN.CONFIG.EVENT) CURDEPTH").objects[0]["CURDEPTH"])
before = depth()
mqsc("ALTER QMGR CONFIGEV(ENABLED)")
mqsc("ALTER QLOCAL(DEV.QUEUE.2) DESCR('changed')")
report["config_events"] = depth() - before
report["after_configev"] = loaded()
qm.shutdown()
# a publish exit: loaded when one is configured
cfg = config.load(environ={}, overrides={"port": 0, "data_dir": data / "b",
                                         "publish_exit": "tests.client.publish_exits:route"})
qm = open_queue_manager(cfg)
report["exit"] = qm.publish_exit is not None and qm.publish_exit.__class__.__module__
report["after_exit"] = loaded()
qm.shutdown()
print(json.dumps(report))
"""


def test_each_deferred_feature_works_at_its_first_use_after_start(tmp_path):
    code = _FIRST_USE % (DEFERRED,)
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120,
                         cwd=pathlib.Path(__file__).resolve().parents[2])
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.splitlines()[-1])
    assert report["opened"] == []
    assert report["good_selector"] == 0
    assert report["bad_selector"] == C.MQRC_SELECTOR_SYNTAX_ERROR
    assert "qmlite.registry.pubsub.selectors" in report["after_selector"]  # (the command handlers may load more)
    assert report["config_events"] >= 2  # ALTER QMGR's own change event and the queue's
    assert "qmlite.registry.monitoring.configevents" in report["after_configev"]
    assert report["exit"] == "qmlite.registry.pubsub.publishexit"
    assert report["after_exit"] == list(DEFERRED)
