"""qmlite's ``runCommandPCF`` extension, with no HTTP in it: a PCF command written as JSON, run by the
queue manager's own PCF command engine (``registry/admin/engine.py``), its response messages as JSON.

Request: ``{"type": "runCommandPCF", "command": "MQCMD_CREATE_SUBSCRIPTION", "parameters": {
"MQCACF_SUB_NAME": "SUB.A", "MQCA_TOPIC_STRING": "price/fruit", "MQIACF_DESTINATION_CLASS":
"MQDC_MANAGED"}}``.  Parameter names are the PCF constants' names; the family says the structure
(``MQIA*`` integer or integer list, ``MQCA*`` string or string list, ``MQBA*`` hex bytes).  An integer
may be written as a constant's name (``"MQDC_MANAGED"``).

Answer: one item per response message, ``{"completionCode", "reasonCode", "reasonName", "parameters":
{name: value}}`` (strings without their blank padding, bytes as hex, a group as a list of such objects),
then ``overallCompletionCode`` and ``overallReasonCode`` as the mqsc endpoint gives them.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.pcf.decode import parameter_name

from .mqscjson import COMMAND_FAILED, TranslationError

_INTEGER = ("MQIA_", "MQIACF_", "MQIACH_", "MQIAMO_", "MQIAMO64_")
_STRING = ("MQCA_", "MQCACF_", "MQCACH_", "MQCAMO_")
_BYTES = ("MQBA_", "MQBACF_")


def _constant(name: str) -> int:
    try:
        value = C.value_of(name)
    except KeyError:
        raise TranslationError(f"{name!r} is not an MQ constant") from None
    if not isinstance(value, int):
        raise TranslationError(f"{name!r} is not an integer constant")
    return value


def _integer(name: str, value) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _constant(value)
    raise TranslationError(f"parameter {name!r}: expected an integer or a constant's name")


def parameter(name: str, value) -> object:
    """One PCF parameter structure from its constant's name and a JSON value."""
    if not isinstance(name, str) or not name.startswith(_INTEGER + _STRING + _BYTES):
        raise TranslationError(f"parameter {name!r}: expected an MQIA*, MQCA* or MQBA* constant's name")
    pid = _constant(name)
    if name.startswith(_INTEGER):
        if isinstance(value, list):
            return P.CFIL(pid, tuple(_integer(name, v) for v in value))
        return P.CFIN(pid, _integer(name, value))
    if name.startswith(_STRING):
        if isinstance(value, list):
            if not all(isinstance(v, str) for v in value):
                raise TranslationError(f"parameter {name!r}: a string list holds strings only")
            return P.CFSL(pid, tuple(value))
        if not isinstance(value, str):
            raise TranslationError(f"parameter {name!r}: expected a string")
        return P.CFST(pid, value)
    try:
        return P.CFBS(pid, bytes.fromhex(value))
    except (TypeError, ValueError):
        raise TranslationError(f"parameter {name!r}: expected hexadecimal bytes") from None


def command(body: dict) -> P.PCFMessage:
    """The PCF command a runCommandPCF body asks for (TranslationError when it asks for none)."""
    name = body.get("command")
    if not isinstance(name, str) or not name:
        raise TranslationError("runCommandPCF needs 'command', an MQCMD_* name such as 'MQCMD_INQUIRE_Q'")
    full = name if name.startswith("MQCMD_") else "MQCMD_" + name
    try:
        code = C.value_of(full)
    except KeyError:
        raise TranslationError(f"{name!r} is not a PCF command") from None
    params = body.get("parameters") or {}
    if not isinstance(params, dict):
        raise TranslationError("'parameters' must be a JSON object of PCF parameter name to value")
    structures = [parameter(key, value) for key, value in params.items()]
    return P.PCFMessage(P.CFH(Type=C.MQCFT_COMMAND, Command=code), structures)


def _value(param) -> object:
    if isinstance(param, P.CFGR):
        return _parameters(param.parameters)
    if isinstance(param, (P.CFST, P.CFSF)):
        return param.value.rstrip(" \0")
    if isinstance(param, P.CFSL):
        return [v.rstrip(" \0") for v in param.values]
    if isinstance(param, (P.CFBS, P.CFBF)):
        return param.value.hex()
    if isinstance(param, (P.CFIL, P.CFIL64)):
        return list(param.values)
    return param.value


def _parameters(params) -> dict[str, object]:
    out: dict[str, object] = {}
    for param in params:
        name = parameter_name(param.parameter) or str(param.parameter)
        value = _value(param)
        if isinstance(param, P.CFGR):
            out.setdefault(name, []).append(value)  # type: ignore[union-attr]
        else:
            out[name] = value
    return out


def reason_name(reason: int) -> str:
    if reason == 0:
        return "MQRC_NONE"
    return C.name_of("MQRCCF", reason) or C.name_of("MQRC", reason) or str(reason)


def responses(messages: list[P.PCFMessage]) -> dict:
    items = [{"completionCode": m.header.CompCode, "reasonCode": m.header.Reason,
              "reasonName": reason_name(m.header.Reason), "parameters": _parameters(m.parameters)}
             for m in messages]
    worst = max((m.header.CompCode for m in messages), default=C.MQCC_FAILED)
    overall = {"overallCompletionCode": worst, "overallReasonCode": COMMAND_FAILED if worst else C.MQRC_NONE}
    return {"commandResponse": items, **overall}
