"""PCF commands from a user outside mqm (registry/security/commandauthority.py): dsp on the queue manager to run any,
Inquire shows only what the user may display, and each action needs its authority."""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.registry.security import vocab as A
from tests.registry.security.test_authority import set_rec
from tests.support.pcfkit import command, failed, i, st


def _as(h, user):
    from qmlite.registry.security import authrecs

    h.requester = dataclasses.replace(h.requester, user=user, admin=authrecs.privileged(user))


def test_a_user_outside_mqm_needs_dsp_on_the_queue_manager_for_any_command(h):
    _as(h, "app")
    assert failed(h.run(command(C.MQCMD_INQUIRE_Q_MGR)), C.MQRC_NOT_AUTHORIZED)
    _as(h, "mqm")
    assert h.run(set_rec("self", C.MQOT_Q_MGR, add=(A.MQAUTH_DISPLAY,))).ok
    _as(h, "app")
    assert h.run(command(C.MQCMD_INQUIRE_Q_MGR)).ok


def test_inquire_shows_only_what_the_user_may_display(h):
    assert h.run(set_rec("self", C.MQOT_Q_MGR, add=(A.MQAUTH_DISPLAY,))).ok
    assert h.run(set_rec("DEV.**", C.MQOT_Q, add=(A.MQAUTH_DISPLAY,))).ok
    _as(h, "app")
    r = h.run(command(C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "*")))
    assert r.ok and {o[C.MQCA_Q_NAME].strip() for o in r.objects} == {
        "DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3", "DEV.DEAD.LETTER.QUEUE", "DEV.APP.MODEL.QUEUE"}
    names = h.run(command(C.MQCMD_INQUIRE_Q_NAMES, st(C.MQCA_Q_NAME, "*"))).objects[0]
    assert {n.strip() for n in names[C.MQCACF_Q_NAMES]} == {o[C.MQCA_Q_NAME].strip() for o in r.objects}
    assert len(names[C.MQIACF_Q_TYPES]) == len(names[C.MQCACF_Q_NAMES])  # the pairs stay paired
    assert failed(h.run(command(C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "SYSTEM.ADMIN.COMMAND.QUEUE"))),
                  C.MQRC_NOT_AUTHORIZED)
    assert failed(h.run(command(C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "SYSTEM.*"))), C.MQRC_UNKNOWN_OBJECT_NAME)


def test_change_delete_and_create_need_their_authorities(h):
    assert h.run(set_rec("self", C.MQOT_Q_MGR, add=(A.MQAUTH_DISPLAY,))).ok
    _as(h, "app")
    change = command(C.MQCMD_CHANGE_Q, st(C.MQCA_Q_NAME, "DEV.QUEUE.1"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
                     st(C.MQCA_Q_DESC, "mine"))
    assert failed(h.run(change), C.MQRC_NOT_AUTHORIZED)
    create = command(C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, "APP.NEW"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL))
    assert failed(h.run(create), C.MQRC_NOT_AUTHORIZED)
    _as(h, "mqm")
    assert h.run(set_rec("DEV.QUEUE.1", C.MQOT_Q, add=(A.MQAUTH_CHANGE,))).ok
    assert h.run(set_rec("@class", C.MQOT_Q, add=(A.MQAUTH_CREATE,))).ok
    _as(h, "app")
    assert h.run(change).ok
    assert failed(h.run(create), C.MQRC_NOT_AUTHORIZED)  # crt, but not dsp on SYSTEM.DEFAULT.LOCAL.QUEUE
    _as(h, "mqm")
    assert h.run(set_rec("SYSTEM.DEFAULT.LOCAL.QUEUE", C.MQOT_Q, add=(A.MQAUTH_DISPLAY,))).ok
    _as(h, "app")
    assert h.run(create).ok
    assert failed(h.run(command(C.MQCMD_DELETE_Q, st(C.MQCA_Q_NAME, "APP.NEW"))), C.MQRC_NOT_AUTHORIZED)
    assert failed(h.run(command(C.MQCMD_CHANGE_Q_MGR, st(C.MQCA_Q_MGR_DESC, "x"))), C.MQRC_NOT_AUTHORIZED)


def test_delete_removes_the_objects_own_records_unless_told_not_to(h):
    from qmlite.registry.security import authrecs

    def records(object_type, profile):
        return [r for r in h.registry.objects(authrecs.KIND).values()
                if r.object_type == object_type and r.profile == profile]

    for name in ("APP.GONE", "APP.KEPT"):
        assert h.run(command(C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, name), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL))).ok
        assert h.run(set_rec(name, C.MQOT_Q, add=(A.MQAUTH_OUTPUT,))).ok
    assert h.run(command(C.MQCMD_DELETE_Q, st(C.MQCA_Q_NAME, "APP.GONE"))).ok  # RemoveAuthRecs YES by default
    assert records(C.MQOT_Q, "APP.GONE") == []
    assert h.run(command(C.MQCMD_DELETE_Q, st(C.MQCA_Q_NAME, "APP.KEPT"),
                         i(C.MQIACF_REMOVE_AUTHREC, C.MQRAR_NO))).ok
    assert len(records(C.MQOT_Q, "APP.KEPT")) == 1
    assert records(C.MQOT_Q, "DEV.**")  # a generic profile names no one object: it stays
    assert h.run(command(C.MQCMD_CREATE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "APP.NL"))).ok
    assert h.run(set_rec("APP.NL", C.MQOT_NAMELIST, add=(A.MQAUTH_INQUIRE,))).ok
    assert h.run(command(C.MQCMD_DELETE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "APP.NL"))).ok
    assert records(C.MQOT_NAMELIST, "APP.NL") == []
