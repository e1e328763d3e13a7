"""IBM's leniency in the one PCF parser: one MQCFIN where an MQCFIL is documented, one MQCFST where an
MQCFSL is, is a list of one -- a rule for every command, not a per-command exception (docs/decisions.md N3).
Each case is sent here as the public client that works against IBM MQ sends it; the reverse stays the
documented wrong-structure reason."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.admin.params import INT_LIST, STR_LIST, CommandError, Param, parse, p_int, p_str
from qmlite.registry.objects import channels as M
from qmlite.registry.security import vocab as A
from tests.support.pcfkit import Harness, command, failed, i, il, st


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path)
    yield harness
    harness.close()


SPEC = (Param(1, INT_LIST), Param(2, STR_LIST, max_length=4), p_int(3, 7), p_str(4, 8))


@pytest.mark.parametrize("item, expected", [
    (P.CFIN(1, 5), (5,)), (P.CFIN64(1, 6), (6,)), (P.CFIL(1, (5, 6)), (5, 6)),
    (P.CFST(2, "ab  "), ("ab",)), (P.CFSL(2, ("ab", "cd")), ("ab", "cd"))])
def test_one_item_where_a_list_is_documented_is_a_list_of_one(item, expected):
    msg = command(C.MQCMD_INQUIRE_Q, item)
    assert parse(msg, SPEC).values == {item.parameter: expected}


@pytest.mark.parametrize("item, reason", [
    (P.CFIL(3, (7,)), C.MQRCCF_CFIL_PARM_ID_ERROR),       # a list of one is no MQCFIN
    (P.CFSL(4, ("x",)), C.MQRCCF_CFSL_PARM_ID_ERROR),     # nor an MQCFSL of one an MQCFST
    (P.CFST(1, "5"), C.MQRCCF_CFST_PARM_ID_ERROR),        # a string is no integer list
    (P.CFST(2, "toolong"), C.MQRCCF_CFSL_STRING_LENGTH_ERR)])  # the list's rules still apply
def test_what_stays_refused(item, reason):
    msg = command(C.MQCMD_INQUIRE_Q, item)
    with pytest.raises(CommandError) as info:
        parse(msg, SPEC)
    assert info.value.reason == reason and info.value.parameter == item.parameter


def test_a_single_selector_as_an_int_on_inquire_commands(h):
    """pymqi packs ``{MQIACF_Q_ATTRS: MQIA_MAX_Q_DEPTH}`` as an MQCFIN."""
    r = h.run(command(C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "DEV.QUEUE.1"), i(C.MQIACF_Q_ATTRS, C.MQIA_MAX_Q_DEPTH)))
    assert set(r.objects[0]) == {C.MQCA_Q_NAME, C.MQIA_Q_TYPE, C.MQIA_MAX_Q_DEPTH}
    channel = h.registry.objects(M.KIND)["DEV.APP.SVRCONN"]
    h.registry.running.start_instance(channel, "10.0.0.1", 0.0)
    r = h.run(command(C.MQCMD_INQUIRE_CHANNEL_STATUS, st(C.MQCACH_CHANNEL_NAME, "*"),
                      i(C.MQIACH_CHANNEL_INSTANCE_ATTRS, C.MQCACH_CHANNEL_NAME),
                      i(C.MQIACH_CHANNEL_INSTANCE_TYPE, C.MQOT_CURRENT_CHANNEL)))
    assert len(r.objects) == 1 and C.MQIACH_MSGS not in r.objects[0]


def test_blockuser_with_one_user_as_an_mqcfst(h):
    """pymqi's code/tests/test_tls.py: MQCACH_MCA_USER_ID_LIST as CFST(String=b'nobody')."""
    r = h.run(command(C.MQCMD_SET_CHLAUTH_REC, st(C.MQCACH_CHANNEL_NAME, "TLS.*"),
                      i(C.MQIACF_CHLAUTH_TYPE, A.MQCAUT_BLOCKUSER), st(C.MQCACH_MCA_USER_ID_LIST, "nobody"),
                      i(C.MQIACH_WARNING, A.MQWARN_NO), i(C.MQIACF_ACTION, C.MQACT_REPLACE)))
    assert r.ok
    found = h.run(command(C.MQCMD_INQUIRE_CHLAUTH_RECS, st(C.MQCACH_CHANNEL_NAME, "TLS.*"))).objects
    assert [tuple(v.strip() for v in o[C.MQCACH_MCA_USER_ID_LIST]) for o in found] == [("nobody",)]
    # the list form still works, and a duplicate (list then single) is still a duplicate
    assert failed(h.run(command(C.MQCMD_SET_CHLAUTH_REC, st(C.MQCACH_CHANNEL_NAME, "TLS.*"),
                                i(C.MQIACF_CHLAUTH_TYPE, A.MQCAUT_BLOCKUSER),
                                P.CFSL(C.MQCACH_MCA_USER_ID_LIST, ("a",)), st(C.MQCACH_MCA_USER_ID_LIST, "b"))),
                  C.MQRCCF_CFST_DUPLICATE_PARM, C.MQCACH_MCA_USER_ID_LIST)
