"""The attributes the sweep made act, seen through IBM's ``ibmmq``: a queue's and a topic's CAPEXPRY
cap a message's expiry; an alias queue's PUT, DEFPRTY, DEFPSIST and CAPEXPRY apply to what is put
through it; a remote queue definition naming this queue manager delivers to its local queue, one
naming another queue manager is refused, and a remote queue never opens for input."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.ibmmqkit import raises  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-attr-effects")) as srv:
        yield srv


def _local(pcf, name: bytes, attrs: dict | None = None) -> None:
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES,
                        **(attrs or {})})


def _get(qm, name: str) -> tuple[bytes, object]:
    q = ibmmq.Queue(qm, name, CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        md = ibmmq.MD()
        return q.get(None, md), md
    finally:
        q.close()


def _put(qm, name: str, body: bytes, md=None) -> None:
    q = ibmmq.Queue(qm, name, CMQC.MQOO_OUTPUT)
    try:
        q.put(body, md or ibmmq.MD())
    finally:
        q.close()


def test_a_queues_capexpry_caps_the_expiry_of_what_is_put(pcf, qmgr):
    _local(pcf, b"EFFECT.CAP.Q", {CMQC.MQIA_CAP_EXPIRY: 50})
    _put(qmgr, "EFFECT.CAP.Q", b"unlimited")  # MQEI_UNLIMITED
    _put(qmgr, "EFFECT.CAP.Q", b"shorter", ibmmq.MD(Expiry=20))
    _put(qmgr, "EFFECT.CAP.Q", b"longer", ibmmq.MD(Expiry=5000))
    got = dict(_get(qmgr, "EFFECT.CAP.Q") for _ in range(3))
    assert 0 < got[b"unlimited"].Expiry <= 50
    assert 0 < got[b"shorter"].Expiry <= 20  # a shorter expiry is kept
    assert 0 < got[b"longer"].Expiry <= 50


def test_an_alias_queues_put_defprty_defpsist_and_capexpry_apply_through_it(pcf, qmgr):
    _local(pcf, b"EFFECT.BASE.Q", {CMQC.MQIA_DEF_PRIORITY: 0, CMQC.MQIA_DEF_PERSISTENCE: CMQC.MQPER_NOT_PERSISTENT})
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"EFFECT.ALIAS.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALIAS,
                        CMQC.MQCA_BASE_Q_NAME: b"EFFECT.BASE.Q", CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED})
    err = raises(CMQC.MQRC_PUT_INHIBITED, _put, qmgr, "EFFECT.ALIAS.Q", b"refused")
    assert err.comp == CMQC.MQCC_FAILED
    pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: b"EFFECT.ALIAS.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALIAS,
                        CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_ALLOWED, CMQC.MQIA_DEF_PRIORITY: 8,
                        CMQC.MQIA_DEF_PERSISTENCE: CMQC.MQPER_PERSISTENT, CMQC.MQIA_CAP_EXPIRY: 30})
    _put(qmgr, "EFFECT.ALIAS.Q", b"through the alias")  # priority and persistence AS_Q_DEF
    _put(qmgr, "EFFECT.BASE.Q", b"direct")
    got = dict(_get(qmgr, "EFFECT.BASE.Q") for _ in range(2))
    alias, direct = got[b"through the alias"], got[b"direct"]
    assert (alias.Priority, alias.Persistence) == (8, CMQC.MQPER_PERSISTENT)
    assert 0 < alias.Expiry <= 30
    assert (direct.Priority, direct.Persistence, direct.Expiry) == (0, CMQC.MQPER_NOT_PERSISTENT, CMQC.MQEI_UNLIMITED)


def test_a_remote_queue_definition_for_this_queue_manager_delivers_to_its_local_queue(pcf, qmgr):
    _local(pcf, b"EFFECT.TARGET.Q")
    for name, rqm in ((b"EFFECT.HERE.RQ", b"QM1"), (b"EFFECT.THERE.RQ", b"QM2")):
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_REMOTE,
                            CMQC.MQCA_REMOTE_Q_NAME: b"EFFECT.TARGET.Q", CMQC.MQCA_REMOTE_Q_MGR_NAME: rqm,
                            CMQC.MQIA_DEF_PRIORITY: 6})
    _put(qmgr, "EFFECT.HERE.RQ", b"resolved here")
    body, md = _get(qmgr, "EFFECT.TARGET.Q")
    assert (body, md.Priority) == (b"resolved here", 6)  # the remote definition's DEFPRTY, first in the path
    raises(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR, ibmmq.Queue, qmgr, "EFFECT.THERE.RQ", CMQC.MQOO_OUTPUT)
    raises(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE, ibmmq.Queue, qmgr, "EFFECT.HERE.RQ", CMQC.MQOO_INPUT_AS_Q_DEF)


def test_a_topics_capexpry_caps_the_expiry_of_its_publications(pcf, qmgr):
    _local(pcf, b"EFFECT.SUB.Q")
    pcf.MQCMD_CREATE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"EFFECT.CAP.T", CMQC.MQCA_TOPIC_STRING: b"effect/cap",
                            CMQC.MQIA_CAP_EXPIRY: 40})
    pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"EFFECT.CAP.SUB", CMQC.MQCA_TOPIC_STRING: b"effect/cap/#",
                                   CMQCFC.MQCACF_DESTINATION: b"EFFECT.SUB.Q"})
    topic = ibmmq.Topic(qmgr, topic_string="effect/cap/child")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    try:
        topic.pub(b"capped")  # below the topic object: CAPEXPRY is inherited
    finally:
        topic.close()
    body, md = _get(qmgr, "EFFECT.SUB.Q")
    assert body == b"capped" and 0 < md.Expiry <= 40


def test_noshare_lets_one_application_open_the_queue_for_input(pcf, qmgr):
    _local(pcf, b"EFFECT.NOSHARE.Q", {CMQC.MQIA_SHAREABILITY: CMQC.MQQA_NOT_SHAREABLE})
    first = ibmmq.Queue(qmgr, "EFFECT.NOSHARE.Q", CMQC.MQOO_INPUT_SHARED)  # treated as exclusive
    try:
        raises(CMQC.MQRC_OBJECT_IN_USE, ibmmq.Queue, qmgr, "EFFECT.NOSHARE.Q", CMQC.MQOO_INPUT_SHARED)
    finally:
        first.close()
    pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: b"EFFECT.NOSHARE.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQC.MQIA_SHAREABILITY: CMQC.MQQA_SHAREABLE})
    both = [ibmmq.Queue(qmgr, "EFFECT.NOSHARE.Q", CMQC.MQOO_INPUT_SHARED) for _ in range(2)]  # SHARE: both open
    for q in both:
        q.close()
