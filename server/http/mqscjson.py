"""The ``/admin/action/qmgr/{qmgr}/mqsc`` translation, both ways, with no HTTP in it.

``runCommandJSON`` (``command``, ``qualifier``, ``name``, ``parameters``, ``responseParameters``) becomes
one MQSC command; the MQSC runner's results (``MqscResult``: completion and reason codes, runmqsc text,
and for DISPLAY one dict per object, UPPER-case keyword -> value string) become IBM's
``commandResponse`` items: lower-case attribute names, integer values as JSON numbers.
"""

from __future__ import annotations

import re

from qmlite.pcf import constants as C
from qmlite.registry.mqsc import commands as MC
from qmlite.registry.mqsc.keywords import FLAG, Keyword
from qmlite.registry.mqsc.translate import command_keyword

# A value written bare in MQSC: MQSC folds it to upper case, which is what names and enumerations
# want.  Anything else (blanks, parentheses, quotes, commas) is quoted.
_BARE = re.compile(r"^[A-Za-z0-9._/%*+-]+$")
_NAME_BARE = re.compile(r"^[A-Z0-9._/%*]+$")  # an object name keeps its case only when quoted
_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
# Attributes whose value is free text: always quoted, so their case survives.
TEXT_KEYWORDS = frozenset({
    "descr", "topicstr", "mcauser", "appltag", "userdata", "usrdata", "trigdata", "envrdata", "applicid",
    "conname", "sslpeer", "sslciph", "custom", "selector", "clntuser", "usersrc", "address", "addrlist",
    "msgexit", "rcvexit", "scyexit", "sendexit", "msgdata", "rcvdata", "scydata", "senddata", "ldapuser",
    "ldappwd", "userid", "passwrd", "dest", "destcorl", "pubacct", "pubappid", "subuser", "destqmgr",
    "sslkeyr", "certlabl", "comment", "principal", "group", "profile", "sslcryp",
    "jaascfg", "sslkeyp", "clientid",  # a telemetry channel's JAAS stanza, key passphrase, MQTT client id
})
# Attributes whose value stays a string even when it looks like an integer.
_TEXT_RESULTS = TEXT_KEYWORDS | frozenset({"queue", "qmname", "channel", "topic", "sub", "subid", "namelist",
                                           "process", "listener", "service", "authinfo", "comminfo", "type",
                                           "qmid", "conn", "connopts", "crdate", "crtime", "altdate", "alttime",
                                           "lgetdate", "lgettime", "lputdate", "lputtime", "msgage"})
_INTEGER = re.compile(r"^-?\d+$")
# MQRCCF_COMMAND_FAILED: the overall reason when any command failed (IBM's mqweb answer).
COMMAND_FAILED = 3008


# A keyword that takes no value (REPLACE, PURGE, FORCE, TRIGGER ...) is sent by IBM's REST clients as
# "replace": "yes"; "no" asks for its negative form (NOREPLACE).  docs/decisions.md U1.
FLAG_ON, FLAG_OFF = "YES", "NO"


class TranslationError(ValueError):
    """The request body is not a command this endpoint can run; the message says why."""


def quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _flag(kw: Keyword, key: str, value, display: bool) -> str | None:
    """A keyword-only flag's MQSC word for its JSON value ("" to leave it out: "no" on a DISPLAY, which
    names attributes by their positive word); None: not a value a flag takes."""
    if value is None or value is True or value == "":
        return key
    on = isinstance(value, str) and value.upper() == FLAG_ON
    off = value is False or (isinstance(value, str) and value.upper() == FLAG_OFF)
    if not (on or off):
        return None
    if on:
        return key
    if display:
        return ""
    return kw.off if key == kw.name else kw.name  # "no": the other word of the pair


def _value(keyword: str, value, kw: Keyword | None = None, display: bool = False) -> str | None:
    """One parameter's MQSC text (None: leave the keyword out).  ``kw``: the keyword table's entry
    when the command is one the table knows."""
    key = keyword.upper()
    if kw is not None and kw.kind == FLAG:
        word = _flag(kw, key, value, display)
        if word is not None:
            return word or None
        # another value: written as KEY(value), which MQSC answers with a syntax error (3097)
    if value is None or value is True or value == "":
        return key  # a keyword with no value (REPLACE, PURGE, FORCE)
    if value is False:
        return None
    if isinstance(value, (int, float)):
        return f"{key}({int(value) if float(value).is_integer() else value})"
    if isinstance(value, list):
        if not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
            raise TranslationError(f"parameter {keyword!r}: a list holds only strings and integers")
        items = [str(v) if isinstance(v, int) or _BARE.match(v) else quote(v) for v in value]
        return f"{key}({','.join(items)})"
    if not isinstance(value, str):
        raise TranslationError(f"parameter {keyword!r}: value must be a string, number, boolean or list")
    if keyword.lower() in TEXT_KEYWORDS or not _BARE.match(value):
        return f"{key}({quote(value)})"
    return f"{key}({value})"


def _name(name: str) -> str:
    return name if _NAME_BARE.match(name) else quote(name)


def command_text(body: dict) -> str:
    """The MQSC command a runCommandJSON body asks for (TranslationError when it asks for none)."""
    command = body.get("command")
    qualifier = body.get("qualifier")
    if not isinstance(command, str) or not _WORD.match(command):
        raise TranslationError("runCommandJSON needs 'command', an MQSC verb such as 'display'")
    if not isinstance(qualifier, str) or not _WORD.match(qualifier):
        raise TranslationError("runCommandJSON needs 'qualifier', an MQSC object type such as 'qlocal'")
    verb, qual = command.upper(), qualifier.upper()
    name = body.get("name")
    parts = [verb]
    if name is None:
        parts.append(qual)
    elif isinstance(name, str) and name:
        parts.append(f"{qual}({_name(name)})")
    else:
        raise TranslationError("'name' must be a non-empty string when given")
    params = body.get("parameters", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise TranslationError("'parameters' must be a JSON object of MQSC keyword to value")
    row = MC.TABLE.get((MC.VERBS.get(verb, verb), MC.NOUNS.get(qual, qual)))
    for keyword, value in params.items():
        if not _WORD.match(keyword):
            raise TranslationError(f"parameter name {keyword!r} is not an MQSC keyword")
        kw = command_keyword(row, keyword.upper()) if row is not None else None
        display = row is not None and row.verb == "DISPLAY"
        if display and kw is not None and kw.kind == FLAG and keyword.upper() != kw.name:
            kw = None  # DISPLAY names attributes by their positive keyword only
        text = _value(keyword, value, kw, display)
        if text is not None:
            parts.append(text)
    wanted = body.get("responseParameters")
    if wanted is not None:
        if not isinstance(wanted, list) or not all(isinstance(w, str) and _WORD.match(w) for w in wanted):
            raise TranslationError("'responseParameters' must be a list of MQSC attribute names")
        if verb != "DISPLAY":
            raise TranslationError("'responseParameters' applies to the display command only")
        parts.extend("ALL" if w.lower() == "all" else w.upper() for w in wanted)
    return " ".join(parts)


def _json_value(key: str, value: str, first: bool):
    if not first and key not in _TEXT_RESULTS and _INTEGER.match(value):
        return int(value)
    return value


def object_parameters(obj: dict[str, str]) -> dict[str, object]:
    """A DISPLAY object as IBM's ``parameters``: lower-case names; integers as numbers (the object's
    own name, its first attribute, and text attributes stay strings)."""
    out: dict[str, object] = {}
    for i, (key, value) in enumerate(obj.items()):
        low = key.lower()
        out[low] = _json_value(low, value, i == 0)
    return out


def json_responses(results) -> list[dict]:
    """runCommandJSON's commandResponse: an item per DISPLAYed object, else one per command."""
    items = []
    for res in results:
        if res.objects and res.completion_code != C.MQCC_FAILED:
            for obj in res.objects:
                items.append({"completionCode": res.completion_code, "reasonCode": res.reason_code,
                              "parameters": object_parameters(obj)})
        else:
            items.append({"completionCode": res.completion_code, "reasonCode": res.reason_code,
                          "message": list(res.text)})
    return items


def text_responses(results) -> list[dict]:
    """runCommand's commandResponse: the runmqsc text of each command."""
    return [{"completionCode": res.completion_code, "reasonCode": res.reason_code, "text": list(res.text)}
            for res in results]


def overall(results) -> dict[str, int]:
    codes = [res.completion_code for res in results]
    if any(cc == C.MQCC_FAILED for cc in codes) or not codes:
        return {"overallCompletionCode": C.MQCC_FAILED, "overallReasonCode": COMMAND_FAILED}
    if any(cc == C.MQCC_WARNING for cc in codes):
        return {"overallCompletionCode": C.MQCC_WARNING, "overallReasonCode": COMMAND_FAILED}
    return {"overallCompletionCode": C.MQCC_OK, "overallReasonCode": C.MQRC_NONE}
