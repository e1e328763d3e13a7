"""dmpmqcfg's output: a queue manager's definitions as the MQSC that makes them again, and its
authority records as MQSC, ``setmqaut`` or ``GRTMQMAUT`` commands (docs/control-commands.md).

Sans-IO: :func:`dump` asks ``inquire`` (a PCF request in, its responses out) for each section's
objects, each request being what runmqsc's ``DISPLAY ... ALL`` sends (translate.py), so it runs alike
on a server over the client and on a data directory opened directly.  Which attributes DEFINE, ALTER
or SET can give comes from the command handlers' own parameter tables (:func:`settable`), never a list
kept here; every other attribute an Inquire returns (CRDATE, CURDEPTH ...) is written as a comment,
as IBM's dmpmqcfg does (``*  CRDATE(2024-01-01) +``), which runmqsc skips on replay.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
from collections.abc import Callable, Iterable

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.mqsc import display
from qmlite.registry.mqsc import keywords as K

Inquire = Callable[[P.PCFMessage], list]

OBJECT, AUTHREC, CHLAUTH, SUB, POLICY = "object", "authrec", "chlauth", "sub", "policy"
FILTERS = ("all", OBJECT, AUTHREC, CHLAUTH, SUB, POLICY)  # -x
FORMATS = ("mqsc", "1line", "setmqaut", "grtmqmaut")  # -o


@dataclasses.dataclass(frozen=True)
class Section:
    """One part of the dump: the ``-t`` word that selects it, the ``-x`` filter it belongs to, and the
    DISPLAY whose Inquire gives its objects (``{name}``: the ``-n`` pattern)."""

    type: str
    filter: str
    display: str


SECTIONS = (
    Section("qmgr", OBJECT, "DISPLAY QMGR ALL"),
    Section("authinfo", OBJECT, "DISPLAY AUTHINFO({name}) ALL"),
    Section("queue", OBJECT, "DISPLAY QUEUE({name}) ALL"),
    Section("namelist", OBJECT, "DISPLAY NAMELIST({name}) ALL"),
    Section("process", OBJECT, "DISPLAY PROCESS({name}) ALL"),
    Section("channel", OBJECT, "DISPLAY CHANNEL({name}) ALL"),
    # telemetry channels: an Inquire of their own (ChannelType MQCHT_MQTT, decision TC2), after the MQ
    # channels; IBM's -t channel leaves them out, -t all and -t mqttchl give them (decision CT13)
    Section("mqttchl", OBJECT, "DISPLAY CHANNEL({name}) CHLTYPE(MQTT) ALL"),
    Section("listener", OBJECT, "DISPLAY LISTENER({name}) ALL"),
    Section("service", OBJECT, "DISPLAY SERVICE({name}) ALL"),
    Section("comminfo", OBJECT, "DISPLAY COMMINFO({name}) ALL"),
    Section("topic", OBJECT, "DISPLAY TOPIC({name}) ALL"),
    Section("sub", SUB, "DISPLAY SUB({name}) ALL"),
    Section("chlauth", CHLAUTH, "DISPLAY CHLAUTH({name}) ALL"),
    Section("authrec", AUTHREC, "DISPLAY AUTHREC"),
)
# -t: IBM's words; clntconn is the CLNTCONN channels, policy selects nothing qmlite has.
TYPES = ("all", *(s.type for s in SECTIONS), "clntconn", "policy")
_CHANNEL_SECTIONS = ("channel", "mqttchl")

_Q_NOUN = {C.MQQT_LOCAL: "QLOCAL", C.MQQT_MODEL: "QMODEL", C.MQQT_ALIAS: "QALIAS", C.MQQT_REMOTE: "QREMOTE"}
# The object each kind's new definitions start from: without -a, only what differs from it is written.
_DEFAULT_OF = {"QLOCAL": "SYSTEM.DEFAULT.LOCAL.QUEUE", "QMODEL": "SYSTEM.DEFAULT.MODEL.QUEUE",
               "QALIAS": "SYSTEM.DEFAULT.ALIAS.QUEUE", "QREMOTE": "SYSTEM.DEFAULT.REMOTE.QUEUE",
               "NAMELIST": "SYSTEM.DEFAULT.NAMELIST", "PROCESS": "SYSTEM.DEFAULT.PROCESS",
               "TOPIC": "SYSTEM.BASE.TOPIC", "LISTENER": "SYSTEM.DEFAULT.LISTENER.TCP",
               "SERVICE": "SYSTEM.DEFAULT.SERVICE", "COMMINFO": "SYSTEM.DEFAULT.COMMINFO"}
_CHLAUTH_DEFAULTS = frozenset({"WARN(NO)", "CHCKCLNT(ASQMGR)"})
_FIRST = ("ALTDATE", "ALTTIME")  # IBM's dumps begin each object with its alteration stamp
# Secrets Inquire answers only as set or not (``********``): written as a command, a replay would make
# the mask the secret, so they are comments, as the display-only attributes are (decision CT14).
MASKED = frozenset({C.MQCACH_PASSWORD, C.MQCA_LDAP_PASSWORD, C.MQCACH_SSL_KEY_PASSPHRASE})


@dataclasses.dataclass(frozen=True)
class Options:
    types: frozenset[str] = frozenset({"all"})  # -t
    filter: str = "all"  # -x
    name: str = "*"  # -n: a generic name
    all_attrs: bool = False  # -a
    format: str = "mqsc"  # -o
    qmgr_name: str = ""  # for setmqaut's -m and GRTMQMAUT's MQMNAME


@functools.cache
def settable() -> dict[str, frozenset[int]]:
    """Per object kind, the parameter ids its DEFINE (ALTER QMGR, SET CHLAUTH) takes: the command
    handlers' own tables, so an attribute the domain learns to set is dumped with no change here."""
    from qmlite.registry.admin.commands import (chlauth, channels, endpoints, namelists, processes, qmgr, queues,
                                                subscriptions, topics)

    def ids(params: Iterable) -> frozenset[int]:
        return frozenset(p.id for p in params)

    by_qtype = {noun: ids(queues.SETTABLE[qtype]) for qtype, noun in _Q_NOUN.items()}
    return {
        "QMGR": ids(p for p, _ in qmgr.ATTRIBUTES),
        **by_qtype,
        "CHANNEL": ids(p for p, _ in channels.KIND.definition) - {C.MQIACH_CHANNEL_TYPE},
        "NAMELIST": ids(p for p, _ in namelists.KIND.definition),
        "PROCESS": ids(p for p, _ in processes.KIND.definition),
        "AUTHINFO": ids(p for p, _ in endpoints.AUTHINFO.definition),
        "LISTENER": ids(p for p, _ in endpoints.LISTENER.definition),
        "SERVICE": ids(p for p, _ in endpoints.SERVICE.definition),
        "COMMINFO": ids(p for p, _ in endpoints.COMMINFO.definition),
        "TOPIC": ids(p for p, _ in topics.DEFINITION) | {topics.TOPIC_STRING},  # the string: Create only
        "SUB": ids(subscriptions.DEFINITION_PARAMS),
        "CHLAUTH": ids(p for p, _ in chlauth.FIELDS),
    }


# ---- one attribute -------------------------------------------------------------------------------
def quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def written(kw: K.Keyword, value: object) -> str:
    """``KEYWORD(value)`` as a command gives it: strings quoted (a blank one as ``' '``), words and
    numbers bare, a FLAG as its word."""
    kind = kw.kind
    if kind == K.FLAG:
        return display.value_text(kw, value)
    if kind == K.STR:
        return f"{kw.name}({quoted(str(value).rstrip(' ') or ' ')})"
    if kind == K.STRLIST:
        items = [str(v).rstrip(" \x00") for v in value]  # type: ignore[union-attr]
        return f"{kw.name}({','.join(quoted(v) for v in items if v)})"
    return f"{kw.name}({display.value_text(kw, value)})"


def _pairs(otype: K.ObjectType, params: list) -> dict[str, tuple[K.Keyword, object]]:
    out: dict[str, tuple[K.Keyword, object]] = {}
    for param in params:
        kw = otype.for_id(param.parameter)
        if kw is None or kw.name in out:
            continue
        out[kw.name] = (kw, param.values if isinstance(param, (P.CFIL, P.CFSL, P.CFIL64)) else param.value)
    return out


# ---- objects -------------------------------------------------------------------------------------
@dataclasses.dataclass
class _Object:
    verb: str  # DEFINE, ALTER, SET
    noun: str  # QLOCAL, CHANNEL, QMGR ...
    name: str | None
    head: list[str]  # words after the name (CHLTYPE(SVRCONN), TYPE(ADDRESSMAP))
    attrs: list[tuple[str, bool]]  # (KEYWORD(value), settable)
    tail: str  # REPLACE, FORCE, ACTION(REPLACE)
    kind: str = ""  # the default object's key in _DEFAULT_OF (QLOCAL ...; CHANNEL type words)


def _object(section: Section, otype: K.ObjectType, name_pid: int | None, params: list,
            topic_strings: dict[str, str] | None = None) -> _Object | None:
    pairs = _pairs(otype, params)
    values = {p.parameter: (p.values if isinstance(p, (P.CFIL, P.CFSL)) else p.value) for p in params}
    name = str(values.get(name_pid, "")).rstrip() if name_pid is not None else None
    head: list[str] = []
    skip = {otype.lead[0]} if otype.lead else set()
    verb, noun, tail, kind = "DEFINE", otype.name, "REPLACE", otype.name
    if section.type == "qmgr":
        verb, noun, tail, name = "ALTER", "QMGR", "FORCE", None
        skip = set()
    elif section.type == "queue":
        noun = _Q_NOUN.get(values.get(C.MQIA_Q_TYPE))  # type: ignore[arg-type]
        if noun is None:  # a cluster queue is another queue manager's definition
            return None
        if noun == "QLOCAL" and values.get(C.MQIA_DEFINITION_TYPE) == C.MQQDT_TEMPORARY_DYNAMIC:
            return None  # an application's reply queue (dmpmqcfg's own too): gone when it closes
        kind = noun
        skip.add("TYPE")
    elif section.type in _CHANNEL_SECTIONS:
        chl = pairs.pop("CHLTYPE")
        head.append(written(*chl))
        kind = display.value_text(*chl)
    elif section.type == "sub":
        # only DEFINE SUB's (IBM dumps no MQSUB's); SYSTEM.DEFAULT.SUB is every queue manager's own
        if values.get(C.MQIACF_SUB_TYPE) != C.MQSUBTYPE_ADMIN or (name or "").startswith("SYSTEM."):
            return None
        _own_topic_string(pairs, topic_strings or {})
    elif section.type == "chlauth":
        verb, tail = "SET", "ACTION(REPLACE)"
        head.append(written(*pairs.pop("TYPE")))
        # a rule takes only what its type and USERSRC allow (MCAUSER only with MAP, WARN only with
        # NOACCESS, CHCKCLNT never with it): what Inquire reports at SET CHLAUTH's defaults is left out
        skip |= {key for key, (kw, value) in pairs.items()
                 if (kw.kind == K.STR and not str(value).strip()) or written(kw, value) in _CHLAUTH_DEFAULTS}
    elif section.type == "topic" and not str(values.get(C.MQCA_TOPIC_STRING, "x")).strip():
        # the root (SYSTEM.BASE.TOPIC) has a blank string no DEFINE may give: it always exists, ALTER it
        verb, tail = "ALTER", ""
        skip.add("TOPICSTR")
    settable_ids = settable().get(kind if section.type == "queue" else otype.name, frozenset())
    attrs = []
    for key, (kw, value) in pairs.items():
        if key in skip:
            continue
        attrs.append((written(kw, value), kw.pid in settable_ids and kw.pid not in MASKED))
    attrs.sort(key=lambda a: (a[0].split("(")[0] not in _FIRST, a[0].split("(")[0]))
    return _Object(verb, noun, name, head, attrs, tail, kind)


def _own_topic_string(pairs: dict, topic_strings: dict[str, str]) -> None:
    """A subscription's TOPICSTR as DEFINE SUB takes it: Inquire gives the string resolved against
    TOPICOBJ (the object's string, ``/``, the subscription's own), DEFINE joins them again."""
    obj = str(pairs.get("TOPICOBJ", (None, ""))[1]).strip()
    base = topic_strings.get(obj, "")
    if not base or "TOPICSTR" not in pairs:
        return
    kw, resolved = pairs["TOPICSTR"]
    resolved = str(resolved).rstrip()
    if resolved == base:
        del pairs["TOPICSTR"]
    elif resolved.startswith(base + "/"):
        pairs["TOPICSTR"] = (kw, resolved[len(base) + 1:])


def _lines(obj: _Object, fmt: str, defaults: dict[str, _Object]) -> list[str]:
    first = f"{obj.verb} {obj.noun}" + (f"({quoted(obj.name)})" if obj.name is not None else "")
    first = " ".join([first, *obj.head])
    attrs = obj.attrs
    base = defaults.get(obj.kind)
    if base is not None and base is not obj:  # without -a: what differs from the kind's default object
        same = {text for text, _ in base.attrs}
        attrs = [(text, ok) for text, ok in attrs if ok and text not in same]
    if fmt == "1line":
        return [" ".join([first, *(text for text, ok in attrs if ok), *([obj.tail] if obj.tail else [])])]
    lines = [first, *(("   " if ok else "*  ") + text for text, ok in attrs), *(["   " + obj.tail] if obj.tail else [])]
    last = max(i for i, line in enumerate(lines) if not line.startswith("*"))  # the command ends there
    return [line + " +" if i < last or (line.startswith("*") and i < len(lines) - 1) else line
            for i, line in enumerate(lines)]


# ---- authority records ---------------------------------------------------------------------------
SETMQAUT_TYPE = {"QUEUE": "queue", "QMGR": "qmgr", "TOPIC": "topic", "CHANNEL": "channel", "NAMELIST": "namelist",
                  "PROCESS": "process", "AUTHINFO": "authinfo", "LISTENER": "listener", "SERVICE": "service",
                  "COMMINFO": "comminfo", "CLNTCONN": "clntconn", "RQMNAME": "rqmname"}
_GRTMQMAUT_TYPE = {"QUEUE": "*Q", "QMGR": "*MQM", "TOPIC": "*TOPIC", "CHANNEL": "*CHL", "NAMELIST": "*NMLIST",
                   "PROCESS": "*PRC", "AUTHINFO": "*AUTHINFO", "LISTENER": "*LSR", "SERVICE": "*SVC",
                   "COMMINFO": "*COMMINFO", "CLNTCONN": "*CLTCN", "RQMNAME": "*RMTMQMNAME"}
_GRTMQMAUT_WORD = {"CHG": "ADMCHG", "CLR": "ADMCLR", "CRT": "ADMCRT", "DLT": "ADMDLT", "DSP": "ADMDSP"}


@dataclasses.dataclass(frozen=True)
class AuthRecord:
    profile: str
    entity: str
    entity_type: str  # PRINCIPAL or GROUP
    objtype: str  # QUEUE, QMGR ...
    auths: tuple[str, ...]  # MQSC words: PUT, GET ...


def authrecords(responses: list) -> list[AuthRecord]:
    out = []
    for response in responses:
        if response.header.CompCode == C.MQCC_FAILED:
            continue
        pairs = _pairs(K.AUTHREC, response.parameters)
        if "PROFILE" not in pairs or "ENTITY" not in pairs:
            continue
        text = {key: display.value_text(kw, value) for key, (kw, value) in pairs.items()}
        auths = tuple(a for a in text.get("AUTHLIST", "").split(",") if a and a != "NONE")
        out.append(AuthRecord(text["PROFILE"], text["ENTITY"], text.get("ENTTYPE", "PRINCIPAL"),
                              text.get("OBJTYPE", ""), auths or ("NONE",)))
    return out


def authrec_line(rec: AuthRecord, fmt: str, qmgr_name: str) -> str:
    if fmt == "setmqaut":
        who = "-p" if rec.entity_type != "GROUP" else "-g"
        name = [] if rec.objtype == "QMGR" else ["-n", _shell(rec.profile)]
        flags = [f"+{a.lower()}" for a in rec.auths]
        return " ".join(["setmqaut", "-m", _shell(qmgr_name), *name, "-t", SETMQAUT_TYPE.get(rec.objtype, "queue"),
                         who, _shell(rec.entity), *flags])
    if fmt == "grtmqmaut":
        obj = quoted(rec.profile) if rec.objtype != "QMGR" else quoted(qmgr_name)
        auts = " ".join("*" + _GRTMQMAUT_WORD.get(a, a) for a in rec.auths)
        return (f"GRTMQMAUT OBJ({obj}) OBJTYPE({_GRTMQMAUT_TYPE.get(rec.objtype, '*Q')}) USER({rec.entity}) "
                f"AUT({auts}) MQMNAME({quoted(qmgr_name)})")
    profile = "" if rec.objtype == "QMGR" else f"PROFILE({quoted(rec.profile)}) "
    who = "GROUP" if rec.entity_type == "GROUP" else "PRINCIPAL"
    return f"SET AUTHREC {profile}{who}({quoted(rec.entity)}) OBJTYPE({rec.objtype}) AUTHADD({','.join(rec.auths)})"


def _shell(text: str) -> str:
    import shlex

    return shlex.quote(text)


# ---- the dump ------------------------------------------------------------------------------------
def _wanted(section: Section, options: Options) -> bool:
    if options.filter not in ("all", section.filter):
        return False
    types = options.types
    return "all" in types or section.type in types or (section.type == "channel" and "clntconn" in types)


def request(section: Section, name: str = "*"):
    """The Inquire a section sends, and the keyword table and name parameter of its answers."""
    from qmlite.registry.mqsc.translate import translate

    tr = translate(section.display.format(name=quoted(name)))
    assert tr.row is not None and tr.message is not None
    return tr.message, tr.row.otype, tr.row.name_pid


def dump(inquire: Inquire, options: Options) -> list[str]:
    """The dump's command lines (no header), in IBM's order of sections."""
    out: list[str] = []
    for section in SECTIONS:
        if not _wanted(section, options):
            continue
        name = options.name if section.type not in ("qmgr", "authrec") else "*"
        message, otype, name_pid = request(section, name)
        responses = [r for r in inquire(message) if r.header.CompCode != C.MQCC_FAILED]
        if section.type == "authrec":
            for rec in authrecords(responses):
                if options.name == "*" or fnmatch.fnmatchcase(rec.profile, options.name):
                    out.append(authrec_line(rec, options.format, options.qmgr_name))
            continue
        strings = _topic_strings(inquire) if section.type == "sub" else None
        objects = [o for o in (_object(section, otype, name_pid, r.parameters, strings) for r in responses)
                   if o is not None]
        if section.type == "channel" and "clntconn" in options.types and "all" not in options.types \
                and "channel" not in options.types:
            objects = [o for o in objects if o.kind == "CLNTCONN"]
        defaults: dict[str, _Object] = {}
        if not options.all_attrs:
            defaults = {o.kind: o for o in objects if o.name is not None and o.name == _default_name(o)}
            if options.name != "*":  # the default objects may not match -n: ask for them by name
                defaults.update(_defaults_by_name(inquire, section, {o.kind for o in objects} - set(defaults)))
        fmt = "1line" if options.format == "1line" else "mqsc"
        for obj in objects:
            out += _lines(obj, fmt, defaults)
    return out


def _topic_strings(inquire: Inquire) -> dict[str, str]:
    topic = next(s for s in SECTIONS if s.type == "topic")
    message, otype, name_pid = request(topic)
    out = {}
    for response in inquire(message):
        values = {p.parameter: p.value for p in response.parameters if not isinstance(p, (P.CFIL, P.CFSL))}
        if response.header.CompCode != C.MQCC_FAILED and name_pid in values:
            out[str(values[name_pid]).rstrip()] = str(values.get(C.MQCA_TOPIC_STRING, "")).rstrip()
    return out


def _default_name(obj: _Object) -> str | None:
    if obj.noun == "CHANNEL":
        from qmlite.registry.objects import channels as M

        return {word: M.DEFAULT_OF[t] for word, t in K.CHL_TYPES.items() if t in M.DEFAULT_OF}.get(obj.kind)
    if obj.noun == "AUTHINFO":
        return None
    return _DEFAULT_OF.get(obj.kind)


def _defaults_by_name(inquire: Inquire, section: Section, kinds: set[str]) -> dict[str, _Object]:
    found: dict[str, _Object] = {}
    for kind in kinds:
        probe = _Object("", "CHANNEL" if section.type in _CHANNEL_SECTIONS else kind, None, [], [], "", kind)
        name = _default_name(probe)
        if not name:
            continue
        message, otype, name_pid = request(section, name)
        for response in inquire(message):
            if response.header.CompCode != C.MQCC_FAILED:
                obj = _object(section, otype, name_pid, response.parameters)
                if obj is not None and obj.kind == kind:
                    found[kind] = obj
    return found


def header(*, qmgr_name: str, command_level: str, platform: str, issued: str, date: str, time: str, user: str,
           host: str) -> list[str]:
    """The comment block IBM's dmpmqcfg begins with (date ``YYYY-MM-DD``, time ``HH.MM.SS``)."""
    rule = "*" * 79
    return [rule, f"* Script generated on {date}   at {time}", f"* Script generated by user {quoted(user)} on host "
            f"{quoted(host)}", f"* Queue manager name: {qmgr_name}", f"* Queue manager platform: {platform}",
            f"* Queue manager command level: ({command_level}/{command_level})", f"* Command issued: {issued}", rule]


def qmgr_facts(inquire: Inquire) -> dict[str, str]:
    """The queue manager's name, command level and platform, for the header."""
    message, otype, _ = request(SECTIONS[0])
    for response in inquire(message):
        if response.header.CompCode == C.MQCC_FAILED:
            continue
        pairs = _pairs(otype, response.parameters)
        return {key: display.value_text(*pairs[key]) for key in ("QMNAME", "CMDLEVEL", "PLATFORM") if key in pairs}
    return {}
