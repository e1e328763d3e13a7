"""Building command-server responses the way a queue manager does (docs/reference/pcf.md section 5).

OK: one MQCFT_RESPONSE, Control LAST, no parameters.  Failure: the specific reason (NOT_LAST, with
MQIACF_PARAMETER_ID when known) then MQRCCF_COMMAND_FAILED (LAST).  Inquire: one message per object,
the last one LAST.  Responses are always MQCFH version 3 (decision 7 in docs/compat.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.admin.params import CommandError

QMGR_CCSID = 819


def _header(command: int, seq: int, last: bool, comp: int = C.MQCC_OK, reason: int = 0,
            count: int = 0) -> P.CFH:
    return P.CFH(Type=C.MQCFT_RESPONSE, StrucLength=36, Version=3, Command=command, MsgSeqNumber=seq,
                 Control=C.MQCFC_LAST if last else C.MQCFC_NOT_LAST, CompCode=comp, Reason=reason,
                 ParameterCount=count)


def ok(command: int) -> list[P.PCFMessage]:
    return [P.PCFMessage(_header(command, 1, True), [])]


def failure(command: int, err: CommandError) -> list[P.PCFMessage]:
    params: list = []
    if err.parameter is not None:
        params.append(P.CFIN(C.MQIACF_PARAMETER_ID, err.parameter))
    if err.selector is not None:
        params.append(P.CFIN(C.MQIACF_SELECTOR, err.selector))
    if err.error_id is not None:
        params.append(P.CFIN(C.MQIACF_ERROR_ID, err.error_id))
    first = P.PCFMessage(_header(command, 1, False, err.comp_code, err.reason, len(params)), params)
    if err.reason == C.MQRCCF_COMMAND_FAILED:
        first.header.Control = C.MQCFC_LAST
        return [first]
    last = P.PCFMessage(_header(command, 2, True, C.MQCC_FAILED, C.MQRCCF_COMMAND_FAILED), [])
    return [first, last]


def data(command: int, objects: Sequence[list], *, none_found: int) -> list[P.PCFMessage]:
    """One data response per object; no objects at all is the ``none_found`` failure."""
    if not objects:
        return failure(command, CommandError(none_found))
    n = len(objects)
    return [P.PCFMessage(_header(command, i + 1, i + 1 == n, count=len(params)), params)
            for i, params in enumerate(objects)]


def text(pid: int, value: str, pad_to: int | None = None) -> P.CFST:
    if pad_to is not None and len(value) < pad_to:
        value = value + " " * (pad_to - len(value))
    return P.CFST(pid, value, QMGR_CCSID)
