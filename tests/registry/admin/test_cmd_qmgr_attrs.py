"""Change Queue Manager with every parameter IBM documents for it on Multiplatforms (issue 21): each set to
a value a new queue manager does not have, read back by Inquire Queue Manager, kept over a restart, and
each integer outside IBM's values refused with IBM's reason.  The list is IBM's (tests/support/qmgrattrs.py),
not the implementation's, so an attribute the queue manager forgets fails here."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.admin.commands import qmgr as QM
from qmlite.registry.mqsc import keywords as K
from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.objects.definitions import mq_time
from qmlite.registry.qmgr import QueueManager
from tests.support.pcfkit import Harness, T0, command, failed, i, il, st
from tests.support.qmgrattrs import EVERY, REPOS_STEP, SWEEP, Swept

INTEGERS = [s for s in EVERY if isinstance(s.value, int)]
STRINGS = [s for s in EVERY if isinstance(s.value, str)]


def _param(s: Swept, value: object = None) -> object:
    value = s.value if value is None else value
    if isinstance(value, tuple):
        return il(s.pid, *value)
    if isinstance(value, str):
        return st(s.pid, value)
    return i(s.pid, value)


def _inquire(h) -> dict[int, object]:
    reply = h.run(command(C.MQCMD_INQUIRE_Q_MGR))
    assert reply.ok
    return {p.parameter: (p.values if isinstance(p, P.CFIL) else p.value.rstrip(" ") if isinstance(p.value, str)
                          else p.value) for p in reply.messages[0].parameters}


def _expected(s: Swept) -> object:
    return None if s.hidden else tuple(s.value) if isinstance(s.value, tuple) else s.value  # a secret: absent


FINAL = list({s.pid: s for s in SWEEP + REPOS_STEP}.values())  # what the queue manager has after both steps


def test_the_sweep_list_is_what_the_queue_manager_takes():
    # Every parameter IBM documents is accepted, and nothing else: the implementation's list is IBM's.
    assert {s.pid for s in EVERY} == {param.id for param, _ in QM.ATTRIBUTES}
    assert len(EVERY) == len({s.pid for s in EVERY}) == 79


def test_every_attribute_changes_reads_back_and_survives_a_restart(tmp_path, clock):
    h = Harness(tmp_path, clock=clock)
    before = _inquire(h)
    for s in EVERY:
        assert before.get(s.pid) != _expected(s) or s.hidden, s.keyword  # the sweep really changes each one
    clock.t = T0 + 60
    assert h.run(command(C.MQCMD_CHANGE_Q_MGR, *(_param(s) for s in SWEEP), i(C.MQIACF_FORCE, 1))).ok
    after = _inquire(h)
    for s in SWEEP:
        assert after.get(s.pid) == _expected(s), s.keyword
    assert after[C.MQCA_ALTERATION_TIME] == mq_time(T0 + 60)
    assert h.run(command(C.MQCMD_CHANGE_Q_MGR, *(_param(s) for s in REPOS_STEP))).ok
    assert h.registry.qmgr.ssl_key_repo_password == "a key repository passphrase"  # kept, never shown
    h.close()
    clock.t = T0 + 120
    h = Harness(tmp_path, clock=clock)
    again = _inquire(h)
    for s in FINAL:
        assert again.get(s.pid) == _expected(s), s.keyword
    assert h.registry.qmgr.initial_key == "an initial key"
    assert h.registry.qmgr.suite_b_strength == (C.MQ_SUITE_B_128_BIT, C.MQ_SUITE_B_192_BIT)
    h.close()


@pytest.mark.parametrize("s", INTEGERS, ids=[s.keyword for s in INTEGERS])
def test_an_integer_ibm_refuses_is_refused_and_changes_nothing(h, s):
    before = _inquire(h)
    reason = C.MQRCCF_Q_MGR_CCSID_ERROR if s.pid == C.MQIA_CODED_CHAR_SET_ID else C.MQRCCF_PARM_VALUE_ERROR
    r = h.run(command(C.MQCMD_CHANGE_Q_MGR, st(C.MQCA_Q_MGR_DESC, "not kept"), i(s.pid, s.bad)))
    assert failed(r, reason, s.pid)
    assert _inquire(h) == before  # all or nothing: the description did not change either


@pytest.mark.parametrize("s", STRINGS, ids=[s.keyword for s in STRINGS])
def test_a_string_too_long_is_refused(h, s):
    width = {param.id: param.max_length for param, _ in QM.ATTRIBUTES}[s.pid]
    assert width
    r = h.run(command(C.MQCMD_CHANGE_Q_MGR, st(s.pid, "x" * (width + 1))))
    assert failed(r, C.MQRCCF_CFST_STRING_LENGTH_ERR, s.pid)


@pytest.mark.parametrize("s", [s for s in EVERY if s.pid != C.MQIA_SUITE_B_STRENGTH], ids=lambda s: s.keyword)
def test_a_value_in_the_wrong_structure_is_refused(h, s):
    wrong = i(s.pid, 1) if isinstance(s.value, str) else st(s.pid, "1")
    reason = C.MQRCCF_CFIN_PARM_ID_ERROR if isinstance(s.value, str) else C.MQRCCF_CFST_PARM_ID_ERROR
    assert failed(h.run(command(C.MQCMD_CHANGE_Q_MGR, wrong)), reason, s.pid)


@pytest.mark.parametrize("pid", [C.MQIA_PLATFORM, C.MQIA_COMMAND_LEVEL, C.MQIA_MAX_PRIORITY, C.MQIA_SYNCPOINT,
                                 C.MQIA_DIST_LISTS, C.MQIA_CPI_LEVEL, C.MQIA_ADOPTNEWMCA_CHECK,
                                 C.MQIA_ADOPTNEWMCA_TYPE, C.MQIA_ADVANCED_CAPABILITY, C.MQIA_AMQP_CAPABILITY,
                                 C.MQIA_EXPIRY_INTERVAL, C.MQIA_MAX_CHANNELS])
def test_read_only_and_z_os_only_parameters_are_refused(h, pid):
    assert failed(h.run(command(C.MQCMD_CHANGE_Q_MGR, i(pid, 1))), C.MQRCCF_CFIN_PARM_ID_ERROR, pid)


def test_repository_name_and_namelist_exclude_each_other(h):
    assert h.run(command(C.MQCMD_CHANGE_Q_MGR, st(C.MQCA_REPOSITORY_NAME, "CLUSTER1"))).ok
    r = h.run(command(C.MQCMD_CHANGE_Q_MGR, st(C.MQCA_REPOSITORY_NAMELIST, "CLUSTERS.NL")))
    assert failed(r, C.MQRCCF_REPOS_NAME_CONFLICT, C.MQCA_REPOSITORY_NAMELIST)
    r = h.run(command(C.MQCMD_CHANGE_Q_MGR, st(C.MQCA_REPOSITORY_NAME, ""),
                      st(C.MQCA_REPOSITORY_NAMELIST, "CLUSTERS.NL")))
    assert r.ok
    assert (h.registry.qmgr.repository_name, h.registry.qmgr.repository_namelist) == ("", "CLUSTERS.NL")


@pytest.mark.parametrize("values", [(), (3,), (C.MQ_SUITE_B_NONE, C.MQ_SUITE_B_128_BIT)],
                         ids=["empty", "3", "none+128"])
def test_suite_b_takes_none_alone_or_strengths(h, values):
    r = h.run(command(C.MQCMD_CHANGE_Q_MGR, il(C.MQIA_SUITE_B_STRENGTH, *values)))
    assert failed(r, C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_SUITE_B_STRENGTH)
    assert h.registry.qmgr.suite_b_strength == (C.MQ_SUITE_B_NONE,)


@pytest.mark.parametrize("value, ok", [(0, True), (1, False), (59, False), (60, True), (604_000, True),
                                       (604_001, False)])
def test_tree_life_is_zero_or_60_to_604000(h, value, ok):
    r = h.run(command(C.MQCMD_CHANGE_Q_MGR, i(C.MQIA_TREE_LIFE_TIME, value)))
    assert r.ok if ok else failed(r, C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_TREE_LIFE_TIME)


@pytest.mark.parametrize("pid", [C.MQCA_DEAD_LETTER_Q_NAME, C.MQCA_DEF_XMIT_Q_NAME])
def test_queue_names_are_checked_but_need_not_exist(h, pid):
    assert failed(h.run(command(C.MQCMD_CHANGE_Q_MGR, st(pid, "BAD NAME"))), C.MQRCCF_OBJECT_NAME_ERROR, pid)
    assert h.run(command(C.MQCMD_CHANGE_Q_MGR, st(pid, "NO.SUCH.QUEUE"))).ok
    assert h.run(command(C.MQCMD_CHANGE_Q_MGR, st(pid, ""))).ok


def test_new_queue_manager_keeps_ibm_initial_values_for_ssl(h):
    obj = _inquire(h)
    assert obj[C.MQCA_SSL_KEY_REPOSITORY] == "/var/mqm/qmgrs/QM1/ssl/key"
    assert obj[C.MQCA_CERT_LABEL] == "ibmwebspheremqqm1"
    assert C.MQCA_SSL_KEY_REPO_PASSWORD not in obj and C.MQCA_INITIAL_KEY not in obj  # write-only
    asked = h.run(command(C.MQCMD_INQUIRE_Q_MGR, il(C.MQIACF_Q_MGR_ATTRS, C.MQCA_SSL_KEY_REPO_PASSWORD)))
    assert asked.objects == [{C.MQCA_Q_MGR_NAME: "QM1"}]  # asked for by name: still not given
    assert obj[C.MQIA_SUITE_B_STRENGTH] == (C.MQ_SUITE_B_NONE,)
    assert obj[C.MQIA_REVERSE_DNS_LOOKUP] == 0 and obj[C.MQIA_PUBSUB_CLUSTER] == C.MQPSCLUS_ENABLED


# ---- MQSC: ALTER QMGR and DISPLAY QMGR over the same list -----------------------------------------
def _alter_script(items) -> str:
    """ALTER QMGR commands of ten keywords each, continued with "+" over lines as a script would be."""
    lines = []
    items = list(items)
    for n in range(0, len(items), 10):
        chunk = [s.mqsc for s in items[n:n + 10]]
        lines.append("ALTER QMGR " + " +\n   ".join(chunk))
    return "\n".join(lines) + "\n"


def test_alter_qmgr_takes_every_keyword_and_display_qmgr_shows_it(tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock)
    try:
        for s in EVERY:
            assert K.QMGR.keyword(s.keyword) is not None and K.QMGR.keyword(s.keyword).pid == s.pid, s.keyword
        results = run_mqsc(qm, _alter_script(SWEEP) + _alter_script(REPOS_STEP))
        assert [(r.completion_code, r.text) for r in results] == [
            (C.MQCC_OK, ["AMQ8005I: IBM MQ queue manager changed."])] * len(results)
        shown = run_mqsc(qm, "DISPLAY QMGR ALL")[0].objects[0]
        for s in FINAL:
            assert shown.get(s.keyword) == (None if s.hidden else s.shown.strip()), s.keyword
        # one keyword at a time, as DISPLAY QMGR names them
        assert run_mqsc(qm, "DISPLAY QMGR MONQ STATINT")[0].objects == [
            {"QMNAME": "QM1", "MONQ": "MEDIUM", "STATINT": "60"}]
    finally:
        qm.shutdown()


def test_alter_qmgr_refuses_what_pcf_refuses(tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock)
    try:
        r = run_mqsc(qm, "ALTER QMGR TREELIFE(30)")[0]
        assert (r.completion_code, r.reason_code) == (C.MQCC_FAILED, C.MQRCCF_PARM_VALUE_ERROR)
        r = run_mqsc(qm, "ALTER QMGR PLATFORM(UNIX)")[0]  # read-only
        assert r.completion_code == C.MQCC_FAILED
        r = run_mqsc(qm, "ALTER QMGR REVDNS(SOMETIMES)")[0]
        assert r.syntax_error
        assert qm.registry.qmgr.tree_life_time == 1800
    finally:
        qm.shutdown()


def test_psmode_disabled_stops_the_queue_managers_own_publications(tmp_path, clock):
    from qmlite.pcf import mqi as S

    qm = QueueManager.open(tmp_path / "qm", synchronous="NORMAL", clock=clock)
    try:
        run_mqsc(qm, "DEFINE QLOCAL(PSMODE.SUB.Q)\nDEFINE SUB(PSMODE.SUB) TOPICSTR('psmode/x') DEST(PSMODE.SUB.Q)")
        assert qm.publish("psmode/x", S.MQMD(), b"one") == 1
        assert run_mqsc(qm, "ALTER QMGR PSMODE(DISABLED)")[0].completion_code == C.MQCC_OK
        assert qm.publish("psmode/x", S.MQMD(), b"two") == 0  # the engine is not running
        assert qm.registry.messages.depth("PSMODE.SUB.Q") == 1
    finally:
        qm.shutdown()
