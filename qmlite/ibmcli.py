"""IBM's control commands under IBM's names, installed as console scripts (pyproject.toml
``[project.scripts]``; docs/control-commands.md): ``runmqsc``, ``dspmq``, ``dspmqver``, ``setmqaut``,
``dspmqaut``, ``dmpmqaut``, ``dmpmqcfg``, ``crtmqm``, ``strmqm``, ``endmqm``, ``dltmqm``.

This module holds IBM's argument grammars, usage texts and exit codes; the work is the same code
``qmlite runmqsc``, ``dspmq`` and ``setmqaut`` run (qmlite/control.py), on a queue manager found by
the same rule (docs/decisions.md CT1).  A flag IBM's command does not take prints its usage text on
standard error and ends with the exit code IBM gives a bad argument.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import getpass
import platform
import socket
import sys

from qmlite import control
from qmlite.client.mqsc import Unreachable
from qmlite.pcf import constants as C

USAGE = {
    "runmqsc": "Usage: runmqsc [-e] [-v] [-w WaitTime] [-u UserId] [-c] [-m LocalQMgrName] [QMgrName]",
    "dspmq": "Usage: dspmq [-m QMgrName] [-o all | -o default | -o installation | -o status] [-s] [-x]",
    "dspmqver": "Usage: dspmqver [-p Components] [-f Fields] [-b] [-v] [-i]",
    "dmpmqcfg": ("Usage: dmpmqcfg [-m QMgrName] [-c default | -c 'DEFINE CHANNEL(...) CHLTYPE(CLNTCONN) ...'] "
                 "[-x all|object|authrec|chlauth|sub|policy] [-a] [-n ObjectNames] [-t ObjectType] "
                 "[-o mqsc|1line|setmqaut|grtmqmaut]"),
    "setmqaut": ("Usage: setmqaut [-m QMgrName] [-n Profile] -t ObjectType (-p Principal | -g Group) "
                 "[-s ServiceName] Authorizations"),
    "dspmqaut": ("Usage: dspmqaut [-m QMgrName] [-n ObjectName] -t ObjectType (-p Principal | -g Group) "
                 "[-s ServiceName]"),
    "dmpmqaut": ("Usage: dmpmqaut [-m QMgrName] [-n Profile | -l] [-a] [-t ObjectType] [-s ServiceName] "
                 "[-p Principal | -g Group] [-e | -x]"),
    "crtmqm": "Usage: crtmqm [-z] [-q] [-c Text] [-d DefXmitQ] [-u DeadQ] [-p Port] QMgrName",
    "strmqm": "Usage: strmqm [-z] [-c] [-x] [QMgrName]",
    "endmqm": "Usage: endmqm [-z] [-c | -i | -p] [-w] [-r] [-s] [-x] QMgrName",
    "dltmqm": "Usage: dltmqm [-z] QMgrName",
}
# The exit code of a bad argument: runmqsc's 20, dspmqver's 20, the OAM commands' and dspmq's 36
# ("invalid arguments supplied"), dltmqm's 39 ("invalid parameter specified").
BAD_ARGS = {"runmqsc": 20, "dspmqver": 20, "dltmqm": 39}


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that raises on a bad argument instead of printing its own message and exiting 2."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog=prog, add_help=False, allow_abbrev=False)
        self.add_argument("-?", "-h", dest="help", action="store_true")

    def error(self, message: str):
        raise _Usage(message)


def _parse(prog: str, parser: _Parser, argv: list[str]) -> argparse.Namespace | int:
    try:
        args = parser.parse_args(argv)
    except _Usage:
        args = None
    if args is None or args.help:
        print(USAGE[prog], file=sys.stderr)
        return BAD_ARGS.get(prog, 36)
    return args


def _target_args(qmgr: str, *, client: bool = False, wait: float | None = None,
                 user: str | None = None) -> argparse.Namespace:
    """What qmlite/control.py's open_target reads: no --host/--port/--data-dir (CT1's environment)."""
    return argparse.Namespace(qmgr=qmgr or "", host=None, port=None, data_dir=None, channel=control.ADMIN_CHANNEL,
                              client=client, wait=wait, user=user)


# ---- runmqsc -------------------------------------------------------------------------------------
def runmqsc(argv: list[str] | None = None) -> int:
    parser = _Parser("runmqsc")
    parser.add_argument("-e", dest="no_echo", action="store_true")
    parser.add_argument("-v", dest="verify", action="store_true")
    parser.add_argument("-w", dest="wait", type=float)
    parser.add_argument("-x", dest="zos", action="store_true")  # with -w: the target is z/OS; accepted, unused
    parser.add_argument("-u", dest="user")
    parser.add_argument("-c", dest="client", action="store_true")
    parser.add_argument("-n", dest="ccdt_only", action="store_true")
    parser.add_argument("-m", dest="local")
    parser.add_argument("qmgr", nargs="?", default="")
    args = _parse("runmqsc", parser, sys.argv[1:] if argv is None else argv)
    if isinstance(args, int):
        return args
    if args.ccdt_only:  # -n: IBM's runmqsc opens no queue manager, qmlite has nothing to run it on
        print(USAGE["runmqsc"], file=sys.stderr)
        return 20
    ns = _target_args(args.qmgr, client=args.client, wait=args.wait, user=args.user)
    ns.file, ns.no_echo, ns.verify = None, args.no_echo, args.verify
    return control.runmqsc(ns)


# ---- dspmq, dspmqver -------------------------------------------------------------------------------
def dspmq(argv: list[str] | None = None) -> int:
    parser = _Parser("dspmq")
    parser.add_argument("-m")
    parser.add_argument("-o", action="append", choices=["all", "default", "installation", "status", "standby"])
    parser.add_argument("-s", action="store_true")
    parser.add_argument("-x", action="store_true")
    parser.add_argument("-n", action="store_true")  # IBM: messages not translated; always so here
    args = _parse("dspmq", parser, sys.argv[1:] if argv is None else argv)
    if isinstance(args, int):
        return args
    shown = [o for o in args.o or [] if o != "standby"]  # no standby instances here: the status says it
    ns = _target_args("")
    ns.m, ns.o, ns.s, ns.x = args.m, shown or (["status"] if args.o else None), args.s, args.x
    return control.dspmq(ns)


# dspmqver -f: IBM's field bits, each a label and its value.
def _version_fields() -> list[tuple[int, str, str]]:
    import qmlite

    version = control.presented_version()
    return [(1, "Name", "qmlite (an IBM MQ stand-in)"), (2, "Version", version),
            (4, "Level", f"qmlite-{qmlite.__version__}"),
            (8, "BuildType", "qmlite - (Developer)"), (16, "Platform", f"qmlite for {platform.system()} (Python)"),
            (32, "Mode", "64-bit" if sys.maxsize > 2 ** 32 else "32-bit"),
            (64, "O/S", f"{platform.system()} {platform.release()}"), (128, "InstName", control.INSTALLATION[0]),
            (256, "InstDesc", ""), (512, "Primary", "N/A"), (1024, "InstPath", control.INSTALLATION[1]),
            (2048, "DataPath", "/var/mqm"), (4096, "MaxCmdLevel", version.replace(".", "")[:3]),
            (8192, "LicenseType", "Developer")]


def dspmqver(argv: list[str] | None = None) -> int:
    parser = _Parser("dspmqver")
    parser.add_argument("-p", type=int, default=1)
    parser.add_argument("-f", type=int, default=(1 << 14) - 1)
    parser.add_argument("-b", action="store_true")
    parser.add_argument("-v", action="store_true")
    parser.add_argument("-i", action="store_true")
    args = _parse("dspmqver", parser, sys.argv[1:] if argv is None else argv)
    if isinstance(args, int):
        return args
    if args.p & ~1:  # components beyond the server (1): none installed
        print(f"AMQ8760E: Component {args.p & ~1} is not installed.", file=sys.stderr)  # qmlite's own text
        return 10
    for bit, label, value in _version_fields():
        if args.f & bit:
            print(value if args.b else f"{label + ':':<13}{value}".rstrip())
    return 0


# ---- setmqaut, dspmqaut, dmpmqaut ------------------------------------------------------------------
def setmqaut(argv: list[str] | None = None) -> int:
    return control.setmqaut(sys.argv[1:] if argv is None else argv, USAGE["setmqaut"])


def dspmqaut(argv: list[str] | None = None) -> int:
    parser = _Parser("dspmqaut")
    for flag in ("-m", "-n", "-t", "-p", "-g", "-s"):
        parser.add_argument(flag)
    args = _parse("dspmqaut", parser, sys.argv[1:] if argv is None else argv)
    if isinstance(args, int):
        return args
    objtype, code = control.oam_arguments(args.t, args.p, args.g, args.n)
    if code:
        return code
    from qmlite.registry.mqsc import dump

    who = f"PRINCIPAL({dump.quoted(args.p)})" if args.p else f"GROUP({dump.quoted(args.g)})"
    name = args.n if objtype != "QMGR" else (args.m or "")
    query = f"DISPLAY ENTAUTH {who} OBJTYPE({objtype})" + (f" OBJNAME({dump.quoted(name)})" if name else "")
    return _with_target(args.m, lambda target: _show_entauth(target, query, args.p or args.g, name))


def _show_entauth(target, query: str, entity: str, name: str) -> int:
    from qmlite.registry.mqsc import keywords as K

    auths: list[str] = []
    for response in _inquire_text(target, query):
        if response.header.CompCode == C.MQCC_FAILED:
            if response.header.Reason == C.MQRC_UNKNOWN_ENTITY:
                print(f"AMQ7026E: A principal or group name was invalid. ({entity})", file=sys.stderr)
                return 150
            if response.header.Reason in (C.MQRC_UNKNOWN_OBJECT_NAME, C.MQRCCF_UNKNOWN_OBJECT_NAME):
                print(f"AMQ8147E: IBM MQ object {name} not found.", file=sys.stderr)
                return 133
            continue
        for param in response.parameters:
            if param.parameter == C.MQIACF_AUTHORIZATION_LIST:
                names = K.ENTAUTH.keyword("AUTHLIST").names  # type: ignore[union-attr]
                auths += [names.get(v, str(v)).lower() for v in param.values if v != K.AUTHS["NONE"]]
    shown = name or target.qmgr_name
    print(f"Entity {entity} has the following authorizations for object {shown}:")
    for auth in auths:
        print(f"\t{auth}")
    return 0


def dmpmqaut(argv: list[str] | None = None) -> int:
    parser = _Parser("dmpmqaut")
    for flag in ("-m", "-n", "-t", "-p", "-g", "-s"):
        parser.add_argument(flag)
    for flag in ("-l", "-a", "-e", "-x"):
        parser.add_argument(flag, action="store_true")
    args = _parse("dmpmqaut", parser, sys.argv[1:] if argv is None else argv)
    if isinstance(args, int):
        return args
    objtype = control.OBJECT_TYPES.get(args.t.lower()) if args.t else None
    if args.t and objtype is None:
        print(f"AMQ7076E: Invalid object type {args.t!r}.", file=sys.stderr)
        return 148
    return _with_target(args.m, lambda target: _dump_auths(target, args, objtype))


def _dump_auths(target, args: argparse.Namespace, objtype: str | None) -> int:
    import fnmatch

    from qmlite.registry.mqsc import dump

    records = dump.authrecords(_inquire_text(target, "DISPLAY AUTHREC"))
    chosen = [r for r in records
              if (objtype is None or r.objtype == objtype)
              and (not args.n or r.profile == args.n or fnmatch.fnmatchcase(r.profile, args.n))
              and (not args.p or (r.entity == args.p and r.entity_type == "PRINCIPAL"))
              and (not args.g or (r.entity == args.g and r.entity_type == "GROUP"))]
    for rec in chosen:
        kind = dump.SETMQAUT_TYPE.get(rec.objtype, rec.objtype.lower())
        if args.a:
            print(dump.authrec_line(rec, "setmqaut", target.qmgr_name))
        elif args.l:
            print(f"profile: {rec.profile}, type: {kind}")
        else:
            print(f"profile:     {rec.profile}\nobject type: {kind}\nentity:      {rec.entity}\n"
                  f"entity type: {rec.entity_type.lower()}\nauthority:   {' '.join(a.lower() for a in rec.auths)}\n"
                  "- - - - - - - - - ")
    return 0


def _inquire_text(target, query: str) -> list:
    from qmlite.registry.mqsc.translate import translate

    tr = translate(query)
    return target.inquire(tr.message)


def _with_target(qmgr: str | None, work) -> int:
    """Open the queue manager (CT1), run ``work(target)``; 40 (IBM's "queue manager not available"
    of the OAM commands) or 72 (a name no server hosts) when none answers."""
    try:
        target = control.open_target(_target_args(qmgr or ""), None, None, client=False)
    except Unreachable as exc:
        return control.not_available(exc, 72 if exc.reason == C.MQRC_Q_MGR_NAME_ERROR else 40)
    try:
        return work(target)
    except Unreachable as exc:
        return control.not_available(exc, 40)
    finally:
        target.close()


# ---- dmpmqcfg ------------------------------------------------------------------------------------
def dmpmqcfg(argv: list[str] | None = None) -> int:
    from qmlite.registry.mqsc import dump

    argv = sys.argv[1:] if argv is None else argv
    parser = _Parser("dmpmqcfg")
    parser.add_argument("-m")
    parser.add_argument("-c", dest="client")
    parser.add_argument("-x", default="all", choices=dump.FILTERS)
    parser.add_argument("-a", action="store_true")
    parser.add_argument("-n", default="*")
    parser.add_argument("-t", default="all", choices=dump.TYPES)
    parser.add_argument("-o", default="mqsc", choices=dump.FORMATS)
    parser.add_argument("-s", type=int)  # reset channel sequence numbers: no message channels run here
    parser.add_argument("-z", action="store_true")
    parser.add_argument("-u")
    parser.add_argument("-q")
    parser.add_argument("-r")
    args = _parse("dmpmqcfg", parser, argv)
    if isinstance(args, int):
        return args
    if args.r:  # a remote queue manager through this one: no channels to it here
        print(NOT_AVAILABLE, file=sys.stderr)
        return 40
    password = control.read_password(argparse.Namespace(user=args.u), sys.stdin.readline)
    ns = _target_args(args.m or "", client=bool(args.client), user=args.u)
    if args.client and args.client != "default":
        ns.host, ns.port, ns.channel = _clntconn(args.client)
    options = dump.Options(types=frozenset({args.t}), filter=args.x, name=args.n, all_attrs=args.a, format=args.o)
    try:
        target = control.open_target(ns, args.u, password, client=bool(args.client))
    except Unreachable as exc:
        return control.not_available(exc, 40)
    try:
        facts = dump.qmgr_facts(target.inquire)
        options = dataclasses.replace(options, qmgr_name=facts.get("QMNAME", target.qmgr_name))
        now = datetime.datetime.now()
        lines = dump.header(qmgr_name=facts.get("QMNAME", ""), command_level=facts.get("CMDLEVEL", ""),
                         platform=facts.get("PLATFORM", "UNIX"), issued=" ".join(["dmpmqcfg", *argv]),
                         date=now.strftime("%Y-%m-%d"), time=now.strftime("%H.%M.%S"), user=getpass.getuser(),
                         host=socket.gethostname())
        lines += dump.dump(target.inquire, options)
    except Unreachable as exc:
        return control.not_available(exc, 40)
    finally:
        target.close()
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _clntconn(text: str) -> tuple[str, int, str]:
    """``-c "DEFINE CHANNEL(name) CHLTYPE(CLNTCONN) CONNAME('host(port)')"``: (host, port, channel)."""
    from qmlite.registry.mqsc.lexer import tokenize

    words = {t.word: (t.items[0].text if t.items else "") for t in tokenize(text)}
    host, _, port = words.get("CONNAME", "127.0.0.1(1414)").partition("(")
    return host.strip() or "127.0.0.1", int(port.rstrip(")") or 1414), words.get("CHANNEL", control.ADMIN_CHANNEL)


# ---- crtmqm, strmqm, endmqm, dltmqm --------------------------------------------------------------------
def crtmqm(argv: list[str] | None = None) -> int:
    """A queue manager hosted by the running server (DEFINE QMLITE QMGR, docs/multiqm.md)."""
    parser = _Parser("crtmqm")
    for flag in ("-c", "-d", "-u", "-p", "-lf", "-lp", "-ls", "-ll", "-ld", "-md", "-h"):
        if flag != "-h":
            parser.add_argument(flag)
    for flag in ("-z", "-q", "-lc", "-oa"):
        parser.add_argument(flag, action="store_true")
    parser.add_argument("name")
    args = _parse("crtmqm", parser, sys.argv[1:] if argv is None else argv)
    if isinstance(args, int):
        return args

    def create(target) -> int:
        [result] = target.run(f"DEFINE QMLITE QMGR({args.name})")
        if result.completion_code == C.MQCC_OK:
            print("IBM MQ queue manager created.")
            print(f"Creating or replacing default objects for queue manager '{args.name}'.")
            print("Setup completed.")
            return 0
        if result.reason_code == C.MQRCCF_OBJECT_ALREADY_EXISTS:
            print("AMQ8110E: IBM MQ queue manager already exists.", file=sys.stderr)
            return 8
        if result.reason_code == C.MQRCCF_Q_MGR_NAME_ERROR:
            print("AMQ8117E: IBM MQ queue manager name error.", file=sys.stderr)
            return 72
        print(*result.text, sep="\n", file=sys.stderr)
        return 71
    return _with_target("", create)


def _hosted(target) -> dict[str, str]:
    """The queue managers ``target``'s server hosts, name -> dspmq status (``Ended normally``: endmqm ended it)."""
    return {name: status for name, status, _ in control.hosted_on(target)}


ENDED = "Ended normally"  # dspmq's status of a queue manager endmqm ended (DISPLAY QMLITE QMGRS' ENDED)
NOT_EXIST = "AMQ8118E: IBM MQ queue manager does not exist."
NOT_AVAILABLE = "AMQ8146E: IBM MQ queue manager not available."


def strmqm(argv: list[str] | None = None) -> int:
    """Starts a hosted queue manager endmqm ended (START QMLITE QMGR): 0; one running: 5; one the running
    server does not host does not exist: 16.  With no server there is nothing to start it in: ``qmlite
    serve`` starts one (docs/control-commands.md)."""
    parser = _Parser("strmqm")
    for flag in ("-z", "-c", "-x", "-a", "-d", "-e", "-f", "-r", "-ns", "-si"):
        parser.add_argument(flag, action="store_true")
    parser.add_argument("name", nargs="?", default="")
    args = _parse("strmqm", parser, sys.argv[1:] if argv is None else argv)
    if isinstance(args, int):
        return args

    def start(target) -> int:
        name = args.name or target.qmgr_name
        status = _hosted(target).get(name)
        if status is None:
            print(NOT_EXIST, file=sys.stderr)
            return 16
        if status != ENDED:
            print(f"IBM MQ queue manager '{name}' running.")
            return 5
        print(f"IBM MQ queue manager '{name}' starting.")
        [result] = target.run(f"START QMLITE QMGR({name})")
        if result.completion_code != C.MQCC_OK:
            print(*result.text, sep="\n", file=sys.stderr)
            return 5 if result.reason_code == C.MQRC_Q_MGR_ACTIVE else 71
        print(f"The queue manager is associated with installation '{control.INSTALLATION[0]}'.")
        print(f"IBM MQ queue manager '{name}' started using V{control.presented_version()}.")
        return 0
    return _with_target("", start)


def endmqm(argv: list[str] | None = None) -> int:
    """Ends a queue manager the running server hosts: STOP QMLITE QMGR (``-r``: clients asked to
    reconnect).  The server's default ends the server and every queue manager it hosts, as SIGTERM does
    (``-r``: SIGUSR1); another ends alone.  ``-c`` (the default) returns at once; ``-w``, ``-i`` and ``-p``
    wait until it has ended (the default: the server stops answering; another: it shows ended)."""
    parser = _Parser("endmqm")
    for flag in ("-c", "-i", "-p", "-w", "-r", "-s", "-x", "-z"):
        parser.add_argument(flag, action="store_true")
    parser.add_argument("name")
    args = _parse("endmqm", parser, sys.argv[1:] if argv is None else argv)
    if isinstance(args, int):
        return args
    name = args.name
    waits = args.w or args.i or args.p
    alone = False  # a hosted queue manager other than the default: waited for here, on the same target

    def end(target) -> int:
        nonlocal alone
        hosted = {entry[0]: entry for entry in control.hosted_on(target)}
        if name not in hosted:
            print(NOT_EXIST, file=sys.stderr)
            return 16
        if hosted[name][1] == ENDED:
            print(NOT_AVAILABLE, file=sys.stderr)
            return 40
        alone = not hosted[name][2]
        try:
            [result] = target.run(f"STOP QMLITE QMGR({name})" + (" RECONNECT" if args.r else ""))
        except Unreachable as exc:
            if exc.reason in _ENDING and not alone:  # the server ended before its answer arrived: accepted
                return 0
            raise
        if result.completion_code != C.MQCC_OK:
            print(*result.text, sep="\n", file=sys.stderr)
            return {C.MQRC_NOT_AUTHORIZED: 40, C.MQRC_Q_MGR_NOT_AVAILABLE: 40}.get(result.reason_code, 71)
        if alone and waits:
            _waiting(name, args)
            return 0 if _polled(lambda: _hosted(target).get(name) == ENDED) else 71
        return 0
    code = _with_target("", end)
    if code or (alone and waits):
        if not code:
            print(f"IBM MQ queue manager '{name}' ended.")
        elif code == 71 and alone and waits:
            print(f"endmqm: queue manager '{name}' did not end within {ENDING_SECONDS} seconds.", file=sys.stderr)
        return code
    if not waits:
        print("Quiesce request accepted. The queue manager will stop when all outstanding work is complete.")
        return 0
    _waiting(name, args)
    if not _ended():
        print(f"endmqm: queue manager '{name}' did not end within {ENDING_SECONDS} seconds.", file=sys.stderr)
        return 71
    print(f"IBM MQ queue manager '{name}' ended.")
    return 0


def _waiting(name: str, args) -> None:
    print(f"IBM MQ queue manager '{name}' ending." if (args.i or args.p)
          else f"Waiting for queue manager '{name}' to end.")


_ENDING = frozenset({C.MQRC_CONNECTION_BROKEN, C.MQRC_Q_MGR_QUIESCING, C.MQRC_Q_MGR_STOPPING,
                     C.MQRC_CONNECTION_QUIESCING, C.MQRC_CONNECTION_STOPPING})
ENDING_SECONDS = 60  # how long endmqm -w waits for the queue manager to end (it quiesces its clients first)


def _polled(done) -> bool:
    """Whether ``done()`` comes true within ENDING_SECONDS (asked every 0.1 s)."""
    import time

    deadline = time.monotonic() + ENDING_SECONDS
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)  # the command waits for another process, as IBM's endmqm -w does
    return True


def _ended() -> bool:
    """Whether the server stops answering on its port within ENDING_SECONDS."""
    cfg = control.settings(_target_args(""))
    return _polled(lambda: not control.answers(control.server_host(cfg), cfg.port, timeout=0.2))


def dltmqm(argv: list[str] | None = None) -> int:
    """Deletes a hosted queue manager endmqm ended, its data directory with it (DELETE QMLITE QMGR): 0.
    One running: 5, as IBM's dltmqm of a running queue manager; one not hosted: 16."""
    parser = _Parser("dltmqm")
    parser.add_argument("-z", action="store_true")
    parser.add_argument("name")
    args = _parse("dltmqm", parser, sys.argv[1:] if argv is None else argv)
    if isinstance(args, int):
        return args

    def delete(target) -> int:
        status = _hosted(target).get(args.name)
        if status is None:
            print(NOT_EXIST, file=sys.stderr)
            return 16
        if status != ENDED:
            print(f"IBM MQ queue manager '{args.name}' running.", file=sys.stderr)
            return 5
        [result] = target.run(f"DELETE QMLITE QMGR({args.name})")
        if result.completion_code != C.MQCC_OK:
            print(*result.text, sep="\n", file=sys.stderr)
            return 5 if result.reason_code == C.MQRC_Q_MGR_ACTIVE else 71
        print(f"IBM MQ queue manager '{args.name}' deleted.")
        return 0
    return _with_target("", delete)
