"""PCF Escape (MQCMD_ESCAPE, MQET_MQSC): MQSC text in a PCF command, runmqsc's text back.

IBM's Escape response: MQCFT_RESPONSE messages carrying MQIACF_ESCAPE_TYPE and MQCACF_ESCAPE_TEXT,
the header's Command being the MQCMD_* of the MQSC command the text held (ALTER QLOCAL answers
MQCMD_CHANGE_Q), more than one message when the command gives more than one message set: here one
per object a DISPLAY shows, one for any other outcome.  CompCode and Reason are the command's; a
syntax error is MQCC_FAILED with MQRCCF_PARM_SYNTAX_ERROR (no PCF ran).  IBM allows one command per
Escape; qmlite runs every command the text holds, in order (docs/decisions.md MS4).
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.admin import responses as R
from qmlite.registry.admin.deferred import Deferred
from qmlite.registry.admin.engine import Engine, Requester
from qmlite.registry.mqsc import run_with_engine
from qmlite.registry.mqsc.lexer import MqscSyntaxError
from qmlite.registry.mqsc.reader import split_commands
from qmlite.registry.mqsc.translate import translate


def escape_responses(engine: Engine, text: str, requester: Requester) -> list[P.PCFMessage]:
    """The Escape's responses; a Deferred (registry/admin/deferred.py) when a command it holds answers
    later (PING CHANNEL): the responses are made again once every such command has its answer."""
    pending: list = []
    results = run_with_engine(engine, text, requester, deferred=pending)
    now = _responses(text, results)
    if not pending:
        return now

    def begin(complete) -> None:
        waiting = [len(pending)]
        for index, outcome, deferred in pending:
            def done(late, index=index, outcome=outcome) -> None:
                results[index] = outcome(late)
                waiting[0] -= 1
                if not waiting[0]:
                    complete(_responses(text, results))

            deferred.begin(done)

    return Deferred(now, begin)


def _responses(text: str, results: list) -> list[P.PCFMessage]:
    codes = []
    for source in split_commands(text)[:len(results)]:
        try:
            tr = translate(source.text)
            codes.append(tr.message.header.Command if tr.message is not None else C.MQCMD_ESCAPE)
        except MqscSyntaxError:
            codes.append(C.MQCMD_ESCAPE)
    sets: list[tuple[int, int, int, str]] = []  # command, comp code, reason, text
    for result, command in zip(results, codes):
        if result.objects and not result.syntax_error:
            blocks: list[list[str]] = []
            for line in result.text:
                if not line.startswith("   ") or not blocks:
                    blocks.append([line])
                else:
                    blocks[-1].append(line)
            for block in blocks:
                sets.append((command, result.completion_code, result.reason_code, "\n".join(block)))
        else:
            sets.append((command, result.completion_code, result.reason_code,
                         "\n".join(line for line in result.text if line)))
    if not sets:  # no command at all (blank text): MQSC says none read
        sets.append((C.MQCMD_ESCAPE, C.MQCC_OK, 0, "No MQSC commands read."))
    out = []
    for n, (command, comp, reason, body) in enumerate(sets, 1):
        params = [P.CFIN(C.MQIACF_ESCAPE_TYPE, C.MQET_MQSC), P.CFST(C.MQCACF_ESCAPE_TEXT, body, R.QMGR_CCSID)]
        header = P.CFH(Type=C.MQCFT_RESPONSE, StrucLength=36, Version=3, Command=command, MsgSeqNumber=n,
                       Control=C.MQCFC_LAST if n == len(sets) else C.MQCFC_NOT_LAST, CompCode=comp,
                       Reason=reason, ParameterCount=len(params))
        out.append(P.PCFMessage(header, params))
    return out
