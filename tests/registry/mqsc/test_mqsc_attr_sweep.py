"""The attribute sweep (tests/support/attrsweep.py) in MQSC: every attribute of every object type but
the queue manager is a keyword of the one keyword table (registry/mqsc/keywords.py), DEFINE takes it,
ALTER changes it to a non-default valid value and DISPLAY ... ALL shows it, as runmqsc writes it."""

from __future__ import annotations

import pytest

from qmlite.registry.mqsc import keywords as K
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.qmgr import QueueManager
from tests.support import attrsweep as W

_TYPE_WORDS = {"CHANNEL": ("CHLTYPE", K.CHL_TYPES), "AUTHINFO": ("AUTHTYPE", K.AUTHINFO.keyword("AUTHTYPE").words)}


@pytest.fixture(scope="module")
def qm(tmp_path_factory):
    qm = QueueManager.open(tmp_path_factory.mktemp("mqsc-sweep") / "qm", synchronous="NORMAL")
    ok(qm, "DEFINE QLOCAL(SWEEP.SUB.DEST) REPLACE\nDEFINE TOPIC(SWEEP.SUB.TOPIC) TOPICSTR('sweep') REPLACE")
    yield qm
    qm.shutdown()


def ok(qm, text: str) -> list:
    results = run_mqsc(qm, text)
    failed = [(r.command, r.reason_code, r.text) for r in results if r.completion_code or r.syntax_error]
    assert not failed, failed
    return results


def keyword(sweep: W.Sweep, pid: int) -> K.Keyword:
    kw = K.__dict__[sweep.keywords_type].for_id(pid)
    assert kw is not None, f"no MQSC keyword for parameter {pid} of {sweep.keywords_type}"
    return kw


def quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def written(kw: K.Keyword, value) -> str:
    """``value`` as an MQSC attribute, ``KEYWORD(value)``."""
    if kw.kind == K.FLAG:
        return kw.name if value == kw.on_value else kw.off
    if kw.kind in (K.ENUM, K.ENUMLIST):
        names = kw.names
        words = [names[v] for v in value] if isinstance(value, list) else [names[value]]
        return f"{kw.name}({','.join(words)})"
    if kw.kind == K.STRLIST:
        return f"{kw.name}({','.join(quoted(v) for v in value)})"
    if kw.kind == K.HEX:
        return f"{kw.name}({value.hex().upper()})"
    if kw.kind == K.INT:
        return f"{kw.name}({kw.names.get(value, value)})"
    return f"{kw.name}({quoted(value)})"


def shown(kw: K.Keyword, value) -> tuple[str, str]:
    """(the DISPLAY key, the text runmqsc shows) for ``value``."""
    if kw.kind == K.FLAG:
        word = kw.name if value == kw.on_value else kw.off
        return kw.name, word
    if kw.kind in (K.ENUM, K.ENUMLIST):
        names = kw.names
        return kw.name, ",".join(names[v] for v in value) if isinstance(value, list) else names[value]
    if kw.kind == K.STRLIST:
        return kw.name, ",".join(value)
    if kw.kind == K.HEX:
        return kw.name, value.hex().upper()
    if kw.kind == K.INT:
        return kw.name, str(kw.names.get(value, value))
    return kw.name, value


def head(sweep: W.Sweep, name: str, verb: str) -> str:
    target = f"{sweep.mqsc}({quoted(name)})"
    if sweep.keywords_type in _TYPE_WORDS:
        word, words = _TYPE_WORDS[sweep.keywords_type]
        subtype = next(v for v in sweep.fixed.values())
        target += f" {word}({next(w for w, v in words.items() if v == subtype)})"
    return f"{verb} {target}"


def display(sweep: W.Sweep, name: str) -> str:
    # a telemetry channel is shown only when CHLTYPE(MQTT) asks for it (decision TC2)
    chltype = " CHLTYPE(MQTT)" if sweep is W.MQTT_CHANNEL else ""
    return f"DISPLAY {sweep.mqsc}({quoted(name)}){chltype} ALL"


@pytest.mark.parametrize("sweep", W.ALL, ids=lambda s: s.id)
def test_define_alter_display_every_attribute(sweep, qm):
    name = W.object_name(sweep, "M")
    create = {**sweep.on_create, **W.per_object(sweep, name), **{r.pid: r.valid for r in sweep.rows if r.create_only}}
    ok(qm, " ".join([head(sweep, name, "DEFINE"), *(written(keyword(sweep, pid), v) for pid, v in create.items()),
                     "REPLACE"]))
    for row in sweep.rows:
        if row.create_only:
            continue
        ok(qm, f"{head(sweep, name, 'ALTER')} {written(keyword(sweep, row.pid), row.valid)}")
        if row.reset is not W._NO:  # shown now, then undone so that the attributes after it can be set
            [now] = ok(qm, display(sweep, name))
            key, text = shown(keyword(sweep, row.pid), row.expected)
            assert now.objects[0].get(key) == text
            ok(qm, f"{head(sweep, name, 'ALTER')} {written(keyword(sweep, row.pid), row.reset)}")
    [result] = ok(qm, display(sweep, name))
    [obj] = result.objects
    wrong = {}
    for row in sweep.rows:
        key, text = shown(keyword(sweep, row.pid), row.final)
        if obj.get(key) != text:
            wrong[key] = (obj.get(key), text)
    assert not wrong
