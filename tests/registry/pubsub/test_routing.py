"""Publish/subscribe through the queue manager domain: routing, copies, retained publications,
delivery rules, the publish exit and MQSUB's rules, each checked against what IBM documents.

Everything goes through ``QueueManager`` (no sockets): MQSUB, MQPUT/MQPUT1 to topics, MQGET, MQCMIT /
MQBACK and PCF commands, on a temporary data directory with an injected clock.  The facts and their
sources are in docs/pubsub-facts.md (section numbers are cited as "facts §n").  Each test states
IBM's behaviour, except the copy's Expiry, where issue 9's rule stands over IBM's SubExpiry page
(docs/decisions.md P3).
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import properties as PR
from qmlite.registry.pubsub import routing
from qmlite.registry.errors import MQIError
from qmlite.registry.objects.definitions import Subscription, Topic
from qmlite.registry.pubsub.publishexit import MQXCC_FAILED, MQXCC_SUPPRESS_FUNCTION, PublishExit
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.messaging.sessions import Handle
from tests.support.pcfkit import bs, command, i, st

QMGR = "QM1"
DLQ = "DEV.DEAD.LETTER.QUEUE"
Q1, Q2, Q3 = "DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3"
NONE24 = bytes(24)
RFH2 = C.MQFMT_RF_HEADER_2.rstrip()
PER, NPER, AS_DEF = C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT, C.MQPER_PERSISTENCE_AS_Q_DEF
UTF8, LE = 1208, C.MQENC_NATIVE


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------

@pytest.fixture
def qm(tmp_path, clock):
    manager = QueueManager.open(tmp_path / "qm", QMGR, clock=clock, synchronous="NORMAL")
    yield manager
    manager.shutdown()


def connect(qm, user: str = "admin"):
    return qm.connect(QMGR, user=user, admin=user == "admin", appl_name="routing-test")


def pcf(qm, cmd: int, *params) -> int:
    """Run a PCF command; the first non-zero Reason of its responses (0: done)."""
    for response in qm.engine.execute(command(cmd, *params)):
        if response.header.Reason:
            return response.header.Reason
    return 0


def define_queue(qm, name: str, *params) -> None:
    assert pcf(qm, C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, name), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL), *params) == 0


def change_queue(qm, name: str, *params) -> None:
    assert pcf(qm, C.MQCMD_CHANGE_Q, st(C.MQCA_Q_NAME, name), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL), *params) == 0


def define_topic(qm, name: str, string: str, *params) -> None:
    assert pcf(qm, C.MQCMD_CREATE_TOPIC, st(C.MQCA_TOPIC_NAME, name), st(C.MQCA_TOPIC_STRING, string), *params) == 0


def admin_sub(qm, name: str, topic: str, dest: str = "", *params) -> Subscription:
    """Create Subscription (PCF): an administered durable subscription, provided queue unless none given."""
    where = [st(C.MQCACF_DESTINATION, dest)] if dest else [i(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED)]
    reason = pcf(qm, C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, name), st(C.MQCA_TOPIC_STRING, topic),
                 *where, *params)
    assert reason == 0, reason
    return qm.registry.subs[name]


@dataclasses.dataclass
class Sub:
    hsub: Handle
    sd: S.MQSD
    hobj: int  # the destination's handle MQSUB returned (managed), or the one passed
    sub: Subscription

    @property
    def queue(self) -> str:
        return self.sub.destination


def sd_for(topic: str = "", *, options: int = 0, name: str = "", level: int = 1, selector: str = "",
           correl: bytes | None = None, object_name: str = "", user_data: str = "",
           pub_priority: int = C.MQPRI_PRIORITY_AS_PUBLISHED, expiry: int = C.MQEI_UNLIMITED,
           token: bytes = bytes(32), appl_identity: str = "") -> S.MQSD:
    return S.MQSD(Options=options, ObjectName=object_name, ObjectString=S.MQCHARV(topic), SubName=S.MQCHARV(name),
                  SubLevel=level, SelectionString=S.MQCHARV(selector), SubCorrelId=correl or NONE24,
                  SubUserData=S.MQCHARV(user_data), PubPriority=pub_priority, SubExpiry=expiry,
                  PubAccountingToken=token, PubApplIdentityData=appl_identity,
                  ResObjectString=S.MQCHARV("", 10240))


def open_queue(qm, session, name: str, options: int = C.MQOO_INPUT_SHARED | C.MQOO_BROWSE) -> int:
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=name), options)
    return handle.hobj


def subscribe(qm, session, topic: str = "", *, queue: str | None = None, options: int = 0, correl=None,
              **fields) -> Sub:
    """MQSUB: CREATE (unless an action is given), MANAGED unless a provided ``queue`` is named, and
    SET_CORREL_ID when ``correl`` is given."""
    hobj = 0
    if queue is not None:
        hobj = open_queue(qm, session, queue)
    elif not options & C.MQSO_RESUME:
        options |= C.MQSO_MANAGED
    if not options & (C.MQSO_CREATE | C.MQSO_RESUME | C.MQSO_ALTER):
        options |= C.MQSO_CREATE
    if correl is not None:
        options |= C.MQSO_SET_CORREL_ID
    hsub, sd, dest = qm.subscribe(session, sd_for(topic, options=options, correl=correl, **fields), hobj)
    return Sub(hsub, sd, dest, qm.registry.subs_by_id[hsub.sub_id])


def refused(reason: int, fn, *args, **kw) -> None:
    with pytest.raises(MQIError) as err:
        fn(*args, **kw)
    assert err.value.reason == reason, (err.value.reason, reason)


def publish(qm, session, topic: str, data: bytes = b"pub", *, options: int = C.MQPMO_NO_SYNCPOINT,
            level: int | None = None, object_name: str = "", **md_fields):
    """MQPUT1 to a topic: (the MQMD returned, the warning reason or 0)."""
    od = S.MQOD(Version=C.MQOD_VERSION_4, ObjectType=C.MQOT_TOPIC, ObjectName=object_name,
                ObjectString=S.MQCHARV(topic))
    md = S.MQMD(**{"Format": C.MQFMT_STRING, **md_fields})
    pmo = S.MQPMO(Version=C.MQPMO_VERSION_3, Options=options,
                  PubLevel=routing.DEFAULT_PUB_LEVEL if level is None else level)
    _, md, _, reason = qm.put1(session, od, md, pmo, data)
    return md, reason


def msgs(qm, queue: str) -> list:
    """The committed messages of a queue, in delivery order (not taken)."""
    return list(qm.registry.messages.contents(queue))


def bodies(qm, queue: str) -> list[bytes]:
    return [m.data for m in msgs(qm, queue)]


def prop(msg, name: str):
    found = msg.props.get(name) if msg.props else None
    return None if found is None else found.value


def mqget(qm, session, queue: str, options: int = 0, *, hobj: int | None = None):
    """A destructive MQGET (NO_WAIT, no match options) with ``options``; the Got or None."""
    if hobj is None:
        hobj = open_queue(qm, session, queue)
    handle = session.handles[hobj]
    gmo = S.MQGMO(Version=C.MQGMO_VERSION_2, Options=options | C.MQGMO_NO_SYNCPOINT, MatchOptions=0)
    return qm.get(session, handle, S.MQMD(), gmo, 1 << 20)


def rfh2_publication(props: dict, body: bytes = b"body") -> tuple[bytes, dict]:
    """An application's MQRFH2 publication (built with pcf.properties.join) and the MQMD fields for it."""
    data, fmt = PR.join(PR.Properties(props), body, C.MQFMT_STRING, LE, UTF8)
    return data, {"Format": fmt, "Encoding": LE, "CodedCharSetId": UTF8}


def dead_letters(qm) -> list[tuple[S.MQDLH, bytes, object]]:
    """Each DLQ message as (MQDLH, data after it, the message)."""
    out = []
    for m in msgs(qm, DLQ):
        assert m.md.Format.rstrip() == C.MQFMT_DEAD_LETTER_HEADER.rstrip()
        dlh, end = S.MQDLH.unpack(m.data, 0, "<")
        out.append((dlh, m.data[end:], m))
    return out


# ------------------------------------------------------------------------------------------------
# topic matching through routing
# ------------------------------------------------------------------------------------------------

TOPIC, CHAR = C.MQWS_TOPIC, C.MQWS_CHAR


@pytest.mark.parametrize("pattern, schema, hits, misses", [
    # topic scheme: '#' zero or more levels anywhere, '+' exactly one level, both only as a whole level
    ("sport/#", TOPIC, ["sport", "sport/tennis", "sport/tennis/results"], ["sports", "x/sport"]),
    ("sport/+", TOPIC, ["sport/tennis", "sport/golf"], ["sport", "sport/tennis/results"]),
    ("#/results", TOPIC, ["results", "sport/results", "sport/tennis/results"], ["sport/results/x"]),
    ("+/+/results", TOPIC, ["sport/tennis/results"], ["sport/results", "a/b/c/results"]),
    ("#", TOPIC, ["a", "a/b/c"], []),
    ("sport/ten+is", TOPIC, ["sport/ten+is"], ["sport/tennis", "sport/tenXis"]),  # '+' inside a level: literal
    ("sport/tennis", TOPIC, ["sport/tennis"], ["sport/tennis/results", "sport", "sport/Tennis"]),
    # character scheme: '*' any characters (across levels too), '?' one character, '%' escapes
    ("sport/*", CHAR, ["sport/tennis", "sport/tennis/results", "sport/"], ["sport", "sports/x"]),
    ("sport*", CHAR, ["sport", "sports", "sport/tennis"], ["spor", "xsport"]),
    ("sport/ten?is", CHAR, ["sport/tennis", "sport/tenXis"], ["sport/tenis", "sport/tennnis"]),
    ("*/results", CHAR, ["sport/results", "a/b/results"], ["results", "sport/results/x"]),
    ("sport/%*", CHAR, ["sport/*"], ["sport/tennis"]),
    ("sport+", CHAR, ["sport+"], ["sport", "sports"]),  # '+' means nothing to the character scheme
])
def test_topic_wildcards_route_in_both_schemes(qm, pattern, schema, hits, misses):
    session = connect(qm)
    options = C.MQSO_WILDCARD_CHAR if schema == CHAR else 0
    sub = subscribe(qm, session, pattern, options=options)
    assert sub.sd.ResObjectString.VSString == pattern
    for topic in hits + misses:
        publish(qm, session, topic, topic.encode())
    assert bodies(qm, sub.queue) == [t.encode() for t in hits]
    assert [prop(m, "mqps.Top") for m in msgs(qm, sub.queue)] == hits  # MQTopicString: the publication's topic


def test_topic_object_and_object_string_combine(qm):
    """IBM: the full topic name is the topic object's TOPICSTR, '/', then ObjectString; either alone is
    used unchanged.  Publisher and subscriber may each name the topic either way."""
    define_topic(qm, "SPORTS", "sport")
    session = connect(qm)
    below = subscribe(qm, session, "tennis/#", object_name="SPORTS")
    at = subscribe(qm, session, "", object_name="SPORTS")
    by_string = subscribe(qm, session, "sport/tennis/final")
    assert below.sd.ResObjectString.VSString == "sport/tennis/#"
    assert at.sd.ResObjectString.VSString == "sport"
    publish(qm, session, "tennis/final", b"1", object_name="SPORTS")  # sport/tennis/final
    publish(qm, session, "", b"2", object_name="SPORTS")  # sport
    publish(qm, session, "sport/tennis", b"3")
    assert bodies(qm, below.queue) == [b"1", b"3"]
    assert bodies(qm, at.queue) == [b"2"]
    assert bodies(qm, by_string.queue) == [b"1"]
    assert [prop(m, "mqps.Top") for m in msgs(qm, below.queue)] == ["sport/tennis/final", "sport/tennis"]
    refused(C.MQRC_UNKNOWN_OBJECT_NAME, subscribe, qm, session, "x", object_name="NO.SUCH.TOPIC")


# ------------------------------------------------------------------------------------------------
# WILDCARD(BLOCK) / WILDCARD(PASSTHRU)
# ------------------------------------------------------------------------------------------------

BLOCK_SUBS = [("a/#", TOPIC), ("#", TOPIC), ("a/+", TOPIC), ("+/b", TOPIC), ("a/+/c", TOPIC), ("a/*", CHAR),
              ("a/b/#", TOPIC), ("a/b/+", TOPIC), ("a/b", TOPIC), ("a/b/c", TOPIC)]
# Publication -> the subscriptions that receive it under BLOCK at a/b (under PASSTHRU: every match).
BLOCK_EXPECTED = {
    "a/b": {"a/b/#", "a/b"},
    "a/b/c": {"a/b/#", "a/b/+", "a/b/c"},
    "a/x": {"a/#", "#", "a/+", "a/*"},  # BLOCK at a/b says nothing about its siblings
    "a": {"a/#", "#"},
}


@pytest.mark.parametrize("operation", [C.MQTA_BLOCK, C.MQTA_PASSTHRU])
def test_wildcard_block_on_a_topic_object(qm, operation):
    """IBM (facts §12): with WILDCARD(BLOCK) on the object at a/b, subscriptions whose wildcard is less
    specific than a/b (a/#, #, a/+, +/b, ...) get nothing published at a/b or below; a/b/# and
    non-wildcard subscriptions still do.  PASSTHRU (the default) blocks nothing."""
    define_topic(qm, "AB", "a/b", i(C.MQIA_WILDCARD_OPERATION, operation))
    session = connect(qm)
    subs = {}
    for pattern, schema in BLOCK_SUBS:
        subs[pattern] = subscribe(qm, session, pattern, options=C.MQSO_WILDCARD_CHAR if schema == CHAR else 0)
    for topic in BLOCK_EXPECTED:
        publish(qm, session, topic, topic.encode())
    for pattern, schema in BLOCK_SUBS:
        got = {b.decode() for b in bodies(qm, subs[pattern].queue)}
        if operation == C.MQTA_BLOCK:
            want = {t for t, receivers in BLOCK_EXPECTED.items() if pattern in receivers}
        else:
            want = {t for t in BLOCK_EXPECTED if _ref_matches(pattern, schema, t)}
        assert got == want, pattern


def test_altering_wildcard_does_not_change_existing_subscriptions(qm):
    define_topic(qm, "AB", "a/b")  # PASSTHRU
    session = connect(qm)
    before = subscribe(qm, session, "a/#")
    assert pcf(qm, C.MQCMD_CHANGE_TOPIC, st(C.MQCA_TOPIC_NAME, "AB"),
               i(C.MQIA_WILDCARD_OPERATION, C.MQTA_BLOCK)) == 0
    after = subscribe(qm, session, "a/#")
    publish(qm, session, "a/b/c", b"x")
    assert bodies(qm, after.queue) == []  # defined under BLOCK: blocked
    assert bodies(qm, before.queue) == [b"x"]  # defined under PASSTHRU: still covers a/b/c


def test_blocked_wildcard_subscription_gets_no_retained_publication_below_the_block(qm):
    define_topic(qm, "AB", "a/b", i(C.MQIA_WILDCARD_OPERATION, C.MQTA_BLOCK))
    session = connect(qm)
    publish(qm, session, "a/b/c", b"kept", options=C.MQPMO_RETAIN)
    publish(qm, session, "a/x", b"open", options=C.MQPMO_RETAIN)
    blocked = subscribe(qm, session, "a/#")
    below = subscribe(qm, session, "a/b/#")
    assert bodies(qm, below.queue) == [b"kept"]
    assert bodies(qm, blocked.queue) == [b"open"]  # IBM WILD: blocked from a/b and everything below it


# ------------------------------------------------------------------------------------------------
# SubLevel / PubLevel
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("pub_level, receiver", [(9, 5), (5, 5), (4, 2), (2, 2), (1, 1), (0, 0)])
def test_only_the_highest_sublevel_not_above_publevel_receives(qm, pub_level, receiver):
    """IBM (facts §1): among the matching subscriptions, only those at the highest SubLevel <= PubLevel
    get the publication; the interceptors below get nothing (they would republish)."""
    session = connect(qm)
    subs = {level: subscribe(qm, session, "lvl/t", level=level) for level in (0, 1, 2, 5)}
    twin = subscribe(qm, session, "lvl/#", level=receiver)  # every subscription at that level gets one
    publish(qm, session, "lvl/t", b"p", level=pub_level)
    for level, sub in subs.items():
        assert bodies(qm, sub.queue) == ([b"p"] if level == receiver else []), level
    assert bodies(qm, twin.queue) == [b"p"]


def test_sublevel_zero_is_a_catch_all(qm):
    """IBM: a SubLevel 0 subscriber 'serves as a catchall if no other subscriber is interested'."""
    session = connect(qm)
    catch_all = subscribe(qm, session, "#", level=0)
    normal = subscribe(qm, session, "x/a")
    publish(qm, session, "x/a", b"wanted")
    publish(qm, session, "x/b", b"unwanted")
    assert bodies(qm, normal.queue) == [b"wanted"]
    assert bodies(qm, catch_all.queue) == [b"unwanted"]


def test_publevel_below_every_sublevel_reaches_nobody(qm):
    session = connect(qm)
    subs = [subscribe(qm, session, "low/t", level=level) for level in (3, 5)]
    publish(qm, session, "low/t", b"p", level=2)
    assert all(bodies(qm, s.queue) == [] for s in subs)
    publish(qm, session, "low/t", b"q", level=3)
    assert bodies(qm, subs[0].queue) == [b"q"] and bodies(qm, subs[1].queue) == []


def test_publevel_defaults_to_9_and_is_read_only_from_a_version_3_pmo(qm):
    session = connect(qm)
    high = subscribe(qm, session, "v/t", level=9)
    low = subscribe(qm, session, "v/t", level=1)
    od = S.MQOD(Version=C.MQOD_VERSION_4, ObjectType=C.MQOT_TOPIC, ObjectString=S.MQCHARV("v/t"))
    qm.put1(session, od, S.MQMD(), S.MQPMO(Version=C.MQPMO_VERSION_2, PubLevel=1), b"v2")  # PubLevel not there
    assert bodies(qm, high.queue) == [b"v2"] and bodies(qm, low.queue) == []


# ------------------------------------------------------------------------------------------------
# MQSO_GROUP_SUB
# ------------------------------------------------------------------------------------------------

def test_group_sub_gives_one_copy_per_group_at_the_most_significant_member(qm):
    """IBM (facts §2): grouped subscriptions with the same queue, queue manager, SubCorrelId and SubLevel
    get one copy per publication, at the member whose topic is longest before its first wildcard;
    a subscription to the same queue that is not grouped, and another group, get their own."""
    session = connect(qm)
    x, y = b"GROUP.X".ljust(24, b"\0"), b"GROUP.Y".ljust(24, b"\0")
    grouped = C.MQSO_GROUP_SUB
    for topic, data in (("g/#", "hash"), ("g/a/#", "ahash"), ("g/a/b", "exact"), ("g/+/b", "plus")):
        subscribe(qm, session, topic, queue=Q1, options=grouped, correl=x, user_data=data)
    subscribe(qm, session, "g/#", queue=Q1, correl=x, user_data="loner")  # same queue and correl, not grouped
    subscribe(qm, session, "g/#", queue=Q1, options=grouped, correl=y, user_data="group-y")
    expected = {"g/a/b": "exact", "g/a/c": "ahash", "g/z": "hash"}
    for topic, winner in expected.items():
        publish(qm, session, topic, topic.encode())
        copies = [m for m in msgs(qm, Q1) if m.data == topic.encode()]
        got = sorted((prop(m, "mqps.Sud"), m.correl_id) for m in copies)
        assert got == sorted([(winner, x), ("loner", x), ("group-y", y)]), topic


def test_group_sub_options_and_duplicates(qm):
    session = connect(qm)
    x = b"X".ljust(24, b"\0")
    # IBM: MQSO_GROUP_SUB needs MQSO_SET_CORREL_ID and a provided queue (not MQSO_MANAGED)
    refused(C.MQRC_OPTIONS_ERROR, subscribe, qm, session, "d/#", queue=Q1, options=C.MQSO_GROUP_SUB)
    refused(C.MQRC_OPTIONS_ERROR, qm.subscribe, session,
            sd_for("d/#", options=C.MQSO_CREATE | C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID | C.MQSO_MANAGED,
                   correl=x), 0)
    subscribe(qm, session, "d/#", queue=Q1, options=C.MQSO_GROUP_SUB, correl=x, name="D1")
    # RC-2514: a new member with a unique name but the same full topic name as one in the group
    refused(C.MQRC_DUPLICATE_GROUP_SUB, subscribe, qm, session, "d/#", queue=Q1, options=C.MQSO_GROUP_SUB,
            correl=x, name="D2")
    # the same topic in another group, or not grouped, is no duplicate
    subscribe(qm, session, "d/#", queue=Q1, options=C.MQSO_GROUP_SUB, correl=b"Z".ljust(24, b"\0"), name="D3")
    subscribe(qm, session, "d/#", queue=Q1, correl=x, name="D4")


# ------------------------------------------------------------------------------------------------
# MQPMO options: NOT_OWN_SUBS, SUPPRESS_REPLYTO, WARN_IF_NO_SUBS_MATCHED
# ------------------------------------------------------------------------------------------------

def test_not_own_subs_skips_the_publishers_own_subscriptions(qm):
    mine, other = connect(qm), connect(qm)
    own = subscribe(qm, mine, "own/t")
    theirs = subscribe(qm, other, "own/t")
    publish(qm, mine, "own/t", b"1", options=C.MQPMO_NOT_OWN_SUBS)
    publish(qm, mine, "own/t", b"2")
    publish(qm, other, "own/t", b"3", options=C.MQPMO_NOT_OWN_SUBS)
    assert bodies(qm, own.queue) == [b"2", b"3"]
    assert bodies(qm, theirs.queue) == [b"1", b"2"]


def test_suppress_replyto_removes_reply_to_from_the_copies(qm):
    session = connect(qm)
    sub = subscribe(qm, session, "rt/t")
    publish(qm, session, "rt/t", b"kept", ReplyToQ="REPLY.Q", ReplyToQMgr="QMX")
    publish(qm, session, "rt/t", b"suppressed", options=C.MQPMO_SUPPRESS_REPLYTO, ReplyToQ="REPLY.Q")
    kept, suppressed = msgs(qm, sub.queue)
    assert (kept.md.ReplyToQ.strip(), kept.md.ReplyToQMgr.strip()) == ("REPLY.Q", "QMX")
    assert (suppressed.md.ReplyToQ.strip(), suppressed.md.ReplyToQMgr.strip()) == ("", "")


def test_suppress_replyto_with_a_report_needing_a_reply_queue_fails(qm):
    session = connect(qm)
    sub = subscribe(qm, session, "rt/r")
    refused(C.MQRC_MISSING_REPLY_TO_Q, publish, qm, session, "rt/r", options=C.MQPMO_SUPPRESS_REPLYTO,
            Report=C.MQRO_COA, ReplyToQ="REPLY.Q")
    assert bodies(qm, sub.queue) == []


def test_warn_if_no_subs_matched(qm):
    session = connect(qm)
    warn = C.MQPMO_WARN_IF_NO_SUBS_MATCHED
    assert publish(qm, session, "warn/none", options=warn)[1] == C.MQRC_NO_SUBS_MATCHED
    assert publish(qm, session, "warn/none")[1] == 0  # only when asked
    sub = subscribe(qm, session, "warn/some")
    assert publish(qm, session, "warn/some", b"w", options=warn)[1] == 0
    assert bodies(qm, sub.queue) == [b"w"]
    # IBM: with WARN_IF_NO_SUBS_MATCHED + RETAIN the publication is still retained
    assert publish(qm, session, "warn/kept", b"r", options=warn | C.MQPMO_RETAIN)[1] == C.MQRC_NO_SUBS_MATCHED
    late = subscribe(qm, session, "warn/kept")
    assert bodies(qm, late.queue) == [b"r"]


def test_no_warning_when_the_matching_subscriptions_copy_went_to_the_dlq(qm):
    define_topic(qm, "WDLQ", "wdlq", i(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_YES))
    define_queue(qm, FAIL_Q, i(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_INHIBITED))
    admin_sub(qm, "WDLQ.SUB", "wdlq/#", FAIL_Q)
    _, reason = publish(qm, connect(qm), "wdlq/t", b"x", options=C.MQPMO_WARN_IF_NO_SUBS_MATCHED)
    assert len(dead_letters(qm)) == 1
    assert reason == 0


# ------------------------------------------------------------------------------------------------
# retained publications and MQSUBRQ
# ------------------------------------------------------------------------------------------------

def test_retained_publication_is_replaced_and_sent_to_new_subscriptions(qm):
    session = connect(qm)
    live = subscribe(qm, session, "ret/t")
    publish(qm, session, "ret/t", b"one", options=C.MQPMO_RETAIN, Priority=4)
    publish(qm, session, "ret/t", b"two", options=C.MQPMO_RETAIN, Priority=4)  # replaces "one"
    publish(qm, session, "ret/t", b"plain")  # a publication not retained leaves the retained one alone
    assert bodies(qm, live.queue) == [b"one", b"two", b"plain"]
    assert all(prop(m, "mqps.Ret") is None for m in msgs(qm, live.queue))  # sent live, not "retained"
    late = subscribe(qm, session, "ret/t")
    (copy,) = msgs(qm, late.queue)
    assert copy.data == b"two" and copy.md.Priority == 4
    assert prop(copy, "mqps.Ret") is True  # MQIsRetained
    assert prop(copy, "mqps.Top") == "ret/t"
    fresh = subscribe(qm, session, "ret/t", options=C.MQSO_CREATE | C.MQSO_NEW_PUBLICATIONS_ONLY)
    assert bodies(qm, fresh.queue) == []
    wild = subscribe(qm, session, "ret/#")
    publish(qm, session, "ret/u", b"three", options=C.MQPMO_RETAIN)
    assert sorted(bodies(qm, subscribe(qm, session, "ret/#").queue)) == [b"three", b"two"]
    assert bodies(qm, wild.queue) == [b"two", b"three"]  # the retained one at MQSUB, then the new one


def test_retained_publications_are_republished_at_publevel_1(qm):
    """IBM: a retained publication 'is republished at PubLevel 1', so a new subscription above level 1
    does not get it; one at level 0 or 1 does."""
    session = connect(qm)
    publish(qm, session, "lv/t", b"r", options=C.MQPMO_RETAIN)
    assert bodies(qm, subscribe(qm, session, "lv/t", level=2).queue) == []
    assert bodies(qm, subscribe(qm, session, "lv/t", level=1).queue) == [b"r"]
    assert bodies(qm, subscribe(qm, session, "lv/t", level=0).queue) == [b"r"]


def test_retained_publications_are_sent_on_create_only(qm):
    """IBM RC-2525/2526: retained publications are sent at MQSUB only with MQSO_CREATE, not on RESUME."""
    session = connect(qm)
    durable = subscribe(qm, session, "cr/t", name="CR.SUB", options=C.MQSO_CREATE | C.MQSO_DURABLE)
    qm.close_object(session, durable.hsub.hobj, C.MQCO_KEEP_SUB)
    publish(qm, session, "cr/other", b"x", options=C.MQPMO_RETAIN)
    publish(qm, session, "cr/t", b"r", options=C.MQPMO_RETAIN)  # delivered once, while durable existed
    subscribe(qm, session, "cr/t", name="CR.SUB", options=C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED)
    assert bodies(qm, durable.queue) == [b"r"]


def test_publications_on_request_and_mqsubrq(qm):
    session = connect(qm)
    on_request = C.MQSO_CREATE | C.MQSO_PUBLICATIONS_ON_REQUEST
    publish(qm, session, "rq/a", b"a1", options=C.MQPMO_RETAIN)
    single = subscribe(qm, session, "rq/a", options=on_request)
    wild = subscribe(qm, session, "rq/#", options=on_request)
    empty = subscribe(qm, session, "rq/none", options=on_request)
    assert bodies(qm, single.queue) == [] and bodies(qm, wild.queue) == []  # nothing at MQSUB
    publish(qm, session, "rq/b", b"b1", options=C.MQPMO_RETAIN)
    publish(qm, session, "rq/a", b"live")  # IBM SUBOPTS: 'do not receive any non-retained publications'
    assert bodies(qm, single.queue) == [] and bodies(qm, wild.queue) == []
    action = C.MQSR_ACTION_PUBLICATION
    assert qm.subscription_request(session, single.hsub.hobj, action) == 1  # MQSRO NumPubs
    assert qm.subscription_request(session, wild.hsub.hobj, action) == 2
    assert qm.subscription_request(session, single.hsub.hobj, action) == 1  # again, on every request
    assert bodies(qm, single.queue) == [b"a1", b"a1"]
    assert sorted(bodies(qm, wild.queue)) == [b"a1", b"b1"]
    assert all(prop(m, "mqps.Ret") is True for m in msgs(qm, wild.queue))
    refused(C.MQRC_NO_RETAINED_MSG, qm.subscription_request, session, empty.hsub.hobj, action)
    normal = subscribe(qm, session, "rq/a")
    refused(C.MQRC_OPTIONS_ERROR, qm.subscription_request, session, normal.hsub.hobj, action)
    refused(C.MQRC_HOBJ_ERROR, qm.subscription_request, session, 999, action)
    # IBM SUBLEVEL: SubLevel > 1 with MQSO_PUBLICATIONS_ON_REQUEST is not allowed
    refused(C.MQRC_OPTIONS_ERROR, subscribe, qm, session, "rq/a", options=on_request, level=2)


def test_retained_publication_survives_a_reopen_only_when_persistent(tmp_path, clock):
    qm = QueueManager.open(tmp_path / "qm", QMGR, clock=clock)
    session = connect(qm)
    publish(qm, session, "keep/p", b"persistent", options=C.MQPMO_RETAIN, Persistence=PER, Priority=3)
    publish(qm, session, "keep/np", b"lost", options=C.MQPMO_RETAIN, Persistence=NPER)
    publish(qm, session, "keep/replaced", b"old", options=C.MQPMO_RETAIN, Persistence=PER)
    publish(qm, session, "keep/replaced", b"new", options=C.MQPMO_RETAIN, Persistence=NPER)
    publish(qm, session, "keep/def", b"as-topic", options=C.MQPMO_RETAIN)  # AS_TOPIC_DEF: DEFPSIST(NO)
    qm.flush()
    qm.shutdown()
    again = QueueManager.open(tmp_path / "qm", QMGR, clock=clock)
    try:
        assert set(again.registry.retained) == {"keep/p"}
        session = connect(again)
        sub = subscribe(again, session, "keep/#")
        (copy,) = msgs(again, sub.queue)
        assert copy.data == b"persistent" and copy.md.Persistence == PER and copy.md.Priority == 3
        assert prop(copy, "mqps.Ret") is True
    finally:
        again.shutdown()


def test_an_expired_retained_publication_is_not_sent(qm, clock):
    session = connect(qm)
    publish(qm, session, "rexp/t", b"short-lived", options=C.MQPMO_RETAIN, Expiry=600)
    clock.t += 120
    assert bodies(qm, subscribe(qm, session, "rexp/t").queue) == []


def test_a_retained_copy_has_only_the_expiry_left(qm, clock):
    session = connect(qm)
    publish(qm, session, "rexp/h", b"half", options=C.MQPMO_RETAIN, Expiry=600)
    clock.t += 30
    (copy,) = msgs(qm, subscribe(qm, session, "rexp/h").queue)
    assert copy.expires_at == clock.t + 30.0


def test_retained_publication_under_syncpoint_follows_the_unit_of_work(qm):
    publisher, watcher = connect(qm), connect(qm)
    publish(qm, publisher, "uow/r", b"r", options=C.MQPMO_SYNCPOINT | C.MQPMO_RETAIN)
    assert bodies(qm, subscribe(qm, watcher, "uow/r").queue) == []  # not committed yet
    qm.backout(publisher)
    assert "uow/r" not in qm.registry.retained
    assert bodies(qm, subscribe(qm, watcher, "uow/r").queue) == []


# ------------------------------------------------------------------------------------------------
# the MQMD of a copy
# ------------------------------------------------------------------------------------------------

def test_each_copy_gets_a_new_msg_id_and_its_subscriptions_correl_id(qm):
    session = connect(qm)
    generated = [subscribe(qm, session, "md/t") for _ in range(2)]
    chosen = subscribe(qm, session, "md/t", correl=b"MINE".ljust(24, b"\0"))
    md, _ = publish(qm, session, "md/t", b"x", CorrelId=b"PUBLISHER".ljust(24, b"\0"))
    copies = [msgs(qm, s.queue)[0] for s in generated + [chosen]]
    ids = [c.md.MsgId for c in copies]
    assert len(set(ids)) == 3 and md.MsgId not in ids and NONE24 not in ids
    for sub, copy in zip(generated, copies):
        assert copy.md.CorrelId == sub.sd.SubCorrelId == sub.sub.destination_correl_id != NONE24
    assert generated[0].sd.SubCorrelId != generated[1].sd.SubCorrelId
    assert copies[2].md.CorrelId == b"MINE".ljust(24, b"\0")


def test_set_correl_id_with_mqci_none_keeps_the_publishers_correl_id(qm):
    session = connect(qm)
    sub = subscribe(qm, session, "md/none", correl=NONE24)
    publish(qm, session, "md/none", b"x", CorrelId=b"PUBLISHER".ljust(24, b"\0"))
    assert msgs(qm, sub.queue)[0].md.CorrelId == b"PUBLISHER".ljust(24, b"\0")


def test_copy_priority_follows_pub_priority(qm):
    """IBM PUBPRI: PubPriority >= 0 is the copy's priority; AS_PUBLISHED keeps the publisher's;
    AS_Q_DEF is the destination queue's DefPriority.  A publisher's AS_Q_DEF resolves at the topic."""
    define_queue(qm, "PRI.Q", i(C.MQIA_DEF_PRIORITY, 6))
    define_topic(qm, "PRI", "pri", i(C.MQIA_DEF_PRIORITY, 2))
    session = connect(qm)
    fixed = subscribe(qm, session, "pri/#", pub_priority=7)
    as_pub = subscribe(qm, session, "pri/#")
    as_q_def = subscribe(qm, session, "pri/#", queue="PRI.Q", pub_priority=C.MQPRI_PRIORITY_AS_Q_DEF)
    publish(qm, session, "pri/t", b"3", Priority=3)
    publish(qm, session, "pri/t", b"topic", Priority=C.MQPRI_PRIORITY_AS_Q_DEF)
    assert [m.md.Priority for m in msgs(qm, fixed.queue)] == [7, 7]
    assert sorted((m.data, m.md.Priority) for m in msgs(qm, as_pub.queue)) == [(b"3", 3), (b"topic", 2)]
    assert [m.md.Priority for m in msgs(qm, "PRI.Q")] == [6, 6]


def test_copy_identity_is_the_subscriptions(qm):
    """IBM SUBSEC: UserIdentifier is the subscription's user; without MQSO_SET_IDENTITY_CONTEXT the
    AccountingToken is MQACT_NONE (or the environment's) and ApplIdentityData blanks; with it the
    subscription's PubAccountingToken and PubApplIdentityData."""
    publisher, app = connect(qm), connect(qm, "app")
    plain = subscribe(qm, app, "dev/id")
    token = b"TOKEN".ljust(32, b"\0")
    identified = subscribe(qm, publisher, "dev/id", options=C.MQSO_CREATE | C.MQSO_SET_IDENTITY_CONTEXT,
                           token=token, appl_identity="SUBSCRIBER-ID")
    publish(qm, publisher, "dev/id", b"x", options=C.MQPMO_SET_IDENTITY_CONTEXT, UserIdentifier="pubuser",
            AccountingToken=b"PUBTOKEN".ljust(32, b"\0"), ApplIdentityData="PUBLISHER-ID")
    (copy,) = msgs(qm, plain.queue)
    assert copy.md.UserIdentifier.strip() == "app"
    assert copy.md.AccountingToken == bytes(32) and copy.md.ApplIdentityData.strip() == ""
    (copy,) = msgs(qm, identified.queue)
    assert copy.md.UserIdentifier.strip() == "admin"
    assert copy.md.AccountingToken == token and copy.md.ApplIdentityData.strip() == "SUBSCRIBER-ID"


def test_set_identity_context_is_ignored_on_resume(qm):
    """IBM SUBSEC: SET_IDENTITY_CONTEXT 'is only valid with MQSO_CREATE and MQSO_ALTER. If used with
    MQSO_RESUME, the PubAccountingToken and PubApplIdentityData fields are ignored'."""
    session = connect(qm)
    token = b"FIRST".ljust(32, b"\0")
    sub = subscribe(qm, session, "id/r", name="ID.SUB", options=C.MQSO_CREATE | C.MQSO_DURABLE
                    | C.MQSO_SET_IDENTITY_CONTEXT, token=token, appl_identity="FIRST")
    qm.close_object(session, sub.hsub.hobj, C.MQCO_KEEP_SUB)
    subscribe(qm, session, "id/r", name="ID.SUB", options=C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED
              | C.MQSO_SET_IDENTITY_CONTEXT, token=b"SECOND".ljust(32, b"\0"), appl_identity="SECOND")
    publish(qm, session, "id/r", b"x")
    (copy,) = msgs(qm, sub.queue)
    assert copy.md.AccountingToken == token and copy.md.ApplIdentityData.strip() == "FIRST"


def test_admin_subscription_identity_from_pcf(qm):
    token = b"ADMINTOKEN".ljust(32, b"\0")
    admin_sub(qm, "ADM.ID", "adm/id", Q2, bs(C.MQBACF_ACCOUNTING_TOKEN, token),
              st(C.MQCACF_APPL_IDENTITY_DATA, "ADMIN-APPL"), st(C.MQCACF_SUB_USER_ID, "subuser"))
    publish(qm, connect(qm), "adm/id", b"x")
    (copy,) = msgs(qm, Q2)
    assert copy.md.AccountingToken == token and copy.md.ApplIdentityData.strip() == "ADMIN-APPL"
    assert copy.md.UserIdentifier.strip() == "subuser"


def test_copy_keeps_the_publications_expiry(qm, clock):
    session = connect(qm)
    sub = subscribe(qm, session, "exp/t")
    publish(qm, session, "exp/t", b"short", Expiry=100)
    publish(qm, session, "exp/t", b"forever")
    short, forever = msgs(qm, sub.queue)
    assert short.expires_at == clock.t + 10.0 and forever.expires_at is None


def test_a_copy_never_outlives_its_subscription(qm, clock):
    """Issue 9's rule (docs/decisions.md P3): a copy's Expiry is the lesser of the publication's and
    the subscription's remaining.  IBM's SubExpiry page says SubExpiry leaves publications alone;
    where an issue and the reference differ, the issue stands."""
    session = connect(qm)
    sub = subscribe(qm, session, "exp/s", expiry=600)  # the subscription ends in 60 s
    publish(qm, session, "exp/s", b"forever")
    publish(qm, session, "exp/s", b"hour", Expiry=36_000)
    publish(qm, session, "exp/s", b"short", Expiry=100)
    forever, hour, short = msgs(qm, sub.queue)
    assert forever.md.Expiry == 600 and forever.expires_at == clock.t + 60.0
    assert hour.md.Expiry == 600
    assert short.md.Expiry == 100 and short.expires_at == clock.t + 10.0


def test_an_expired_subscription_gets_no_more_publications(qm, clock):
    """IBM SUBEXP: 'No more publications will match this subscription after this interval'; the
    publications already on the queue are not affected."""
    session = connect(qm)
    sub = subscribe(qm, session, "exp/gone", queue=Q3, expiry=600)
    publish(qm, session, "exp/gone", b"before")
    clock.t += 61
    publish(qm, session, "exp/gone", b"after")
    assert bodies(qm, Q3) == [b"before"]
    assert sub.sub.sub_id not in qm.registry.subs_by_id


@pytest.mark.parametrize("topic_default, queue_default, expected", [(PER, NPER, PER), (NPER, PER, NPER)])
def test_persistence_as_topic_def_resolves_at_the_topic(qm, topic_default, queue_default, expected):
    """IBM SUBOPTS: 'If the publisher specifies Persistence as queue/topic definition, then the default
    persistence from the resolved topic object is set for the publication' (not the destination's)."""
    define_topic(qm, "PERS", "pers", i(C.MQIA_TOPIC_DEF_PERSISTENCE, topic_default))
    define_queue(qm, "PERS.Q", i(C.MQIA_DEF_PERSISTENCE, queue_default))
    session = connect(qm)
    subscribe(qm, session, "pers/#", queue="PERS.Q")
    publish(qm, session, "pers/t", b"x", Persistence=AS_DEF)
    publish(qm, session, "pers/t", b"y", Persistence=NPER if expected == PER else PER)  # as published
    assert [m.md.Persistence for m in msgs(qm, "PERS.Q")] == [expected, NPER if expected == PER else PER]


# ------------------------------------------------------------------------------------------------
# selectors
# ------------------------------------------------------------------------------------------------

SELECTOR_CASES = [
    ("colour = 'red'", True),
    ("colour = 'blue'", False),
    ("size > 2 AND size < 4", True),
    ("colour IN ('green', 'red')", True),
    ("colour LIKE 'r%'", True),
    ("usr.colour = 'red'", True),
    ("JMSPriority = 4", True),
    ("Root.MQMD.Priority = 5", False),
    ("JMSDeliveryMode = 'PERSISTENT'", True),
    # NULL: a missing property makes a comparison UNKNOWN, and NOT UNKNOWN is UNKNOWN: never selected
    ("missing = 1", False),
    ("NOT missing = 1", False),
    ("missing <> 1", False),
    ("missing IS NULL", True),
    ("colour IS NOT NULL AND NOT (missing = 1)", False),
]


def test_selectors_on_properties_and_mqmd_fields(qm):
    session = connect(qm)
    subs = [(subscribe(qm, session, "sel/t", selector=text), text, wanted) for text, wanted in SELECTOR_CASES]
    data, md_fields = rfh2_publication({"colour": "red", "size": 3})
    publish(qm, session, "sel/t", data, Priority=4, Persistence=PER, **md_fields)
    for sub, text, wanted in subs:
        assert len(msgs(qm, sub.queue)) == (1 if wanted else 0), text
    copy = msgs(qm, subs[0][0].queue)[0]
    assert copy.data == b"body" and copy.md.Format.rstrip() == C.MQFMT_STRING.rstrip()  # properties apart
    assert prop(copy, "colour") == "red" and prop(copy, "size") == 3 and prop(copy, "mqps.Top") == "sel/t"


def test_a_selector_that_does_not_parse_is_refused_at_mqsub(qm):
    session = connect(qm)
    for text in ("colour = ", "colour = 'red", "AND", "size >> 3"):
        refused(C.MQRC_SELECTOR_SYNTAX_ERROR, subscribe, qm, session, "sel/bad", selector=text)
    assert pcf(qm, C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, "BAD.SEL"), st(C.MQCA_TOPIC_STRING, "sel/x"),
               st(C.MQCACF_DESTINATION, Q1), st(C.MQCACF_SUB_SELECTOR, "colour = ")) == C.MQRC_SELECTOR_SYNTAX_ERROR
    assert "BAD.SEL" not in qm.registry.subs


def test_a_selector_may_use_mq_topic_string(qm):
    session = connect(qm)
    sub = subscribe(qm, session, "sel/#", selector="MQTopicString = 'sel/a'")
    publish(qm, session, "sel/a", b"a")
    publish(qm, session, "sel/b", b"b")
    assert bodies(qm, sub.queue) == [b"a"]


# ------------------------------------------------------------------------------------------------
# PublishSubscribeProperties and MQGET's rendering of properties
# ------------------------------------------------------------------------------------------------

def test_psprop_shapes_of_the_delivered_data(qm):
    define_queue(qm, "PS.NONE")
    define_queue(qm, "PS.COMPAT")
    define_queue(qm, "PS.RFH2")
    define_queue(qm, "PS.MSGPROP")
    for mode, queue in ((C.MQPSPROP_NONE, "PS.NONE"), (C.MQPSPROP_COMPAT, "PS.COMPAT"),
                        (C.MQPSPROP_RFH2, "PS.RFH2"), (C.MQPSPROP_MSGPROP, "PS.MSGPROP")):
        admin_sub(qm, queue + ".SUB", "ps/#", queue, i(C.MQIACF_PUBSUB_PROPERTIES, mode),
                  st(C.MQCACF_SUB_USER_DATA, "ud"))
    publish(qm, connect(qm), "ps/shape", b"hello")

    (none,) = msgs(qm, "PS.NONE")
    assert none.data == b"hello" and none.md.Format.rstrip() == "MQSTR" and not none.props

    (msgprop,) = msgs(qm, "PS.MSGPROP")
    assert msgprop.data == b"hello" and msgprop.md.Format.rstrip() == "MQSTR"
    assert prop(msgprop, "mqps.Top") == "ps/shape" and prop(msgprop, "mqps.Sud") == "ud"

    (rfh2,) = msgs(qm, "PS.RFH2")
    assert rfh2.md.Format.rstrip() == RFH2
    split = PR.split(rfh2.data, rfh2.md.Format, rfh2.md.Encoding, rfh2.md.CodedCharSetId)
    assert split.body == b"hello" and split.fmt.rstrip() == "MQSTR"
    (psc,) = [PR.parse_folder(text) for text in split.folders if text.startswith("<psc>")]
    items = {name: value for name, _kind, value in psc.items}
    assert items["Command"] == "Publish" and items["Topic"] == "ps/shape"

    (compat,) = msgs(qm, "PS.COMPAT")
    assert compat.md.Format.rstrip() == C.MQFMT_RF_HEADER_1.rstrip()
    split = PR.split(compat.data, compat.md.Format, compat.md.Encoding, compat.md.CodedCharSetId)
    assert split.body == b"hello" and split.headers[0].Format.rstrip() == "MQSTR"
    pairs = dict(PR.parse_name_value_string(split.headers[0].NameValueString))
    assert pairs["MQPSCommand"] == "Publish" and pairs["MQPSTopic"] == "ps/shape"


@pytest.mark.parametrize("propctl, gmo, with_usr, rfh2", [
    (C.MQPROP_COMPATIBILITY, 0, False, False),  # mqps.* alone are not mcd/jms/usr/mqext: dropped
    (C.MQPROP_COMPATIBILITY, 0, True, True),  # a usr property: every property in an MQRFH2
    (C.MQPROP_NONE, 0, True, False),
    (C.MQPROP_ALL, 0, False, True),
    (C.MQPROP_FORCE_MQRFH2, 0, False, True),
    (C.MQPROP_COMPATIBILITY, C.MQGMO_PROPERTIES_FORCE_MQRFH2, False, True),
    (C.MQPROP_NONE, C.MQGMO_PROPERTIES_FORCE_MQRFH2, False, True),
    (C.MQPROP_ALL, C.MQGMO_NO_PROPERTIES, True, False),
    (C.MQPROP_FORCE_MQRFH2, C.MQGMO_NO_PROPERTIES, True, False),
    (C.MQPROP_ALL, C.MQGMO_PROPERTIES_COMPATIBILITY, False, False),
    (C.MQPROP_NONE, C.MQGMO_PROPERTIES_COMPATIBILITY, True, True),
])
def test_mqget_renders_a_copys_properties(qm, propctl, gmo, with_usr, rfh2):
    """IBM PROPCTL / GMO (facts §14) for a MSGPROP copy carrying MQTopicString (mqps.Top)."""
    define_queue(qm, "PROP.Q", i(C.MQIA_PROPERTY_CONTROL, propctl))
    admin_sub(qm, "PROP.SUB", "prop/#", "PROP.Q")
    session = connect(qm)
    if with_usr:
        data, md_fields = rfh2_publication({"colour": "red"}, b"hello")
    else:
        data, md_fields = b"hello", {}
    publish(qm, session, "prop/t", data, **md_fields)
    got = mqget(qm, session, "PROP.Q", gmo)
    if not rfh2:
        assert got.data == b"hello" and got.md.Format.rstrip() == "MQSTR"
        return
    assert got.md.Format.rstrip() == RFH2
    split = PR.split(got.data, got.md.Format, got.md.Encoding, got.md.CodedCharSetId)
    assert split.body == b"hello" and split.fmt.rstrip() == "MQSTR"
    assert split.properties.get("mqps.Top").value == "prop/t"
    assert ("colour" in split.properties) == with_usr


# ------------------------------------------------------------------------------------------------
# delivery failures: USEDLQ, PMSGDLV, NPMSGDLV
# ------------------------------------------------------------------------------------------------

FAIL_Q = "FAIL.Q"


def _break_queue(qm, how: str) -> tuple[int, str, str]:
    """Make the failing subscription's destination unusable; (reason, DestQName, DestQMgrName)."""
    if how == "full":
        change_queue(qm, FAIL_Q, i(C.MQIA_MAX_Q_DEPTH, 1))
        session = connect(qm)
        qm.put1(session, S.MQOD(ObjectName=FAIL_Q), S.MQMD(), S.MQPMO(), b"filler")
        return C.MQRC_Q_FULL, FAIL_Q, QMGR
    if how == "inhibited":
        change_queue(qm, FAIL_Q, i(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_INHIBITED))
        return C.MQRC_PUT_INHIBITED, FAIL_Q, QMGR
    if how == "deleted":
        assert pcf(qm, C.MQCMD_DELETE_Q, st(C.MQCA_Q_NAME, FAIL_Q), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL)) == 0
        return C.MQRC_UNKNOWN_OBJECT_NAME, FAIL_Q, QMGR
    assert how == "remote"
    return C.MQRC_UNKNOWN_REMOTE_Q_MGR, "THEIR.Q", "QM2"


def _failing_setup(qm, how: str, *topic_params, durable: bool = True):
    """Topic FAIL ('fail') with ``topic_params``; a healthy subscription to Q1 and one whose
    destination ``how`` breaks (durable: an admin subscription; else a non-durable MQSUB)."""
    define_topic(qm, "FAIL", "fail", *topic_params)
    define_queue(qm, FAIL_Q)
    admin_sub(qm, "GOOD", "fail/#", Q1)
    if how == "remote":
        admin_sub(qm, "BAD", "fail/#", "THEIR.Q", st(C.MQCACF_DESTINATION_Q_MGR, "QM2"))
    elif durable:
        admin_sub(qm, "BAD", "fail/#", FAIL_Q)
    else:
        subscribe(qm, connect(qm), "fail/#", queue=FAIL_Q)
    return _break_queue(qm, how)


@pytest.mark.parametrize("how", ["full", "inhibited", "deleted", "remote"])
def test_undeliverable_copy_goes_to_the_dlq_behind_an_mqdlh(qm, how):
    """USEDLQ(YES) (SYSTEM.BASE.TOPIC's): the copy goes to the dead-letter queue behind an MQDLH naming
    the reason and the destination, the original Format kept in the MQDLH; IBM GEM26: delivery to the
    DLQ counts as delivered, so PMSGDLV(ALL) does not fail the MQPUT."""
    reason, dest, dest_qmgr = _failing_setup(qm, how, i(C.MQIA_PM_DELIVERY, C.MQDLV_ALL),
                                             i(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_YES))
    session = connect(qm)
    assert publish(qm, session, "fail/t", b"payload", Persistence=PER)[1] == 0
    assert bodies(qm, Q1) == [b"payload"]
    ((dlh, rest, msg),) = dead_letters(qm)
    assert (dlh.Reason, dlh.DestQName.strip(), dlh.DestQMgrName.strip()) == (reason, dest, dest_qmgr)
    assert dlh.Format.rstrip() == "MQSTR" and rest == b"payload"
    assert msg.md.Persistence == PER
    assert prop(msg, "mqps.Top") == "fail/t"  # the copy's properties travel with it


@pytest.mark.parametrize("how", ["full", "inhibited", "deleted", "remote"])
@pytest.mark.parametrize("persistence, attribute", [(PER, C.MQIA_PM_DELIVERY), (NPER, C.MQIA_NPM_DELIVERY)])
def test_all_fails_the_put_and_delivers_to_nobody(qm, how, persistence, attribute):
    """IBM RC-2502: with USEDLQ(NO) and PMSGDLV/NPMSGDLV(ALL) for the publication's persistence, one
    undeliverable copy fails the MQPUT with MQRC_PUBLICATION_FAILURE and 'The publication has not
    been delivered to any of the subscribers'."""
    _failing_setup(qm, how, i(attribute, C.MQDLV_ALL), i(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_NO))
    session = connect(qm)
    refused(C.MQRC_PUBLICATION_FAILURE, publish, qm, session, "fail/t", b"payload", Persistence=persistence)
    assert bodies(qm, Q1) == [] and bodies(qm, DLQ) == []
    # the other persistence's rule is ALL_DUR (persistent) / ALL_AVAIL (non-persistent), from SYSTEM.BASE.TOPIC
    other = NPER if persistence == PER else PER
    if other == NPER:
        assert publish(qm, session, "fail/t", b"np", Persistence=NPER)[1] == 0
        assert bodies(qm, Q1) == [b"np"]


def test_all_dur_fails_only_for_a_durable_subscription(qm):
    _failing_setup(qm, "inhibited", i(C.MQIA_PM_DELIVERY, C.MQDLV_ALL_DUR),
                   i(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_NO), durable=False)
    session = connect(qm)
    assert publish(qm, session, "fail/t", b"x", Persistence=PER)[1] == 0  # the failing one is non-durable
    assert bodies(qm, Q1) == [b"x"] and bodies(qm, DLQ) == []
    admin_sub(qm, "BAD.DURABLE", "fail/#", FAIL_Q)
    refused(C.MQRC_PUBLICATION_FAILURE, publish, qm, session, "fail/t", b"y", Persistence=PER)
    assert bodies(qm, Q1) == [b"x"]


@pytest.mark.parametrize("how", ["full", "inhibited", "deleted", "remote"])
def test_all_avail_never_fails(qm, how):
    _failing_setup(qm, how, i(C.MQIA_PM_DELIVERY, C.MQDLV_ALL_AVAIL), i(C.MQIA_NPM_DELIVERY, C.MQDLV_ALL_AVAIL),
                   i(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_NO))
    session = connect(qm)
    assert publish(qm, session, "fail/t", b"p", Persistence=PER)[1] == 0
    assert publish(qm, session, "fail/t", b"np", Persistence=NPER)[1] == 0
    assert bodies(qm, Q1) == [b"p", b"np"] and bodies(qm, DLQ) == []


def test_a_full_dlq_is_a_delivery_failure_again(qm):
    _failing_setup(qm, "inhibited", i(C.MQIA_PM_DELIVERY, C.MQDLV_ALL), i(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_YES))
    change_queue(qm, DLQ, i(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_INHIBITED))
    session = connect(qm)
    refused(C.MQRC_PUBLICATION_FAILURE, publish, qm, session, "fail/t", b"x", Persistence=PER)
    assert bodies(qm, Q1) == []


def test_a_failed_retained_publication_is_not_retained(qm):
    _failing_setup(qm, "inhibited", i(C.MQIA_PM_DELIVERY, C.MQDLV_ALL), i(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_NO))
    session = connect(qm)
    refused(C.MQRC_PUBLICATION_FAILURE, publish, qm, session, "fail/t", b"x", options=C.MQPMO_RETAIN,
            Persistence=PER)
    assert "fail/t" not in qm.registry.retained


# ------------------------------------------------------------------------------------------------
# publications under syncpoint
# ------------------------------------------------------------------------------------------------

def test_copies_under_syncpoint_appear_at_commit_and_vanish_at_backout(qm):
    publisher, reader = connect(qm), connect(qm)
    sub = subscribe(qm, reader, "sp/t", queue=Q1)
    hobj = open_queue(qm, reader, Q1)
    publish(qm, publisher, "sp/t", b"committed", options=C.MQPMO_SYNCPOINT, Persistence=PER)
    assert qm.registry.messages.depth(Q1) == 1  # counted in CURDEPTH, like any uncommitted put
    assert mqget(qm, reader, Q1, hobj=hobj) is None  # but not visible
    qm.commit(publisher)
    assert mqget(qm, reader, Q1, hobj=hobj).data == b"committed"
    publish(qm, publisher, "sp/t", b"backed-out", options=C.MQPMO_SYNCPOINT)
    qm.backout(publisher)
    assert mqget(qm, reader, Q1, hobj=hobj) is None and qm.registry.messages.depth(Q1) == 0
    assert sub.sub.sub_id in qm.registry.subs_by_id


# ------------------------------------------------------------------------------------------------
# the publish exit
# ------------------------------------------------------------------------------------------------

class Recorder:
    """A publish exit: records every context it sees, then does what ``act`` says for that SubName."""

    def __init__(self, act=None):
        self.seen = []
        self.act = act or {}

    def __call__(self, ctx):
        self.seen.append(dataclasses.replace(ctx))
        action = self.act.get(ctx.SubName)
        return action(ctx) if action else None


def _exit_setup(qm, recorder, *topic_params):
    define_topic(qm, "EXIT", "exit", *topic_params)
    admin_sub(qm, "EXIT.ONE", "exit/#", Q1)
    admin_sub(qm, "EXIT.TWO", "exit/#", Q2)
    qm.publish_exit = PublishExit(recorder)


def _reroute(ctx):
    ctx.DestinationQName = Q3


def _change(ctx):
    ctx.Data = b"changed by the exit"
    ctx.MsgDesc.Priority = 9
    ctx.Properties.set("added", "by-exit")


def _raise(ctx):
    raise RuntimeError("a bug in the exit")


@pytest.mark.parametrize("action, one, two, three", [
    (lambda ctx: MQXCC_SUPPRESS_FUNCTION, [], [b"pub"], []),
    (lambda ctx: False, [], [b"pub"], []),
    (_reroute, [], [b"pub"], [b"pub"]),
    (_change, [b"changed by the exit"], [b"pub"], []),
])
def test_publish_exit_suppresses_reroutes_and_changes_a_delivery(qm, action, one, two, three):
    _exit_setup(qm, Recorder({"EXIT.ONE": action}))
    publish(qm, connect(qm), "exit/t", b"pub", Priority=2)
    assert (bodies(qm, Q1), bodies(qm, Q2), bodies(qm, Q3)) == (one, two, three)
    if action is _change:
        (copy,) = msgs(qm, Q1)
        assert copy.md.Priority == 9 and prop(copy, "added") == "by-exit"
    (other,) = msgs(qm, Q2)
    assert other.md.Priority == 2 and other.data == b"pub"


def test_publish_exit_property_change_stays_with_its_own_copy(qm):
    _exit_setup(qm, Recorder({"EXIT.ONE": _change}))
    publish(qm, connect(qm), "exit/t", b"pub")
    (other,) = msgs(qm, Q2)
    assert prop(other, "added") is None


@pytest.mark.parametrize("action", [lambda ctx: MQXCC_FAILED, _raise])
def test_publish_exit_failure_is_an_undeliverable_copy(qm, action):
    _exit_setup(qm, Recorder({"EXIT.ONE": action}), i(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_YES))
    session = connect(qm)
    assert publish(qm, session, "exit/t", b"pub", Persistence=PER)[1] == 0
    assert bodies(qm, Q1) == [] and bodies(qm, Q2) == [b"pub"]
    ((dlh, rest, _),) = dead_letters(qm)
    assert dlh.Reason == C.MQRC_PUBLISH_EXIT_ERROR and dlh.DestQName.strip() == Q1 and rest == b"pub"


@pytest.mark.parametrize("action", [lambda ctx: MQXCC_FAILED, _raise])
def test_publish_exit_failure_under_pmsgdlv_all_fails_the_publication(qm, action):
    _exit_setup(qm, Recorder({"EXIT.ONE": action}), i(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_NO),
                i(C.MQIA_PM_DELIVERY, C.MQDLV_ALL))
    refused(C.MQRC_PUBLICATION_FAILURE, publish, qm, connect(qm), "exit/t", b"pub", Persistence=PER)
    assert bodies(qm, Q1) == [] and bodies(qm, Q2) == [] and bodies(qm, DLQ) == []


def test_publish_exit_sees_the_subscription_context(qm):
    recorder = Recorder()
    define_topic(qm, "CTX", "ctx")
    qm.publish_exit = PublishExit(recorder)
    session = connect(qm)
    sub = subscribe(qm, session, "a/+", object_name="CTX", name="CTX.SUB", selector="colour = 'red'", level=3,
                    options=C.MQSO_CREATE | C.MQSO_DURABLE, queue=Q3)
    data, md_fields = rfh2_publication({"colour": "red"})
    publish(qm, session, "ctx/a/b", data, **md_fields)
    (ctx,) = recorder.seen
    assert (ctx.SubName, ctx.SubId, ctx.SubTopicString) == ("CTX.SUB", sub.sub.sub_id, "ctx/a/+")
    assert (ctx.ObjectName, ctx.ObjectString) == ("CTX", "a/+")
    assert (ctx.SelectionString, ctx.SubLevel, ctx.PSProperties) == ("colour = 'red'", 3, C.MQPSPROP_MSGPROP)
    assert (ctx.DestinationQName, ctx.DestinationQMgrName) == (Q3, QMGR)
    assert ctx.SubType == C.MQSUBTYPE_API
    assert ctx.PubTopicString == "ctx/a/b" and ctx.Data == b"body"
    assert ctx.MsgDesc.CorrelId == sub.sub.destination_correl_id


def test_publish_exit_is_called_for_retained_publications(qm):
    """IBM q028280_: the exit is called for publications, for retained ones sent at MQSUB and at MQSUBRQ."""
    recorder = Recorder()
    session = connect(qm)
    publish(qm, session, "rx/t", b"kept", options=C.MQPMO_RETAIN)
    qm.publish_exit = PublishExit(recorder)
    subscribe(qm, session, "rx/t", name="RX.NEW")
    on_request = subscribe(qm, session, "rx/t", name="RX.REQ",
                           options=C.MQSO_CREATE | C.MQSO_PUBLICATIONS_ON_REQUEST)
    qm.subscription_request(session, on_request.hsub.hobj, C.MQSR_ACTION_PUBLICATION)
    assert [(c.SubName, c.Data) for c in recorder.seen] == [("RX.NEW", b"kept"), ("RX.REQ", b"kept")]


# ------------------------------------------------------------------------------------------------
# MQSUB's rules
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("options, level", [
    (0, 1),  # one of CREATE, RESUME, ALTER is required
    (C.MQSO_CREATE | C.MQSO_FIXED_USERID | C.MQSO_ANY_USERID, 1),
    (C.MQSO_CREATE | C.MQSO_WILDCARD_CHAR | C.MQSO_WILDCARD_TOPIC, 1),
    (C.MQSO_CREATE | C.MQSO_READ_AHEAD | C.MQSO_NO_READ_AHEAD, 1),
    (C.MQSO_RESUME | C.MQSO_NEW_PUBLICATIONS_ONLY, 1),  # IBM (MQSUB on IBM i): only with CREATE
    (C.MQSO_ALTER | C.MQSO_NEW_PUBLICATIONS_ONLY, 1),
    (C.MQSO_CREATE | C.MQSO_GROUP_SUB, 1),  # without SET_CORREL_ID
    (C.MQSO_CREATE | C.MQSO_PUBLICATIONS_ON_REQUEST, 2),
    pytest.param(C.MQSO_CREATE | C.MQSO_NEW_PUBLICATIONS_ONLY | C.MQSO_PUBLICATIONS_ON_REQUEST, 1),
])
def test_option_combinations_refused_with_options_error(qm, options, level):
    session = connect(qm)
    hobj = open_queue(qm, session, Q1)
    sd = sd_for("opt/t", options=options | C.MQSO_DURABLE, name="OPT.SUB", level=level)
    refused(C.MQRC_OPTIONS_ERROR, qm.subscribe, session, sd, hobj)
    assert "OPT.SUB" not in qm.registry.subs


def test_create_resume_and_names(qm):
    session = connect(qm)
    refused(C.MQRC_SUB_NAME_ERROR, subscribe, qm, session, "n/t", options=C.MQSO_CREATE | C.MQSO_DURABLE)
    refused(C.MQRC_NO_SUBSCRIPTION, subscribe, qm, session, "n/t", name="NOPE",
            options=C.MQSO_RESUME | C.MQSO_DURABLE)
    refused(C.MQRC_NO_SUBSCRIPTION, subscribe, qm, session, "n/t", name="NOPE", queue=Q1,
            options=C.MQSO_ALTER | C.MQSO_DURABLE)
    refused(C.MQRC_HOBJ_ERROR, qm.subscribe, session, sd_for("n/t", options=C.MQSO_CREATE), 0)  # no queue
    first = subscribe(qm, session, "n/t", name="N.SUB", options=C.MQSO_CREATE | C.MQSO_DURABLE)
    qm.close_object(session, first.hsub.hobj, C.MQCO_KEEP_SUB)
    refused(C.MQRC_SUB_ALREADY_EXISTS, subscribe, qm, session, "n/t", name="N.SUB",
            options=C.MQSO_CREATE | C.MQSO_DURABLE)
    again = subscribe(qm, session, "n/t", name="N.SUB", options=C.MQSO_CREATE | C.MQSO_RESUME | C.MQSO_DURABLE)
    assert again.sub.sub_id == first.sub.sub_id


def _durable_on_q1(qm, session, name="ALT.SUB", **fields):
    sub = subscribe(qm, session, "alt/t", name=name, queue=Q1, options=C.MQSO_CREATE | C.MQSO_DURABLE, **fields)
    qm.close_object(session, sub.hsub.hobj, C.MQCO_KEEP_SUB)
    return sub


@pytest.mark.parametrize("change, reason", [
    (dict(topic="alt/other"), C.MQRC_TOPIC_NOT_ALTERABLE),
    (dict(options=C.MQSO_WILDCARD_CHAR), C.MQRC_TOPIC_NOT_ALTERABLE),
    (dict(durable=False), C.MQRC_DURABILITY_NOT_ALTERABLE),
    (dict(level=2), C.MQRC_SUBLEVEL_NOT_ALTERABLE),
    (dict(managed=True), C.MQRC_DEST_CLASS_NOT_ALTERABLE),
    (dict(selector="a = 1"), C.MQRC_SELECTOR_NOT_ALTERABLE),
    (dict(options=C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID), C.MQRC_GROUPING_NOT_ALTERABLE),
])
def test_alter_refuses_what_cannot_change(qm, change, reason):
    session = connect(qm)
    _durable_on_q1(qm, session)
    options = C.MQSO_ALTER | change.get("options", 0)
    options |= C.MQSO_DURABLE if change.get("durable", True) else 0
    options |= C.MQSO_MANAGED if change.get("managed") else 0
    hobj = 0 if change.get("managed") else open_queue(qm, session, Q1)
    sd = sd_for(change.get("topic", "alt/t"), options=options, name="ALT.SUB", level=change.get("level", 1),
                selector=change.get("selector", ""), correl=b"C".ljust(24, b"\0"))
    refused(reason, qm.subscribe, session, sd, hobj)
    assert qm.registry.subs["ALT.SUB"].active_connection == NONE24  # nothing taken


def test_alter_changes_what_may_change(qm):
    session = connect(qm)
    _durable_on_q1(qm, session, selector="a = 1")
    hobj = open_queue(qm, session, Q2)  # the provided queue itself may change
    sd = sd_for("", options=C.MQSO_ALTER | C.MQSO_DURABLE, name="ALT.SUB", pub_priority=8, user_data="new",
                expiry=9000)  # ObjectString omitted: allowed on ALTER; SelectionString omitted: kept
    qm.subscribe(session, sd, hobj)
    sub = qm.registry.subs["ALT.SUB"]
    assert (sub.destination, sub.pub_priority, sub.user_data, sub.expiry, sub.selector) == (Q2, 8, "new", 9000,
                                                                                         "a = 1")
    data, md_fields = rfh2_publication({"a": 1})
    publish(qm, session, "alt/t", data, **md_fields)
    (copy,) = msgs(qm, Q2)
    assert copy.md.Priority == 8 and prop(copy, "mqps.Sud") == "new"


def test_alter_of_a_grouped_subscription_keeps_its_grouping_fields(qm):
    session = connect(qm)
    x = b"X".ljust(24, b"\0")
    sub = subscribe(qm, session, "galt/#", name="G.SUB", queue=Q1, correl=x,
                    options=C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_GROUP_SUB)
    qm.close_object(session, sub.hsub.hobj, C.MQCO_KEEP_SUB)
    grouped = C.MQSO_ALTER | C.MQSO_DURABLE | C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID
    refused(C.MQRC_GROUPING_NOT_ALTERABLE, qm.subscribe, session,
            sd_for("galt/#", options=grouped, name="G.SUB", correl=b"Y".ljust(24, b"\0")), open_queue(qm, session, Q1))
    refused(C.MQRC_GROUPING_NOT_ALTERABLE, qm.subscribe, session,
            sd_for("galt/#", options=grouped, name="G.SUB", correl=x), open_queue(qm, session, Q2))
    qm.subscribe(session, sd_for("galt/#", options=grouped, name="G.SUB", correl=x, user_data="ok"),
                 open_queue(qm, session, Q1))
    assert qm.registry.subs["G.SUB"].user_data == "ok"


def test_resume_fills_the_mqsd(qm, clock):
    define_topic(qm, "RES", "res")
    session = connect(qm)
    x = b"RESUMED".ljust(24, b"\0")
    created = subscribe(qm, session, "a/#", object_name="RES", name="RES.SUB", queue=Q1, correl=x,
                        options=C.MQSO_CREATE | C.MQSO_DURABLE, level=3, expiry=6000, user_data="ud",
                        pub_priority=4, selector="colour = 'red'")
    qm.close_object(session, created.hsub.hobj, C.MQCO_KEEP_SUB)
    clock.t += 10
    sd = S.MQSD(Options=C.MQSO_RESUME | C.MQSO_DURABLE, SubName=S.MQCHARV("RES.SUB"),
                ResObjectString=S.MQCHARV("", 256), SelectionString=S.MQCHARV("", 256),
                SubUserData=S.MQCHARV("", 256))
    _, sd, _ = qm.subscribe(session, sd, open_queue(qm, session, Q1))
    assert sd.ResObjectString.VSString == "res/a/#"
    assert (sd.SubLevel, sd.PubPriority, sd.SubCorrelId) == (3, 4, x)
    assert sd.SubExpiry == 6000  # IBM SUBEXP: the original expiry, not what remains
    assert (sd.SelectionString.VSString, sd.SubUserData.VSString) == ("colour = 'red'", "ud")
    assert sd.Options & C.MQSO_DURABLE


def test_fixed_userid_is_the_default_and_any_userid_lets_another_user_resume(qm):
    owner, other = connect(qm), connect(qm, "app")
    for name, extra in (("FIXED.SUB", 0), ("ANY.SUB", C.MQSO_ANY_USERID)):
        sub = subscribe(qm, owner, "dev/owned", name=name, options=C.MQSO_CREATE | C.MQSO_DURABLE | extra)
        qm.close_object(owner, sub.hsub.hobj, C.MQCO_KEEP_SUB)
    resume = C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED
    refused(C.MQRC_IDENTITY_MISMATCH, subscribe, qm, other, "dev/owned", name="FIXED.SUB", options=resume)
    refused(C.MQRC_IDENTITY_MISMATCH, subscribe, qm, other, "dev/owned", name="FIXED.SUB",
            options=C.MQSO_ALTER | C.MQSO_DURABLE | C.MQSO_MANAGED)
    subscribe(qm, other, "dev/owned", name="ANY.SUB", options=resume)
    subscribe(qm, owner, "dev/owned", name="FIXED.SUB", options=resume)  # the owner may


def test_any_userid_resume_makes_the_new_user_the_publications_user(qm):
    owner, other = connect(qm), connect(qm, "app")
    sub = subscribe(qm, owner, "dev/any", name="ANY.SUB", options=C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_ANY_USERID)
    qm.close_object(owner, sub.hsub.hobj, C.MQCO_KEEP_SUB)
    subscribe(qm, other, "dev/any", name="ANY.SUB", options=C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED)
    publish(qm, owner, "dev/any", b"x")
    assert msgs(qm, sub.queue)[0].md.UserIdentifier.strip() == "app"


def test_any_userid_resume_needs_the_new_users_authority(qm):
    owner, other = connect(qm), connect(qm, "app")
    sub = subscribe(qm, owner, "secret/t", name="SECRET.SUB",
                    options=C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_ANY_USERID)
    qm.close_object(owner, sub.hsub.hobj, C.MQCO_KEEP_SUB)
    refused(C.MQRC_NOT_AUTHORIZED, subscribe, qm, other, "secret/t", name="SECRET.SUB",
            options=C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED)


def test_a_subscription_in_use_cannot_be_resumed(qm):
    first, second = connect(qm), connect(qm)
    held = subscribe(qm, first, "use/t", name="USE.SUB", options=C.MQSO_CREATE | C.MQSO_DURABLE)
    resume = C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED
    refused(C.MQRC_SUBSCRIPTION_IN_USE, subscribe, qm, second, "use/t", name="USE.SUB", options=resume)
    qm.close_object(first, held.hsub.hobj, C.MQCO_KEEP_SUB)
    subscribe(qm, second, "use/t", name="USE.SUB", options=resume)


def test_system_default_sub_cannot_be_resumed(qm):
    session = connect(qm)
    refused(C.MQRC_INVALID_SUBSCRIPTION, subscribe, qm, session, "", name="SYSTEM.DEFAULT.SUB", queue=Q1,
            options=C.MQSO_RESUME | C.MQSO_DURABLE)


def test_disconnect_removes_non_durable_subscriptions_and_their_managed_queues(qm):
    session = connect(qm)
    gone = subscribe(qm, session, "disc/t")
    kept = subscribe(qm, session, "disc/t", name="DISC.DURABLE", options=C.MQSO_CREATE | C.MQSO_DURABLE)
    publish(qm, session, "disc/t", b"x")
    assert gone.queue.startswith("SYSTEM.MANAGED.NDURABLE.") and kept.queue.startswith("SYSTEM.MANAGED.DURABLE.")
    qm.disconnect(session, commit=True)
    assert gone.sub.sub_id not in qm.registry.subs_by_id and gone.queue not in qm.registry.queues
    assert qm.registry.subs["DISC.DURABLE"].active_connection == NONE24
    assert bodies(qm, kept.queue) == [b"x"]
    other = connect(qm)
    resumed = subscribe(qm, other, "disc/t", name="DISC.DURABLE", options=C.MQSO_RESUME | C.MQSO_DURABLE)
    assert resumed.queue == kept.queue


def test_a_durable_subscription_is_free_after_a_restart(tmp_path, clock):
    """No connection outlives the queue manager: after a restart (a crash included) no subscription
    is in use, whatever was done to it while it was."""
    qm = QueueManager.open(tmp_path / "qm", QMGR, clock=clock)
    session = connect(qm)
    subscribe(qm, session, "rs/t", name="RS.SUB", options=C.MQSO_CREATE | C.MQSO_DURABLE)
    assert pcf(qm, C.MQCMD_CHANGE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, "RS.SUB"),
               st(C.MQCACF_SUB_USER_DATA, "changed while in use")) == 0
    qm.flush()
    qm.shutdown()  # no MQDISC: as after a crash
    again = QueueManager.open(tmp_path / "qm", QMGR, clock=clock)
    try:
        sub = subscribe(again, connect(again), "rs/t", name="RS.SUB",
                        options=C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED)
        assert sub.sub.user_data == "changed while in use"
    finally:
        again.shutdown()


# ------------------------------------------------------------------------------------------------
# routing.subscribers against a reference written from the documented rules
# ------------------------------------------------------------------------------------------------

LEVELS = ["a", "b", "c"]
TOPIC_LEVELS = LEVELS + ["+", "#"]
CHAR_LEVELS = LEVELS + ["*", "?", "a*", "?b"]
BLOCKABLE = ["a", "a/b", "b", "b/c"]


def _ref_topic_match(pattern: list[str], levels: list[str]) -> bool:
    if not pattern:
        return not levels
    head, rest = pattern[0], pattern[1:]
    if head == "#":
        return any(_ref_topic_match(rest, levels[k:]) for k in range(len(levels) + 1))
    return bool(levels) and head in ("+", levels[0]) and _ref_topic_match(rest, levels[1:])


def _ref_matches(pattern: str, schema: int, topic: str) -> bool:
    if schema == CHAR:
        regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
        return re.fullmatch(regex, topic, re.DOTALL) is not None
    return _ref_topic_match(pattern.split("/"), topic.split("/"))


def _ref_first_wildcard(pattern: str, schema: int) -> int | None:
    """Index of the first level holding a wildcard (None: no wildcard)."""
    for k, level in enumerate(pattern.split("/")):
        if (schema == TOPIC and level in ("#", "+")) or (schema == CHAR and ("*" in level or "?" in level)):
            return k
    return None


def _ref_blocked(pattern: str, schema: int, topic: str, blocks: set[str]) -> bool:
    """IBM WILD: BLOCK at object X stops a wildcard 'less specific than' X (its first wildcard above or at
    X's deepest level) from publications at X and below."""
    first = _ref_first_wildcard(pattern, schema)
    if first is None:
        return False
    return any((topic == b or topic.startswith(b + "/")) and first < len(b.split("/")) for b in blocks)


def _ref_significance(pattern: str, schema: int) -> int:
    first = _ref_first_wildcard(pattern, schema)
    return len(pattern.split("/")) if first is None else first


@dataclasses.dataclass(frozen=True)
class RefSub:
    pattern: str
    schema: int
    level: int
    group: int | None  # None: not grouped; else the group's correlation id number


def _ref_subscribers(subs: list[RefSub], topic: str, pub_level: int, blocks: set[str]):
    """(set of ungrouped receivers, {group: (receivers' max significance, members at the top level)})."""
    matched = [k for k, s in enumerate(subs) if _ref_matches(s.pattern, s.schema, topic)
               and not _ref_blocked(s.pattern, s.schema, topic, blocks) and s.level <= pub_level]
    if not matched:
        return set(), {}
    top = max(subs[k].level for k in matched)
    at_top = [k for k in matched if subs[k].level == top]
    loners = {k for k in at_top if subs[k].group is None}
    groups: dict[int, list[int]] = {}
    for k in at_top:
        if subs[k].group is not None:
            groups.setdefault(subs[k].group, []).append(k)
    return loners, {g: (max(_ref_significance(subs[k].pattern, subs[k].schema) for k in ks), ks)
                    for g, ks in groups.items()}


def _pattern(schema_levels):
    return strategies.lists(strategies.sampled_from(schema_levels), min_size=1, max_size=3).map("/".join)


SUB_LEVELS = strategies.sampled_from([0, 1, 1, 1, 2, 3])  # mostly 1, so that groups and interception meet
ref_subs = strategies.lists(
    strategies.one_of(
        strategies.builds(RefSub, _pattern(TOPIC_LEVELS), strategies.just(TOPIC), SUB_LEVELS,
                          strategies.sampled_from([None, 0, 0, 1])),
        strategies.builds(RefSub, _pattern(CHAR_LEVELS), strategies.just(CHAR), SUB_LEVELS, strategies.none()),
    ),
    min_size=1, max_size=10)
pub_topics = strategies.lists(strategies.lists(strategies.sampled_from(LEVELS), min_size=1, max_size=3).map("/".join),
                              min_size=1, max_size=4)


@pytest.fixture(scope="module")
def shared_qm(tmp_path_factory):
    manager = QueueManager.open(tmp_path_factory.mktemp("routing") / "qm", QMGR, synchronous="OFF")
    yield manager
    manager.shutdown()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(subs=ref_subs, topics=pub_topics, pub_level=strategies.integers(0, 9),
       blocks=strategies.sets(strategies.sampled_from(BLOCKABLE), max_size=2))
def test_subscribers_agree_with_the_documented_rules(shared_qm, subs, topics, pub_level, blocks):
    reg = shared_qm.registry
    made: list[Subscription] = []
    nodes: list[Topic] = []
    try:
        for n, b in enumerate(sorted(blocks)):
            node = Topic(f"PROP.BLOCK.{n}", b, wildcard_operation=C.MQTA_BLOCK)
            reg.put_topic(node)
            nodes.append(node)
        for n, s in enumerate(subs):
            grouped = s.group is not None
            sub = Subscription(
                f"PROP.SUB.{n}", reg.ids.sub_id(), topic_string=s.pattern, resolved_topic=s.pattern,
                destination="PROP.GROUPED.Q" if grouped else f"PROP.Q.{n}", destination_qmgr=QMGR,
                destination_correl_id=bytes([s.group + 1]).ljust(24, b"\0") if grouped else bytes([n + 10]) * 24,
                sub_level=s.level, wildcard_schema=s.schema, durable=C.MQSUB_DURABLE_NO,
                sub_type=C.MQSUBTYPE_API,
                sub_options=(C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID) if grouped else 0)
            sub.blocked_under = routing.blocks_for(reg, sub)  # what MQSUB and Create Subscription do
            reg.put_sub(sub)
            made.append(sub)
        index = {sub.sub_id: k for k, sub in enumerate(made)}
        for topic in topics:
            pub = routing.Publication(topic, S.MQMD(), b"", None, pub_level)
            got = [index[s.sub_id] for s in routing.subscribers(reg, pub)]
            assert len(got) == len(set(got)), "a subscription chosen twice"
            loners, groups = _ref_subscribers(subs, topic, pub_level, blocks)
            assert {k for k in got if subs[k].group is None} == loners, topic
            chosen: dict[int, list[int]] = {}
            for k in got:
                if subs[k].group is not None:
                    chosen.setdefault(subs[k].group, []).append(k)
            assert set(chosen) == set(groups), topic
            for g, ks in chosen.items():
                best, members = groups[g]
                assert len(ks) == 1 and ks[0] in members, (topic, g)
                assert _ref_significance(subs[ks[0]].pattern, subs[ks[0]].schema) == best, (topic, g)
    finally:
        for sub in made:
            reg.remove_sub(sub)
        for node in nodes:
            reg.remove_topic(node)


def test_a_topic_handle_names_the_nearest_object_as_the_objects_are_now(qm):
    """The nearest topic object of a topic string is remembered (every MQTT publication opens its topic)
    until a topic object changes."""
    session = connect(qm)

    def opened_by(topic: str) -> str:
        od = S.MQOD(Version=C.MQOD_VERSION_4, ObjectType=C.MQOT_TOPIC, ObjectString=S.MQCHARV(topic))
        handle, _ = qm.open_object(session, od, C.MQOO_OUTPUT)
        qm.close_object(session, handle.hobj, C.MQCO_NONE)
        return handle.object_name

    assert opened_by("nearest/a") == opened_by("nearest/a") == "SYSTEM.BASE.TOPIC"
    assert pcf(qm, C.MQCMD_CREATE_TOPIC, st(C.MQCA_TOPIC_NAME, "NEAREST"), st(C.MQCA_TOPIC_STRING, "nearest")) == 0
    assert opened_by("nearest/a") == "NEAREST"
    assert pcf(qm, C.MQCMD_DELETE_TOPIC, st(C.MQCA_TOPIC_NAME, "NEAREST")) == 0
    assert opened_by("nearest/a") == "SYSTEM.BASE.TOPIC"
