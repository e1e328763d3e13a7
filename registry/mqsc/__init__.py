"""MQSC over the PCF command engine: what runmqsc, PCF Escape and the REST ``mqsc`` action run.

Each MQSC command is translated into the PCF command that does it (translate.py, driven by one
keyword table), run by the same engine a PCF client reaches (registry/admin/engine.py, with the same
authority checks for the same user), and its responses are printed back the way runmqsc prints
them.  MQSC, PCF and REST therefore cannot disagree: there is one implementation of each command.

    results = run_mqsc(qm, "DEFINE QLOCAL(Q1)\\nDISPLAY QLOCAL(Q1) MAXDEPTH", user="mqm")
    print(format_report(results))
"""

from __future__ import annotations

import dataclasses
import functools

import structlog

from qmlite.pcf import constants as C

from qmlite.registry.security import authrecs
from qmlite.registry.admin.deferred import Deferred
from qmlite.registry.admin.engine import Engine, Requester
from qmlite.registry.mqsc import display, extensions
from qmlite.registry.mqsc import messages
from qmlite.registry.mqsc.lexer import MqscSyntaxError
from qmlite.registry.mqsc.reader import Source, split_commands
from qmlite.registry.mqsc.translate import Translated, translate

log = structlog.get_logger("qmlite.mqsc")

SYNTAX_REASON = C.MQRCCF_PARM_SYNTAX_ERROR  # the reason a syntax error is reported with (no PCF ran)

__all__ = ["MqscResult", "run_mqsc", "format_report", "check_mqsc", "run_with_engine", "SYNTAX_REASON"]


@dataclasses.dataclass
class MqscResult:
    command: str  # the command text as run (continuations joined)
    completion_code: int  # MQCC_* of this command
    reason_code: int  # MQRC/MQRCCF of this command (0 when OK)
    text: list[str]  # the runmqsc lines for this command (messages and DISPLAY blocks, without the echo line)
    objects: list[dict[str, str]]  # DISPLAY: one dict per object, MQSC keyword -> value as runmqsc prints it
    echo: list[str] = dataclasses.field(default_factory=list)  # the script lines runmqsc echoes for it

    @property
    def syntax_error(self) -> bool:
        return bool(self.text) and self.text[0] == messages.SYNTAX_ERROR


def run_mqsc(qmgr, text: str, *, user: str = "mqm") -> list[MqscResult]:
    """Run MQSC ``text`` on ``qmgr`` (a registry.qmgr.QueueManager) as ``user``: mqm members run
    anything, other users what their authority records allow (as for PCF).  Every effect is on disk
    when this returns (one commit for the whole text, made on the calling thread: call it where the
    queue manager's other calls are made, as the command server does)."""
    requester = Requester(user=user, admin=authrecs.privileged(user))
    try:
        return run_with_engine(qmgr.engine, text, requester)
    finally:
        qmgr.registry.commit()


def _translated(text: str):
    """Each command of ``text`` as (source, translation), or (source, the syntax error's result); up to END."""
    for source in split_commands(text):
        try:
            tr = translate(source.text)
        except MqscSyntaxError as err:
            yield source, None, _syntax_error(source, err)
            continue
        if tr.verb == "END":
            return
        yield source, tr, None


def run_with_engine(engine: Engine, text: str, requester: Requester, *,
                    deferred: list | None = None) -> list[MqscResult]:
    """Run without committing (the caller commits: run_mqsc, or the command server for Escape).
    ``deferred``: where a command answered later (PING CHANNEL, registry/admin/deferred.py) is noted as
    (its index, a function making its result from the late responses, the Deferred); without it the
    command's result is what it answers at once."""
    results: list[MqscResult] = []
    requester = dataclasses.replace(requester, mqsc=True)  # command events say MQRC_COMMAND_MQSC
    for source, tr, failed in _translated(text):
        if failed is not None:
            results.append(failed)
        elif tr.extension is not None:  # qmlite's own commands: registry/mqsc/extensions/'s table runs them
            cc, reason, text, objects = extensions.run(engine.qm, tr.extension, requester)
            results.append(MqscResult(source.text, cc, reason, text, objects, _echo(source)))
        else:
            responses = engine.run_batch([(tr.message, requester)])[0]
            if deferred is not None and isinstance(responses, Deferred):
                deferred.append((len(results), functools.partial(_outcome, source, tr), responses))
            results.append(_outcome(source, tr, responses))
    return results


def check_mqsc(text: str) -> list[MqscResult]:
    """runmqsc -v: syntax only, nothing runs.  A valid command has no text."""
    return [failed if failed is not None else MqscResult(source.text, C.MQCC_OK, 0, [], [], _echo(source))
            for source, tr, failed in _translated(text)]


def format_report(results: list[MqscResult], *, echo: bool = True, qmgr_name: str | None = None,
                  counts: bool = True) -> str:
    """The full runmqsc standard output: the ``Starting MQSC`` line when ``qmgr_name`` is given, each
    command's echo (``     1 : DEFINE ...``) and lines, and the three count lines."""
    out: list[str] = []
    if qmgr_name is not None:
        out += [f"Starting MQSC for queue manager {qmgr_name}.", "", ""]
    for number, result in enumerate(results, 1):
        if echo:
            out += echo_lines(number, result)
        out += result.text
    if counts:
        syntax = sum(1 for r in results if r.syntax_error)
        failed = sum(1 for r in results if not r.syntax_error and r.completion_code == C.MQCC_FAILED)
        out += messages.count_lines(len(results), syntax, failed)
    return "\n".join(out) + "\n"


def echo_lines(number: int, result: MqscResult) -> list[str]:
    lines = result.echo or [result.command]
    out = []
    numbered = False  # the command's first line carries its number; comments before and inside it do not
    for line in lines:
        if not numbered and not line.startswith("*"):
            out.append(f"{number:6d} : {line}")
            numbered = True
        else:
            out.append(f"       : {line}")
    return out


def exit_code(results: list[MqscResult]) -> int:
    """runmqsc's return code: 0 all processed, 10 some commands failed or had a syntax error."""
    return 10 if any(r.completion_code != C.MQCC_OK for r in results) else 0


# ---- one command -------------------------------------------------------------------------------
def _echo(source: Source) -> list[str]:
    return [*source.comments, *(source.lines or (source.text,))]


def _syntax_error(source: Source, err: MqscSyntaxError) -> MqscResult:
    log.info("mqsc_syntax_error", line=source.line, segment=err.segment, why=err.why)
    return MqscResult(source.text, C.MQCC_FAILED, SYNTAX_REASON, [messages.SYNTAX_ERROR, err.segment, ""], [],
                      _echo(source))


def _outcome(source: Source, tr: Translated, responses: list) -> MqscResult:
    row = tr.row
    assert row is not None
    first = responses[0].header if responses else None
    if first is None or first.CompCode == C.MQCC_FAILED:
        reason = first.Reason if first is not None else C.MQRC_UNEXPECTED_ERROR
        text = messages.failure(reason, tr.name, noun=tr.noun, not_found=row.not_found)
        return MqscResult(source.text, C.MQCC_FAILED, reason, [text], [], _echo(source))
    if not row.display:  # not a DISPLAY (nor RESET QSTATS, which shows what it reset)
        return MqscResult(source.text, first.CompCode, first.Reason, [row.message], [], _echo(source))
    text: list[str] = []
    objects: list[dict[str, str]] = []
    for response in responses:
        if response.header.CompCode == C.MQCC_FAILED:
            continue
        pairs = display.to_object(row.otype, response.parameters)
        if not pairs:
            continue
        if row.noun == "QSTATUS" and len(pairs) > 0 and all(kw.name != "TYPE" for kw, _ in pairs):
            # runmqsc shows the status type asked for after the queue name
            type_kw = row.otype.keyword("TYPE")
            pairs.insert(1, (type_kw, display.value_text(type_kw, tr.qstatus_type)))
        objects.append({kw.name: value for kw, value in pairs})
        text.append(row.display)
        text += display.lines([display.item(kw, value) for kw, value in pairs])
    return MqscResult(source.text, C.MQCC_OK, 0, text, objects, _echo(source))

