"""The control commands of IBM's developer container, for qmlite: ``runmqsc``, ``dspmq``, ``setmqaut``.

Each reaches the queue manager the way IBM's does, as far as qmlite can:

* a running qmlite server, over our client: MQSC goes as PCF Escape (MQCMD_ESCAPE, MQET_MQSC), one
  Escape per command, to DEV.ADMIN.SVRCONN (``runmqsc -c``, and without ``-c`` when a server answers
  on the port);
* otherwise the data directory itself (``--data-dir``, default as ``qmlite serve``), opened directly.

Exit codes are IBM's: runmqsc 0 when every command was processed, 10 when some were not (or had a
syntax error), 20 on an error (no queue manager reachable).  docs/mqsc.md.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import socket
import sys
from collections.abc import Callable
from typing import Protocol

from qmlite.client.mqsc import ServerTarget, Unreachable
from qmlite.pcf import constants as C

RC_OK, RC_SOME_FAILED, RC_ERROR = 0, 10, 20
ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"


# ---- where commands run --------------------------------------------------------------------------
class Target(Protocol):
    """A queue manager to run MQSC on: ``run(text)`` gives MqscResults.  ``ServerTarget``
    (client/mqsc.py: a running server, over our client) or ``LocalTarget`` (the data directory)."""

    qmgr_name: str

    def run(self, text: str) -> list: ...

    def inquire(self, message) -> list: ...

    def close(self) -> None: ...


class LocalTarget:
    """The data directory, opened directly (no server runs on it)."""

    def __init__(self, data_dir: pathlib.Path, qmgr_name: str, user: str) -> None:
        from qmlite.registry.qmgr import QueueManager

        from qmlite.registry.storage.sqlite import StoreError

        try:
            self.qm = QueueManager.open(data_dir, qmgr_name)
        except (ValueError, OSError, StoreError) as exc:  # StoreError: a server runs on it (another port)
            raise Unreachable(f"cannot open {data_dir}: {exc}") from exc
        self.qmgr_name = qmgr_name
        self.user = user

    def run(self, text: str) -> list:
        from qmlite.registry.mqsc import run_mqsc

        return run_mqsc(self.qm, text, user=self.user)

    def inquire(self, message) -> list:
        from qmlite.registry.admin.engine import Requester
        from qmlite.registry.security import authrecs

        try:
            return self.qm.engine.execute(message, Requester(user=self.user, admin=authrecs.privileged(self.user)))
        finally:
            self.qm.registry.commit()

    def close(self) -> None:
        self.qm.shutdown()


def answers(host: str, port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def settings(args: argparse.Namespace):
    """Where the commands find the queue manager (docs/decisions.md CT1): the options, else QMLITE_HOST,
    QMLITE_PORT and QMLITE_DATA_DIR, else the server's defaults (127.0.0.1, 1414, ./data; MQ_QMGR_NAME)."""
    from qmlite.server import config

    env = os.environ
    port = getattr(args, "port", None) or (int(env["QMLITE_PORT"]) if env.get("QMLITE_PORT", "").isdigit() else None)
    data_dir = getattr(args, "data_dir", None) or (pathlib.Path(env["QMLITE_DATA_DIR"])
                                                    if env.get("QMLITE_DATA_DIR") else None)
    return config.load(overrides={"qmgr_name": getattr(args, "qmgr", None) or None, "data_dir": data_dir,
                                  "port": port, "host": getattr(args, "host", None) or env.get("QMLITE_HOST") or None})


def server_host(cfg) -> str:
    return cfg.host if cfg.host not in ("0.0.0.0", "", "::") else "127.0.0.1"


def _client_channel(args: argparse.Namespace, cfg) -> tuple[str, int, str]:
    """Client mode's (host, port, channel), as IBM's client finds its channel: MQSERVER, else the CCDT of
    MQCCDTURL or MQCHLLIB/MQCHLTAB (for the queue manager named), else the server's address and
    ``--channel``.  ``--host``/``--port`` given on the command line win."""
    if getattr(args, "host", None) or getattr(args, "port", None):
        return server_host(cfg), cfg.port, args.channel
    env = os.environ
    try:
        if env.get("MQSERVER"):
            from qmlite.client import clientconf
            from qmlite.pcf import ccdt  # CONNAME's parser moved here from ibmmqc.resolve (issue 34)

            parsed = clientconf.parse_server(env["MQSERVER"])
            if parsed is None:
                raise ValueError(f"MQSERVER={env['MQSERVER']!r} is not CHANNEL/TCP/host(port)")
            host, port = ccdt.parse_conn_name(parsed[2])[0]
            return host, port, parsed[0]
        if env.get("MQCCDTURL") or env.get("MQCHLLIB") or env.get("MQCHLTAB"):
            from ibmmqc import resolve

            found = resolve.plan(getattr(args, "qmgr", "") or "", None, None, environ={
                k: v for k, v in env.items() if k in ("MQCCDTURL", "MQCHLLIB", "MQCHLTAB", "MQ_DATA_PATH")}).channels[0]
            host, port = found.connections[0]
            return host, port, found.name
    except (ValueError, IndexError, OSError, LookupError) as exc:
        raise Unreachable(f"no client channel: {exc}") from exc
    except Exception as exc:  # resolve.PlanError: the CCDT names no channel for this queue manager
        raise Unreachable(f"no client channel: {exc}") from exc
    return server_host(cfg), cfg.port, args.channel


def open_target(args: argparse.Namespace, user: str | None, password: str | None, *,
                client: bool) -> Target:
    cfg = settings(args)
    host, port, channel = server_host(cfg), cfg.port, args.channel
    if client:
        host, port, channel = _client_channel(args, cfg)
    if client or answers(host, port):
        from qmlite.client.errors import MQIError

        try:
            return ServerTarget(host, port, channel, user or "admin",
                                password if password is not None else cfg.admin_password,
                                getattr(args, "qmgr", "") or "", getattr(args, "wait", None) or 30.0)
        except (OSError, MQIError) as exc:
            reason = getattr(exc, "reason", None)
            why = f"reason {reason} ({C.describe('MQRC', reason)})" if reason else str(exc)
            raise Unreachable(f"cannot connect to {host}({port}) channel {channel}: {why}", reason) from exc
    return LocalTarget(_hosted_dir(cfg.data_dir, cfg.qmgr_name), cfg.qmgr_name, user or "mqm")


def _hosted_dir(data_dir: pathlib.Path, name: str) -> pathlib.Path:
    """The data directory of queue manager ``name``: its directory under ``<data dir>/qmgrs`` when the
    server hosted it beside its default (registry/hosting.py), else the data directory itself."""
    from qmlite.registry import hosting, qmgrnames

    if not qmgrnames.is_name(name):
        return data_dir
    root = data_dir / hosting.SUBDIR
    legacy = [] if "/" in name else [root / name]  # the directory a qmlite before NM2 made
    for hosted in (root / qmgrnames.directory_name(name), *legacy):
        if hosted.is_dir():
            return hosted
    return data_dir


def _hosted_names(data_dir: pathlib.Path) -> list[str]:
    from qmlite.registry import hosting, qmgrnames

    root = data_dir / hosting.SUBDIR
    if not root.is_dir():
        return []
    names = {qmgrnames.name_of_directory(p.name) for p in root.iterdir() if p.is_dir() and (p / "qmlite.db").exists()}
    return sorted(n for n in names if n is not None)


def read_password(args: argparse.Namespace, read_line: Callable[[], str]) -> str | None:
    """``-u USER``: the password is the first line of standard input, as IBM's runmqsc reads it (a
    terminal is asked, without echo); without ``-u`` the admin password of the settings is used."""
    if not args.user:
        return None
    if sys.stdin.isatty() and read_line == sys.stdin.readline:
        import getpass

        return getpass.getpass("Enter password:\n")
    return read_line().rstrip("\r\n")


# ---- runmqsc -------------------------------------------------------------------------------------
def runmqsc(args: argparse.Namespace) -> int:
    from qmlite.registry.mqsc import check_mqsc, exit_code, format_report

    _quiet()
    stdin = sys.stdin
    password = read_password(args, stdin.readline)
    if not args.file and not args.verify and stdin.isatty():
        return _interactive(args, password)
    try:
        text = pathlib.Path(args.file).read_text() if args.file else stdin.read()
    except OSError as exc:
        print(f"AMQ8118E: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return RC_ERROR
    if args.verify:
        results = check_mqsc(text)
        print(format_report(results, echo=not args.no_echo, qmgr_name=args.qmgr or None), end="")
        return exit_code(results)
    try:
        target = open_target(args, args.user, password, client=args.client)
    except Unreachable as exc:
        return not_available(exc)
    try:
        results = target.run(text)
    except Unreachable as exc:
        return not_available(exc)
    finally:
        target.close()
    print(format_report(results, echo=not args.no_echo, qmgr_name=target.qmgr_name), end="")
    return exit_code(results)


def _interactive(args: argparse.Namespace, password: str | None) -> int:
    """A terminal: each command runs as soon as it is complete (its last line ends without + or -),
    as runmqsc does; END or end of input stops."""
    from qmlite.registry.mqsc import echo_lines, exit_code

    try:
        target = open_target(args, args.user, password, client=args.client)
    except Unreachable as exc:
        return not_available(exc)
    print(f"Starting MQSC for queue manager {target.qmgr_name}.\n\n", flush=True)
    results: list = []
    lines: list[str] = []
    try:
        for line in sys.stdin:
            lines.append(line.rstrip("\n"))
            if line.rstrip().endswith(("+", "-")):
                continue
            text, lines = "\n".join(lines), []
            if text.strip().upper().rstrip(";").strip() == "END":
                break
            for result in target.run(text):
                results.append(result)
                out = (echo_lines(len(results), result) if not args.no_echo else []) + result.text
                print("\n".join(out), flush=True)
    except Unreachable as exc:
        return not_available(exc)
    finally:
        target.close()
    print(_counts(results), end="")
    return exit_code(results)


def _counts(results: list) -> str:
    from qmlite.registry.mqsc import messages

    syntax = sum(1 for r in results if r.syntax_error)
    failed = sum(1 for r in results if not r.syntax_error and r.completion_code == C.MQCC_FAILED)
    return "\n".join(messages.count_lines(len(results), syntax, failed)) + "\n"


def not_available(exc: Unreachable, code: int = RC_ERROR) -> int:
    """runmqsc's refusal when no queue manager answers: AMQ8118E for a name no server hosts (MQCONN's
    2058), AMQ8146E otherwise, the cause after it on standard error."""
    if getattr(exc, "reason", None) == C.MQRC_Q_MGR_NAME_ERROR:
        print(f"AMQ8118E: IBM MQ queue manager does not exist. ({exc})", file=sys.stderr)
    else:
        print(f"AMQ8146E: IBM MQ queue manager not available. ({exc})", file=sys.stderr)
    return code


# ---- dspmq ---------------------------------------------------------------------------------------
INSTALLATION = ("Installation1", "/opt/mqm")  # the developer container's one installation (dspmq -o installation)


def dspmq(args: argparse.Namespace) -> int:
    """IBM's dspmq: a line per queue manager (``QMNAME(QM1)``, padded, ``STATUS(Running)``), the fields
    ``-o`` asks for after it, and with ``-x`` its instance.  A running server is asked which queue
    managers it hosts (DISPLAY QMLITE QMGRS); otherwise the data directory's are listed, ended."""
    _quiet()
    cfg = settings(args)
    listed = _hosted_by_server(args, cfg) if answers(server_host(cfg), cfg.port) else None
    if listed is None:
        if not (cfg.data_dir / "qmlite.db").exists():
            if args.m:
                print("AMQ7048E: The queue manager name is either not valid or not known.", file=sys.stderr)
                return 72
            return 0  # no queue manager: nothing to list, as dspmq on a machine with none
        listed = [(name, "Ended normally", name == cfg.qmgr_name)
                  for name in [cfg.qmgr_name, *_hosted_names(cfg.data_dir)]]
    if args.m:
        listed = [entry for entry in listed if entry[0] == args.m]
        if not listed:
            print("AMQ7048E: The queue manager name is either not valid or not known.", file=sys.stderr)
            return 72
    fields = set(args.o or ()) or {"status"}
    if getattr(args, "s", False):
        fields.add("status")
    if "all" in fields:
        fields |= {"status", "default", "installation"}
    version = presented_version()
    for name, status, default in listed:
        parts = [f"QMNAME({name})".ljust(58) if fields & {"status", "default", "installation"} else f"QMNAME({name})"]
        if "status" in fields:
            parts.append(f"STATUS({status})")
        if "default" in fields:
            parts.append(f"DEFAULT({'yes' if default else 'no'})")
        if "installation" in fields:
            parts.append(f"INSTNAME({INSTALLATION[0]}) INSTPATH({INSTALLATION[1]}) INSTVER({version})")
        print(parts[0] + " ".join(parts[1:]))
        if getattr(args, "x", False) and status == "Running":
            print(f"    INSTANCE({socket.gethostname()}) MODE(Active)")
    return 0


def presented_version() -> str:
    """The IBM MQ version qmlite presents (DISPLAY QMGR VERSION 09010200): ``9.1.2.0``."""
    from qmlite.pcf import product

    return product.VRMF


_STATUS_WORD = {"RUNNING": "Running", "QUIESCING": "Quiescing", "ENDED": "Ended normally"}


def _hosted_by_server(args: argparse.Namespace, cfg) -> list[tuple[str, str, bool]] | None:
    """(name, dspmq status, default) of each queue manager the server on the port hosts; None when it
    cannot be asked (then the data directory is listed)."""
    from qmlite.client.errors import MQIError

    try:
        target = ServerTarget(server_host(cfg), cfg.port, ADMIN_CHANNEL, "admin", cfg.admin_password)
    except (OSError, MQIError):
        return None
    try:
        return hosted_on(target) or None
    except Unreachable:
        return None
    finally:
        target.close()


def hosted_on(target: Target) -> list[tuple[str, str, bool]]:
    """(name, dspmq status, default) of each queue manager ``target``'s server hosts (DISPLAY QMLITE QMGRS)."""
    import re

    [result] = target.run("DISPLAY QMLITE QMGRS")
    out: list[tuple[str, str, bool]] = []
    entry: dict[str, str] = {}
    for line in result.text:
        for key, value in re.findall(r"([A-Z]+)\(([^)]*)\)", line):
            if key == "QMNAME" and entry:
                out.append(_entry_of(entry))
                entry = {}
            entry[key] = value
    if entry:
        out.append(_entry_of(entry))
    return out


def _entry_of(pairs: dict[str, str]) -> tuple[str, str, bool]:
    return pairs["QMNAME"], _STATUS_WORD.get(pairs.get("STATUS", ""), "Running"), pairs.get("DEFAULT") == "YES"


# ---- setmqaut ------------------------------------------------------------------------------------
OBJECT_TYPES = {"queue": "QUEUE", "q": "QUEUE", "qmgr": "QMGR", "topic": "TOPIC", "top": "TOPIC",
                "channel": "CHANNEL", "chl": "CHANNEL", "namelist": "NAMELIST", "nl": "NAMELIST",
                "process": "PROCESS", "prcs": "PROCESS", "authinfo": "AUTHINFO", "listener": "LISTENER",
                "lstr": "LISTENER", "service": "SERVICE", "srvc": "SERVICE", "comminfo": "COMMINFO",
                "clntconn": "CLNTCONN", "clcn": "CLNTCONN", "rqmname": "RQMNAME", "rqmn": "RQMNAME"}
AUTHORITIES = {"altusr", "browse", "chg", "clr", "connect", "crt", "dlt", "dsp", "get", "inq", "passall",
               "passid", "put", "set", "setall", "setid", "ctrl", "ctrlx", "pub", "sub", "resume", "system",
               "all", "alladm", "allmqi", "none"}


def setmqaut(argv: list[str], usage: str | None = None) -> int:
    """``setmqaut -m QM1 -t queue -n NAME -p USER +put -get``: SET AUTHREC through the same domain.
    ``usage``: the text a bad argument prints (IBM's, for the ``setmqaut`` console script)."""
    _quiet()

    class Parser(argparse.ArgumentParser):
        def error(self, message: str):
            print(usage or f"{self.prog}: error: {message}", file=sys.stderr)
            raise SystemExit(2)

    parser = Parser(prog="qmlite setmqaut", add_help=usage is None)
    parser.add_argument("-m", dest="qmgr", default=None)
    parser.add_argument("-t", dest="objtype")
    parser.add_argument("-n", dest="name")
    parser.add_argument("-p", dest="principal")
    parser.add_argument("-g", dest="group")
    parser.add_argument("-s", dest="service")
    _connection_args(parser)
    adds, removes, rest = [], [], []
    for word in argv:
        low = word.lower()
        if len(word) > 1 and word[0] in "+-" and low[1:] in AUTHORITIES:
            (adds if word[0] == "+" else removes).append(low[1:].upper())
        else:
            rest.append(word)
    try:
        args = parser.parse_args(rest)
    except SystemExit as exc:  # --help (0), or arguments setmqaut does not take (IBM: 36)
        return 0 if exc.code == 0 else 36
    objtype, code = oam_arguments(args.objtype, args.principal, args.group, args.name)
    if code:
        return code
    if not (adds or removes):
        print("AMQ7085E: No authorizations specified.", file=sys.stderr)
        return 150
    parts = ["SET AUTHREC"]
    if objtype != "QMGR":
        parts.append(f"PROFILE({_quote(args.name)})")
    parts.append(f"OBJTYPE({objtype})")
    parts.append(f"PRINCIPAL({_quote(args.principal)})" if args.principal else f"GROUP({_quote(args.group)})")
    if adds:
        parts.append(f"AUTHADD({','.join(adds)})")
    if removes:
        parts.append(f"AUTHRMV({','.join(removes)})")
    password = os.environ.get("MQ_ADMIN_PASSWORD") if args.user else None
    try:
        target = open_target(args, args.user, password, client=args.client)
    except Unreachable as exc:
        return not_available(exc, 40)
    try:
        results = target.run(" ".join(parts))
    finally:
        target.close()
    result = results[0]
    if result.completion_code == C.MQCC_OK:
        print("The setmqaut command completed successfully.")
        return 0
    for line in result.text:
        print(line, file=sys.stderr)
    return 71


def oam_arguments(word: str | None, principal: str | None, group: str | None, name: str | None) -> tuple[str, int]:
    """The checks setmqaut and dspmqaut share, in IBM's order: (the MQSC object type, 0), or ("", the
    exit code) with IBM's message printed (147 no type, 148 an unknown one, 149 no entity, 146 no name)."""
    objtype = OBJECT_TYPES.get((word or "").lower())
    if not word:
        print("AMQ7086E: An object type (-t) is required.", file=sys.stderr)
        return "", 147
    if objtype is None:
        print(f"AMQ7076E: Invalid object type {word!r}.", file=sys.stderr)
        return "", 148
    if not (principal or group):
        print("AMQ7079E: An entity (-p or -g) is required.", file=sys.stderr)
        return "", 149
    if objtype != "QMGR" and not name:
        print("AMQ7087E: An object name (-n) is required.", file=sys.stderr)
        return "", 146
    return objtype, 0


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


# ---- ccdt ----------------------------------------------------------------------------------------
def ccdt(args: argparse.Namespace) -> int:
    """``qmlite ccdt``: the JSON CCDT for the queue manager's SVRCONN channels (registry/objects/ccdt.py),
    from a running server (Inquire Channel over the client) or the data directory."""
    from qmlite.registry.objects import ccdt as CC

    _quiet()
    password = read_password(args, sys.stdin.readline)
    cfg = settings(args)
    try:
        target = open_target(args, args.user, password, client=args.client)
    except Unreachable as exc:
        return not_available(exc)
    try:
        if isinstance(target, ServerTarget):
            defined = _inquire_svrconn(target)
        else:
            from qmlite.registry.objects import channels as M

            defined = list(target.qm.registry.objects(M.KIND).values())
        host = args.conn_host or (cfg.host if cfg.host not in ("0.0.0.0", "", "::") else "127.0.0.1")
        text = CC.render(defined, qmgr_name=target.qmgr_name or cfg.qmgr_name, host=host,
                         port=args.conn_port or cfg.port, names=args.channels or ())
    except CC.UnknownChannel as exc:
        print(f"AMQ8147E: IBM MQ object not found. ({exc})", file=sys.stderr)
        return RC_SOME_FAILED
    except Unreachable as exc:
        return not_available(exc)
    finally:
        target.close()
    if args.output and args.output != "-":
        pathlib.Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return RC_OK


# The SVRCONN attributes a CCDT entry carries, as Inquire Channel returns them -> the Channel field.
_CCDT_ATTRS = {C.MQCACH_DESC: "description", C.MQIACH_SHARING_CONVERSATIONS: "sharing_conversations",
               C.MQIACH_HB_INTERVAL: "heartbeat_interval", C.MQIACH_MAX_MSG_LENGTH: "max_msg_length",
               C.MQCACH_SSL_CIPHER_SPEC: "ssl_cipher_spec", C.MQIACH_HDR_COMPRESSION: "header_compression",
               C.MQIACH_MSG_COMPRESSION: "message_compression"}


def _inquire_svrconn(target: "ServerTarget") -> list:
    """The queue manager's SVRCONN channels, by Inquire Channel (the same command runmqsc's DISPLAY
    CHANNEL sends), as registry Channel values."""
    from qmlite.client.errors import MQIError
    from qmlite.pcf import pcf as P
    from qmlite.registry.objects import channels as M

    params = [P.CFST(C.MQCACH_CHANNEL_NAME, "*"), P.CFIN(C.MQIACH_CHANNEL_TYPE, C.MQCHT_SVRCONN),
              P.CFIL(C.MQIACF_CHANNEL_ATTRS, (C.MQIACF_ALL,))]
    try:
        responses = target.qm.pcf(C.MQCMD_INQUIRE_CHANNEL, params, wait_ms=target.wait_ms)
    except MQIError as exc:
        raise Unreachable(f"Inquire Channel failed (reason {exc.reason})") from exc
    out = []
    for response in responses:
        values = {p.parameter: p.value for p in response.parameters}
        name = str(values.get(C.MQCACH_CHANNEL_NAME, "")).strip()
        if not name or values.get(C.MQIACH_CHANNEL_TYPE) != C.MQCHT_SVRCONN:
            continue
        fields = {}
        for param, attr in _CCDT_ATTRS.items():
            if param in values:
                value = values[param]
                fields[attr] = (tuple(value) if isinstance(value, (list, tuple)) else
                                str(value).strip() if isinstance(value, str) else value)
        out.append(M.new(name, M.SVRCONN, **fields))
    return out


# ---- arguments -----------------------------------------------------------------------------------
def _connection_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-c", dest="client", action="store_true",
                        help="client mode: send the commands to a running server over the MQ client protocol")
    parser.add_argument("--host", help="server address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="server port (default 1414)")
    parser.add_argument("--channel", default=ADMIN_CHANNEL, help="SVRCONN channel (default DEV.ADMIN.SVRCONN)")
    parser.add_argument("-u", dest="user", help="user id; the password is read from stdin's first line, "
                                                "or MQ_ADMIN_PASSWORD")
    parser.add_argument("--data-dir", type=pathlib.Path,
                        help="the data directory used when no server answers (default ./data)")


def _quiet() -> None:
    """The control commands print runmqsc's output on stdout; log only warnings, on stderr."""
    from qmlite.server import log as qlog

    qlog.configure(level="warning")


def add_parsers(sub) -> None:
    run = sub.add_parser("runmqsc", help="run MQSC commands, like IBM's runmqsc")
    _connection_args(run)
    run.add_argument("-f", dest="file", help="read the commands from FILE instead of standard input")
    run.add_argument("-e", dest="no_echo", action="store_true", help="do not echo the commands")
    run.add_argument("-v", dest="verify", action="store_true", help="verify the syntax only; run nothing")
    run.add_argument("-w", dest="wait", type=float, help="seconds to wait for each command's answer (default 30)")
    run.add_argument("qmgr", nargs="?", default="", help="queue manager name (default QM1 or MQ_QMGR_NAME)")
    run.set_defaults(func=runmqsc)
    dsp = sub.add_parser("dspmq", help="show the queue manager and its status, like IBM's dspmq")
    dsp.add_argument("-m", help="only this queue manager")
    dsp.add_argument("-o", action="append", choices=["status", "all", "installation", "default"], help="what to show")
    dsp.add_argument("-s", action="store_true", help="the status (the default)")
    dsp.add_argument("-x", action="store_true", help="each running queue manager's instance")
    dsp.add_argument("--host")
    dsp.add_argument("--port", type=int)
    dsp.add_argument("--data-dir", type=pathlib.Path)
    dsp.set_defaults(func=dspmq, qmgr=None)
    cc = sub.add_parser("ccdt", help="write the JSON CCDT for the queue manager's SVRCONN channels (docs/ccdt.md)")
    _connection_args(cc)
    cc.add_argument("-o", dest="output", help="write to FILE (default standard output)")
    cc.add_argument("--conn-host", help="the host name written in each connection (default the server's address)")
    cc.add_argument("--conn-port", type=int, help="the port written (default the server's port)")
    cc.add_argument("--for-channel", dest="channels", action="append", metavar="NAME",
                    help="only this SVRCONN channel (repeatable; default all but SYSTEM.DEF/AUTO.SVRCONN)")
    cc.add_argument("qmgr", nargs="?", default="", help="queue manager name (default QM1 or MQ_QMGR_NAME)")
    cc.set_defaults(func=ccdt)
    aut = sub.add_parser("setmqaut", help="grant or revoke authorities, like IBM's setmqaut", add_help=False,
                         prefix_chars="\x00")
    aut.add_argument("rest", nargs=argparse.REMAINDER)
    aut.set_defaults(func=lambda args: setmqaut(args.rest))
