"""Queue-manager commands and engine-level answers through real PCF bytes: Inquire Q Mgr (MQ Explorer's
first command), Ping Q Mgr, Change Q Mgr, unknown and unserved commands (docs/compat.md (part 2))."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.registry.objects.definitions import mq_date, mq_time
from tests.support.pcfkit import BE, Harness, LE, T0, command, failed, i, il, st

ENCODINGS = pytest.mark.parametrize("enc", [LE, BE], ids=["LE", "BE"])


@ENCODINGS
@pytest.mark.parametrize("cfh_type, version", [(C.MQCFT_COMMAND_XR, 3), (C.MQCFT_COMMAND, 1)])
def test_explorer_first_inquiry(h, enc, cfh_type, version):
    r = h.run(command(C.MQCMD_INQUIRE_Q_MGR, il(C.MQIACF_Q_MGR_ATTRS, C.MQIA_PLATFORM, C.MQCA_Q_MGR_NAME,
                                                 C.MQIA_COMMAND_LEVEL), cfh_type=cfh_type, version=version), enc)
    assert r.ok and len(r.messages) == 1
    assert r.messages[0].header.Type == C.MQCFT_RESPONSE and r.messages[0].header.Version == 3
    assert r.objects == [{C.MQCA_Q_MGR_NAME: "QM1", C.MQIA_PLATFORM: C.MQPL_UNIX, C.MQIA_COMMAND_LEVEL: 912}]
    name = r.messages[0].parameters[0]
    assert name.parameter == C.MQCA_Q_MGR_NAME and len(name.value) == 48


@ENCODINGS
def test_inquire_all(h, enc):
    everything = il(C.MQIACF_Q_MGR_ATTRS, C.MQIACF_ALL)
    for request in (command(C.MQCMD_INQUIRE_Q_MGR), command(C.MQCMD_INQUIRE_Q_MGR, everything)):
        r = h.run(request, enc)
        assert r.ok and len(r.messages) == 1
        obj = r.objects[0]
        assert obj[C.MQCA_Q_MGR_NAME] == "QM1"
        assert obj[C.MQIA_PLATFORM] == C.MQPL_UNIX
        assert obj[C.MQIA_COMMAND_LEVEL] == C.MQCMDL_LEVEL_912
        assert obj[C.MQIA_CODED_CHAR_SET_ID] == 819
        assert obj[C.MQCA_DEAD_LETTER_Q_NAME] == "DEV.DEAD.LETTER.QUEUE"
        assert obj[C.MQCA_COMMAND_INPUT_Q_NAME] == "SYSTEM.ADMIN.COMMAND.QUEUE"
        assert obj[C.MQCA_Q_MGR_IDENTIFIER] == h.registry.qmgr.identifier
        assert obj[C.MQCA_Q_MGR_IDENTIFIER].startswith("QM1_")
        assert obj[C.MQIA_MAX_HANDLES] == 256 and obj[C.MQIA_MAX_MSG_LENGTH] == 4_194_304
        assert obj[C.MQIA_MAX_PRIORITY] == 9 and obj[C.MQIA_SYNCPOINT] == 1
        assert obj[C.MQIA_PUBSUB_MODE] == C.MQPSM_ENABLED
        assert obj[C.MQCA_VERSION] == "09010200"
        assert obj[C.MQCA_Q_MGR_DESC] == ""
        assert obj[C.MQIA_DIST_LISTS] == C.MQDL_NOT_SUPPORTED  # no distribution lists (docs/decisions.md)
        assert obj[C.MQCA_CREATION_DATE] == mq_date(T0) and obj[C.MQCA_CREATION_TIME] == mq_time(T0)
        assert obj[C.MQCA_ALTERATION_DATE] == mq_date(T0) and obj[C.MQCA_ALTERATION_TIME] == mq_time(T0)
        raw = {p.parameter: p.value for p in r.messages[0].parameters}
        for pid, width in ((C.MQCA_DEAD_LETTER_Q_NAME, 48), (C.MQCA_COMMAND_INPUT_Q_NAME, 48),
                           (C.MQCA_Q_MGR_IDENTIFIER, 48), (C.MQCA_Q_MGR_DESC, 64), (C.MQCA_CREATION_DATE, 12)):
            assert len(raw[pid]) == width


def test_inquire_selection_refuses_a_selector_that_is_no_attribute(h):
    r = h.run(command(C.MQCMD_INQUIRE_Q_MGR, il(C.MQIACF_Q_MGR_ATTRS, C.MQIA_CODED_CHAR_SET_ID, 1999,
                                                 C.MQCA_DEAD_LETTER_Q_NAME)))
    assert failed(r, C.MQRC_SELECTOR_ERROR)
    assert {p.parameter: p.value for p in r.messages[0].parameters} == {C.MQIACF_SELECTOR: 1999}


def test_inquire_selection_skips_attributes_of_other_object_types(h):
    r = h.run(command(C.MQCMD_INQUIRE_Q_MGR, il(C.MQIACF_Q_MGR_ATTRS, C.MQIA_CODED_CHAR_SET_ID, C.MQCA_Q_DESC,
                                                 C.MQCA_DEAD_LETTER_Q_NAME)))
    assert r.objects == [{C.MQCA_Q_MGR_NAME: "QM1", C.MQIA_CODED_CHAR_SET_ID: 819,
                          C.MQCA_DEAD_LETTER_Q_NAME: "DEV.DEAD.LETTER.QUEUE"}]
    r = h.run(command(C.MQCMD_INQUIRE_Q_MGR, st(C.MQCA_Q_MGR_NAME, "QM1")))
    assert failed(r, C.MQRCCF_CFST_PARM_ID_ERROR, C.MQCA_Q_MGR_NAME)


def test_without_dev_objects_dead_letter_queue_is_system(tmp_path):
    h = Harness(tmp_path, dev_objects=False)
    r = h.run(command(C.MQCMD_INQUIRE_Q_MGR, il(C.MQIACF_Q_MGR_ATTRS, C.MQCA_DEAD_LETTER_Q_NAME)))
    assert r.objects[0][C.MQCA_DEAD_LETTER_Q_NAME] == "SYSTEM.DEAD.LETTER.QUEUE"
    h.close()


@ENCODINGS
def test_ping(h, enc):
    r = h.run(command(C.MQCMD_PING_Q_MGR), enc)
    assert r.ok and len(r.messages) == 1 and r.messages[0].parameters == []
    assert failed(h.run(command(C.MQCMD_PING_Q_MGR, i(C.MQIA_PLATFORM, 3)), enc), C.MQRCCF_CFIN_PARM_ID_ERROR,
                  C.MQIA_PLATFORM)


def test_change_q_mgr_persists(tmp_path, clock):
    h = Harness(tmp_path, clock=clock)
    clock.t = T0 + 3_600
    r = h.run(command(C.MQCMD_CHANGE_Q_MGR, st(C.MQCA_Q_MGR_DESC, "test qmgr"),
                      st(C.MQCA_DEAD_LETTER_Q_NAME, "SYSTEM.DEAD.LETTER.QUEUE"), i(C.MQIACF_FORCE, 1)))
    assert r.ok
    h.close()
    clock.t = T0 + 7_200
    h = Harness(tmp_path, clock=clock)
    obj = h.run(command(C.MQCMD_INQUIRE_Q_MGR)).objects[0]
    assert obj[C.MQCA_Q_MGR_DESC] == "test qmgr"
    assert obj[C.MQCA_DEAD_LETTER_Q_NAME] == "SYSTEM.DEAD.LETTER.QUEUE"
    assert obj[C.MQCA_CREATION_TIME] == mq_time(T0)
    assert obj[C.MQCA_ALTERATION_TIME] == mq_time(T0 + 3_600)
    assert h.run(command(C.MQCMD_CHANGE_Q_MGR, st(C.MQCA_DEAD_LETTER_Q_NAME, ""))).ok
    assert h.run(command(C.MQCMD_INQUIRE_Q_MGR)).objects[0][C.MQCA_DEAD_LETTER_Q_NAME] == ""
    h.close()


def test_change_q_mgr_errors(h):
    r = h.run(command(C.MQCMD_CHANGE_Q_MGR, st(C.MQCA_DEAD_LETTER_Q_NAME, "BAD NAME")))
    assert failed(r, C.MQRCCF_OBJECT_NAME_ERROR, C.MQCA_DEAD_LETTER_Q_NAME)
    r = h.run(command(C.MQCMD_CHANGE_Q_MGR, st(C.MQCA_Q_MGR_DESC, "d" * 65)))
    assert failed(r, C.MQRCCF_CFST_STRING_LENGTH_ERR, C.MQCA_Q_MGR_DESC)
    r = h.run(command(C.MQCMD_CHANGE_Q_MGR, i(C.MQIA_MAX_HANDLES, -1)))
    assert failed(r, C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_MAX_HANDLES)
    r = h.run(command(C.MQCMD_CHANGE_Q_MGR, i(C.MQIA_PLATFORM, C.MQPL_UNIX)))  # read-only: refused, never ignored
    assert failed(r, C.MQRCCF_CFIN_PARM_ID_ERROR, C.MQIA_PLATFORM)
    assert h.registry.qmgr.dead_letter_queue == "DEV.DEAD.LETTER.QUEUE"


# ---- engine-level answers ------------------------------------------------------------------------
@ENCODINGS
def test_unknown_command(h, enc):
    r = h.run(command(9999), enc)
    assert failed(r, C.MQRCCF_CFH_COMMAND_ERROR)
    assert all(m.header.Command == 9999 for m in r.messages)


@ENCODINGS
@pytest.mark.parametrize("cmd", [C.MQCMD_INQUIRE_APPL_STATUS, C.MQCMD_INQUIRE_AUTH_SERVICE])
def test_known_unserved_command(h, enc, cmd):
    assert failed(h.run(command(cmd), enc), C.MQRC_FUNCTION_NOT_SUPPORTED)


def test_served_commands_are_registered(h):
    served = {C.MQCMD_INQUIRE_Q_MGR, C.MQCMD_PING_Q_MGR, C.MQCMD_CHANGE_Q_MGR, C.MQCMD_CREATE_Q, C.MQCMD_COPY_Q,
              C.MQCMD_CHANGE_Q, C.MQCMD_DELETE_Q, C.MQCMD_CLEAR_Q, C.MQCMD_INQUIRE_Q, C.MQCMD_INQUIRE_Q_NAMES,
              C.MQCMD_CREATE_TOPIC, C.MQCMD_COPY_TOPIC, C.MQCMD_CHANGE_TOPIC, C.MQCMD_DELETE_TOPIC,
              C.MQCMD_INQUIRE_TOPIC, C.MQCMD_INQUIRE_TOPIC_NAMES, C.MQCMD_INQUIRE_TOPIC_STATUS, C.MQCMD_ESCAPE}
    assert served <= set(h.engine.handlers)
