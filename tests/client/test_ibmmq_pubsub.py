"""Publish/subscribe end to end with IBM's ``ibmmq`` through the ``ibmmqc`` transport (issue 9).

Every test subscribes and publishes the way an ibmmq user does (``Subscription.sub``, ``Topic.pub``,
``PCFExecute`` for administered subscriptions) and checks the delivered MQMD, headers and body.
Topics are unique per test, so one server serves the module.
"""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from qmlite.pcf import properties as PR  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
EXIT = "tests.client.publish_exits:route"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("pubsub"), publish_exit=EXIT) as srv:
        yield srv


@pytest.fixture
def rfh2_puts(monkeypatch):
    """These tests put their own MQRFH2 and get with every property option.  With opentelemetry-api
    installed (the dev extra), ibmmq 2.1.2's OTel layer fails on such a put in Python (``mqotel.py``
    tests a str against the folders' bytes: TypeError), and the message handle it shares between a
    connection's gets and puts would carry the properties these gets receive into later puts; both
    are ibmmq's, whatever the queue manager (docs/ecosystem.md), so the layer is set aside here."""
    for hook in ("put_trace_before", "get_trace_before", "get_trace_after"):
        monkeypatch.setattr(ibmmq.OTelFunctions, hook, None)


def _sub(qmgr, topic, options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED, queue=None, **fields):
    sd = ibmmq.SD(Options=options)
    sd.set_vs("ObjectString", topic)
    for name in ("SubName", "SelectionString", "SubUserData"):
        if name in fields:
            sd.set_vs(name, fields.pop(name))
    for name, value in fields.items():
        sd[name] = value
    sub = ibmmq.Subscription(qmgr)
    sub.sub(sub_desc=sd, sub_queue=queue)
    return sub


def _pub(qmgr, topic, body=b"x", md=None, **pmo_fields):
    t = ibmmq.Topic(qmgr, topic_string=topic)
    t.open(open_opts=CMQC.MQOO_OUTPUT)
    try:
        md = md or ibmmq.MD(Format=CMQC.MQFMT_STRING)
        pmo = ibmmq.PMO(**pmo_fields)
        t.pub(body, md, pmo)
        return md
    finally:
        t.close()


def _get(queue, options=0):
    md = ibmmq.MD()
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | options, Version=CMQC.MQGMO_VERSION_4)
    return md, queue.get(None, md, gmo)


def _nothing(queue):
    with pytest.raises(ibmmq.MQMIError) as info:
        _get(queue)
    assert info.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE


def _props(md, data):
    split = PR.split(data, md.Format.decode(), md.Encoding, md.CodedCharSetId)
    return split, {name: p.value for name, p in split.properties.items()}


def _rfh2(body: bytes, folders: list[bytes]) -> tuple[ibmmq.MD, bytes]:
    """An RFH2 publication as ibmmq builds one (its RFH2 class), body in a string format."""
    rfh2 = ibmmq.RFH2(Format=CMQC.MQFMT_STRING, NameValueCCSID=1208, CodedCharSetId=1208)
    for folder in folders:
        rfh2.add_folder(folder)
    md = ibmmq.MD(Format=CMQC.MQFMT_RF_HEADER_2)
    return md, rfh2.pack() + body


def _close(sub, *, managed=True):
    sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=managed)
    if not managed:
        # A provided queue's handle belongs to the caller, who closes it; ibmmq's Subscription also
        # keeps it in a Queue whose finalizer would close it again (on whichever thread collects it).
        sub.sub_queue.set_handle(None)


def _local_queue(pcf, name, attrs=None):
    args = {CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES}
    args.update(attrs or {})
    pcf.MQCMD_CREATE_Q(args)
    return name


# --------------------------------------------------------------------------------------------------
# Who receives a publication
# --------------------------------------------------------------------------------------------------

def test_managed_provided_durable_and_admin_subscriptions_all_receive(qmgr, pcf):
    q = _local_queue(pcf, "PS.PROVIDED.1")
    provided_q = ibmmq.Queue(qmgr, q, CMQC.MQOO_INPUT_AS_Q_DEF)
    managed = _sub(qmgr, "ps/all/a")
    durable = _sub(qmgr, "ps/all/+", CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED, SubName="PS.DURABLE.1")
    provided = _sub(qmgr, "ps/all/#", CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE, queue=provided_q)
    pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: "PS.ADMIN.1", CMQC.MQCA_TOPIC_STRING: "ps/all/a",
                                   CMQCFC.MQCACF_DESTINATION: q})
    try:
        pub_md = _pub(qmgr, "ps/all/a", b"hello", ibmmq.MD(Format=CMQC.MQFMT_STRING, ReplyToQ=b"R.Q"))
        got = [_get(managed.get_sub_queue()), _get(durable.get_sub_queue())]
        got += [_get(provided_q), _get(provided_q)]  # the provided subscription and the admin one
        assert [data for _md, data in got] == [b"hello"] * 4
        correls = {md.CorrelId for md, _ in got}
        assert len(correls) == 4  # each subscription's own correlation id
        msg_ids = {md.MsgId for md, _ in got}
        assert len(msg_ids) == 4 and pub_md.MsgId not in msg_ids  # a new MsgId per copy
        for md, _ in got:
            assert md.Format.strip() == b"MQSTR" and md.ReplyToQ.strip() == b"R.Q"
            assert md.UserIdentifier.strip() == b"admin"
        _nothing(provided_q)
    finally:
        _close(managed)
        _close(durable)
        _close(provided, managed=False)
        pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: "PS.ADMIN.1"})
        provided_q.close()


def test_sub_levels_intercept(qmgr):
    final = _sub(qmgr, "ps/level", SubLevel=1)
    interceptor = _sub(qmgr, "ps/level", SubLevel=5)
    try:
        _pub(qmgr, "ps/level", b"from the top")  # PubLevel 9: the highest SubLevel <= 9 is 5
        assert _get(interceptor.get_sub_queue())[1] == b"from the top"
        _nothing(final.get_sub_queue())
        _pub(qmgr, "ps/level", b"republished", PubLevel=4)  # below the interceptor: the final subscriber
        assert _get(final.get_sub_queue())[1] == b"republished"
        _nothing(interceptor.get_sub_queue())
    finally:
        _close(final)
        _close(interceptor)


def test_group_subscriptions_get_one_copy_at_the_most_significant_member(qmgr, pcf):
    q = _local_queue(pcf, "PS.GROUP.1")
    queue = ibmmq.Queue(qmgr, q, CMQC.MQOO_INPUT_AS_Q_DEF)
    correl = b"GROUP-CORREL".ljust(24, b"\0")
    opts = CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_GROUP_SUB | CMQC.MQSO_SET_CORREL_ID
    broad = _sub(qmgr, "ps/group/#", opts, queue=queue, SubCorrelId=correl, SubUserData="broad")
    narrow = _sub(qmgr, "ps/group/a/#", opts, queue=queue, SubCorrelId=correl, SubUserData="narrow")
    try:
        _pub(qmgr, "ps/group/a/b", b"once")
        md, data = _get(queue, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)
        split, props = _props(md, data)
        assert split.body == b"once" and md.CorrelId == correl
        assert props["mqps.Sud"] == "narrow"  # the member whose topic is the longest before its wildcard
        _nothing(queue)
        with pytest.raises(ibmmq.MQMIError) as info:
            _sub(qmgr, "ps/group/#", opts, queue=queue, SubCorrelId=correl)
        assert info.value.reason == CMQC.MQRC_DUPLICATE_GROUP_SUB
        with pytest.raises(ibmmq.MQMIError) as info:  # a group is a queue + correlation id: not managed
            _sub(qmgr, "ps/group/x", opts | CMQC.MQSO_MANAGED, SubCorrelId=correl)
        assert info.value.reason == CMQC.MQRC_OPTIONS_ERROR
    finally:
        _close(broad, managed=False)
        _close(narrow, managed=False)
        queue.close()


def test_not_own_subs_and_warn_if_no_subs_matched(qmgr, server):
    mine = _sub(qmgr, "ps/own")
    other_qm = ibmmq.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")
    theirs = _sub(other_qm, "ps/own")
    try:
        _pub(qmgr, "ps/own", b"not to myself", Options=CMQC.MQPMO_NOT_OWN_SUBS)
        _nothing(mine.get_sub_queue())
        assert _get(theirs.get_sub_queue())[1] == b"not to myself"
        with pytest.raises(ibmmq.MQMIError) as info:
            _pub(qmgr, "ps/nobody/here", b"lost", Options=CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED)
        assert (info.value.comp, info.value.reason) == (CMQC.MQCC_WARNING, CMQC.MQRC_NO_SUBS_MATCHED)
    finally:
        _close(mine)
        _close(theirs)
        other_qm.disconnect()


# --------------------------------------------------------------------------------------------------
# The copy's MQMD
# --------------------------------------------------------------------------------------------------

def test_correlation_identity_priority_expiry_and_reply_to(qmgr):
    correl = b"MY-CORREL".ljust(24, b"\0")
    token = b"ACCOUNT".ljust(32, b"\0")
    opts = (CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED | CMQC.MQSO_SET_CORREL_ID
            | CMQC.MQSO_SET_IDENTITY_CONTEXT)
    sub = _sub(qmgr, "ps/identity", opts, SubCorrelId=correl, PubAccountingToken=token,
               PubApplIdentityData=b"APPDATA", PubPriority=7, SubExpiry=600)
    plain = _sub(qmgr, "ps/identity", PubPriority=CMQC.MQPRI_PRIORITY_AS_PUBLISHED)  # ibmmq's SD default is AS_Q_DEF
    queue_default = _sub(qmgr, "ps/identity")
    try:
        _pub(qmgr, "ps/identity", b"id", ibmmq.MD(Format=CMQC.MQFMT_STRING, ReplyToQ=b"ANSWER.Q", Priority=2,
                                                  Expiry=3000), Options=CMQC.MQPMO_SUPPRESS_REPLYTO)
        md, data = _get(sub.get_sub_queue())
        assert data == b"id" and md.CorrelId == correl
        assert md.AccountingToken == token and md.ApplIdentityData.strip() == b"APPDATA"
        assert md.Priority == 7
        assert 0 < md.Expiry <= 600  # the subscription ends before the message would
        assert md.ReplyToQ.strip(b" \0") == b"" and md.ReplyToQMgr.strip(b" \0") == b""
        md, _ = _get(plain.get_sub_queue())
        assert md.Priority == 2 and md.AccountingToken == bytes(32) and md.ApplIdentityData.strip(b" \0") == b""
        assert 600 < md.Expiry <= 3000
        md, _ = _get(queue_default.get_sub_queue())
        assert md.Priority == 0  # the managed queue's DefPriority
    finally:
        _close(sub)
        _close(plain)
        _close(queue_default)


# --------------------------------------------------------------------------------------------------
# Selectors and message properties
# --------------------------------------------------------------------------------------------------

def test_selection_string_picks_publications_by_property(qmgr, rfh2_puts):
    red = _sub(qmgr, "ps/sel/#", SelectionString="Colour = 'red' AND Size > 2")
    try:
        for colour, size in (("red", 5), ("blue", 5), ("red", 1)):
            md, data = _rfh2(f"{colour}-{size}".encode(),
                             [f"<usr><Colour>{colour}</Colour><Size dt='i4'>{size}</Size></usr>".encode()])
            _pub(qmgr, "ps/sel/shirts", data, md)
        md, data = _get(red.get_sub_queue())
        split, props = _props(md, data)
        assert split.body == b"red-5" and props["Colour"] == "red" and props["Size"] == 5
        assert props["mqps.Top"] == "ps/sel/shirts"  # asked for no handle, COMPAT gives the usr folder and all
        _nothing(red.get_sub_queue())
        with pytest.raises(ibmmq.MQMIError) as info:
            _sub(qmgr, "ps/sel/#", SelectionString="Colour = ")
        assert info.value.reason == CMQC.MQRC_SELECTOR_SYNTAX_ERROR
    finally:
        _close(red)


def test_admin_subscription_selector_and_its_inquiry(qmgr, pcf):
    q = _local_queue(pcf, "PS.SEL.ADMIN")
    name = "PS.SEL.ADMIN.SUB"
    pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name, CMQC.MQCA_TOPIC_STRING: "ps/asel",
                                   CMQCFC.MQCACF_DESTINATION: q, CMQCFC.MQCACF_SUB_SELECTOR: "JMSPriority >= 5"})
    queue = ibmmq.Queue(qmgr, q, CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        shown = pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name})[0]
        assert shown[CMQCFC.MQCACF_SUB_SELECTOR].strip() == b"JMSPriority >= 5"
        assert shown[CMQCFC.MQIACF_SELECTOR_TYPE] == 1  # MQSELTYPE_STANDARD
        _pub(qmgr, "ps/asel", b"low", ibmmq.MD(Format=CMQC.MQFMT_STRING, Priority=1))
        _pub(qmgr, "ps/asel", b"high", ibmmq.MD(Format=CMQC.MQFMT_STRING, Priority=8))
        assert _get(queue)[1] == b"high"
        _nothing(queue)
        with pytest.raises(ibmmq.MQMIError) as info:
            pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: "PS.SEL.BAD", CMQC.MQCA_TOPIC_STRING: "ps/asel",
                                           CMQCFC.MQCACF_DESTINATION: q, CMQCFC.MQCACF_SUB_SELECTOR: "a >"})
        assert info.value.reason == CMQC.MQRC_SELECTOR_SYNTAX_ERROR
    finally:
        queue.close()
        pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name})


def test_rfh2_publication_properties_reach_subscribers_per_get_options(qmgr, rfh2_puts):
    sub = _sub(qmgr, "ps/props", SubUserData="my data")
    try:
        md, data = _rfh2(b"body", [b"<usr><Colour>green</Colour></usr>"])
        _pub(qmgr, "ps/props", data, md)
        _pub(qmgr, "ps/props", b"plain")
        md, data = _get(sub.get_sub_queue())  # PROPCTL(COMPAT): a usr property brings them all back
        split, props = _props(md, data)
        assert md.Format.strip() == b"MQHRF2" and split.body == b"body" and split.fmt.strip() == "MQSTR"
        assert props == {"Colour": "green", "mqps.Top": "ps/props", "mqps.Sud": "my data"}
        md, data = _get(sub.get_sub_queue())  # only mqps properties: COMPAT gives the body alone
        assert data == b"plain" and md.Format.strip() == b"MQSTR"
        _pub(qmgr, "ps/props", b"forced")
        md, data = _get(sub.get_sub_queue(), CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)
        split, props = _props(md, data)
        assert split.body == b"forced" and props == {"mqps.Top": "ps/props", "mqps.Sud": "my data"}
        md, data = _rfh2(b"none", [b"<usr><Colour>green</Colour></usr>"])
        _pub(qmgr, "ps/props", data, md)
        md, data = _get(sub.get_sub_queue(), CMQC.MQGMO_NO_PROPERTIES)
        assert data == b"none" and md.Format.strip() == b"MQSTR"
    finally:
        _close(sub)


@pytest.mark.parametrize("psprop, check", [
    (CMQC.MQPSPROP_NONE, "none"), (CMQC.MQPSPROP_COMPAT, "compat"), (CMQC.MQPSPROP_RFH2, "rfh2"),
    (CMQC.MQPSPROP_MSGPROP, "msgprop")])
def test_publish_subscribe_properties_variants(qmgr, pcf, psprop, check):
    q = _local_queue(pcf, f"PS.PSPROP.{psprop}")
    name = f"PS.PSPROP.SUB.{psprop}"
    topic = f"ps/psprop/{psprop}"
    pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name, CMQC.MQCA_TOPIC_STRING: topic,
                                   CMQCFC.MQCACF_DESTINATION: q, CMQCFC.MQIACF_PUBSUB_PROPERTIES: psprop,
                                   CMQCFC.MQCACF_SUB_USER_DATA: "ud"})
    queue = ibmmq.Queue(qmgr, q, CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        _pub(qmgr, topic, b"payload")
        md, data = _get(queue, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)
        if check == "none":
            assert (md.Format.strip(), data) == (b"MQSTR", b"payload")
        elif check == "compat":
            assert md.Format.strip() == b"MQHRF"
            split = PR.split(data, "MQHRF", md.Encoding, md.CodedCharSetId)
            pairs = dict(PR.parse_name_value_string(split.headers[0].NameValueString))
            assert pairs["MQPSCommand"] == "Publish" and pairs["MQPSTopic"] == topic
            assert split.body == b"payload" and split.fmt.strip() == "MQSTR"
        elif check == "rfh2":
            split = PR.split(data, md.Format.decode(), md.Encoding, md.CodedCharSetId)
            assert split.body == b"payload" and any("<Topic>" + topic + "</Topic>" in f for f in split.folders)
        else:
            split, props = _props(md, data)
            assert split.body == b"payload" and props == {"mqps.Top": topic, "mqps.Sud": "ud"}
    finally:
        queue.close()
        pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name})


# --------------------------------------------------------------------------------------------------
# Retained publications and MQSUBRQ
# --------------------------------------------------------------------------------------------------

def test_retained_publication_is_sent_on_subscribe_and_on_request(qmgr):
    _pub(qmgr, "ps/retained/price", b"old", Options=CMQC.MQPMO_RETAIN)
    _pub(qmgr, "ps/retained/price", b"1.25", Options=CMQC.MQPMO_RETAIN)  # replaces the old one
    _pub(qmgr, "ps/retained/price", b"not retained")  # a plain publication leaves it alone
    late = _sub(qmgr, "ps/retained/#")
    fresh = _sub(qmgr, "ps/retained/#", CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_NEW_PUBLICATIONS_ONLY)
    asker = _sub(qmgr, "ps/retained/#", CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_PUBLICATIONS_ON_REQUEST)
    try:
        md, data = _get(late.get_sub_queue(), CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)
        split, props = _props(md, data)
        assert split.body == b"1.25" and props["mqps.Ret"] is True
        _nothing(late.get_sub_queue())
        _nothing(fresh.get_sub_queue())
        _nothing(asker.get_sub_queue())
        _pub(qmgr, "ps/retained/price", b"new, not retained")
        _nothing(asker.get_sub_queue())  # on request only: no ordinary publications
        assert _get(fresh.get_sub_queue())[1] == b"new, not retained"
        sro = ibmmq.SRO()
        asker.subrq(CMQC.MQSR_ACTION_PUBLICATION, sro)
        assert sro.NumPubs == 1
        assert _get(asker.get_sub_queue())[1] == b"1.25"
        with pytest.raises(ibmmq.MQMIError) as info:
            fresh.subrq(CMQC.MQSR_ACTION_PUBLICATION, ibmmq.SRO())
        assert info.value.reason == CMQC.MQRC_OPTIONS_ERROR  # not made PUBLICATIONS_ON_REQUEST
    finally:
        for sub in (late, fresh, asker):
            _close(sub)


def test_subrq_without_a_retained_publication(qmgr):
    asker = _sub(qmgr, "ps/never/retained",
                 CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_PUBLICATIONS_ON_REQUEST)
    try:
        with pytest.raises(ibmmq.MQMIError) as info:
            asker.subrq(CMQC.MQSR_ACTION_PUBLICATION, ibmmq.SRO())
        assert info.value.reason == CMQC.MQRC_NO_RETAINED_MSG
    finally:
        _close(asker)


# --------------------------------------------------------------------------------------------------
# MQSUB rules
# --------------------------------------------------------------------------------------------------

def test_resume_returns_the_subscription_and_alter_rules(qmgr, server):
    opts = CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED
    sub = _sub(qmgr, "ps/resume", opts, SubName="PS.RESUME", SubLevel=3, SubUserData="first", PubPriority=4,
               SelectionString="a = 1")
    sub.close(sub_close_options=CMQC.MQCO_KEEP_SUB, close_sub_queue=True)
    try:
        sd = ibmmq.SD(Options=CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED)
        sd.set_vs("SubName", "PS.RESUME")
        sd.set_vs("SubUserData", "", 64)
        sd.set_vs("SelectionString", "", 64)
        again = ibmmq.Subscription(qmgr)
        again.sub(sub_desc=sd)
        assert (sd.SubLevel, sd.PubPriority) == (3, 4)
        again.close(close_sub_queue=True)
        for change, reason in (({"SubLevel": 4}, CMQC.MQRC_SUBLEVEL_NOT_ALTERABLE),
                               ({"SelectionString": "a = 1"}, CMQC.MQRC_SELECTOR_NOT_ALTERABLE),
                               ({"Options": CMQC.MQSO_ALTER | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED},
                                CMQC.MQRC_DURABILITY_NOT_ALTERABLE)):
            fields = {"SubName": "PS.RESUME", "SubLevel": 3, **change}
            with pytest.raises(ibmmq.MQMIError) as info:
                _sub(qmgr, "ps/resume", fields.pop("Options", CMQC.MQSO_ALTER | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED),
                     **fields)
            assert info.value.reason == reason, change
        altered = _sub(qmgr, "ps/resume", CMQC.MQSO_ALTER | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED,
                       SubName="PS.RESUME", SubLevel=3, PubPriority=9)
        altered.close(close_sub_queue=True)
        app = ibmmq.connect("QM1", "DEV.APP.SVRCONN", server.conn_name, "app", "passw0rd")
        try:  # FIXED_USERID is the default: another user may not resume it
            with pytest.raises(ibmmq.MQMIError) as info:
                _sub(app, "", CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED, SubName="PS.RESUME")
            assert info.value.reason in (CMQC.MQRC_IDENTITY_MISMATCH, CMQC.MQRC_NOT_AUTHORIZED)
        finally:
            app.disconnect()
        with pytest.raises(ibmmq.MQMIError) as info:
            _sub(qmgr, "ps/resume", CMQC.MQSO_RESUME | CMQC.MQSO_NEW_PUBLICATIONS_ONLY | CMQC.MQSO_DURABLE,
                 SubName="PS.RESUME")
        assert info.value.reason == CMQC.MQRC_OPTIONS_ERROR
    finally:
        _sub(qmgr, "ps/resume", CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED,
             SubName="PS.RESUME").close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)


def test_app_user_subscribes_and_publishes_under_dev(server):
    app = ibmmq.connect("QM1", "DEV.APP.SVRCONN", server.conn_name, "app", "passw0rd")
    try:
        sub = _sub(app, "dev/prices/#")
        _pub(app, "dev/prices/apples", b"1.20")
        assert _get(sub.get_sub_queue())[1] == b"1.20"
        _close(sub)
        with pytest.raises(ibmmq.MQMIError) as info:
            _sub(app, "private/prices")
        assert info.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        app.disconnect()


# --------------------------------------------------------------------------------------------------
# What a destination cannot take
# --------------------------------------------------------------------------------------------------

def test_undeliverable_copy_goes_to_the_dead_letter_queue_with_a_dlh(qmgr, pcf):
    q = _local_queue(pcf, "PS.FULL.1", {CMQC.MQIA_MAX_Q_DEPTH: 1})
    queue = ibmmq.Queue(qmgr, q, CMQC.MQOO_INPUT_AS_Q_DEF)
    sub = _sub(qmgr, "ps/dlq", CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE, queue=queue)
    dlq = ibmmq.Queue(qmgr, "DEV.DEAD.LETTER.QUEUE", CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        _pub(qmgr, "ps/dlq", b"fits")
        _pub(qmgr, "ps/dlq", b"does not fit")  # NPMSGDLV(ALLAVAIL), USEDLQ(YES): the copy is dead-lettered
        assert _get(queue)[1] == b"fits"
        md, data = _get(dlq)
        assert md.Format.strip() == b"MQDEAD"
        dlh = ibmmq.DLH()
        dlh.unpack(data[:172])
        assert dlh.Reason == CMQC.MQRC_Q_FULL and dlh.DestQName.strip() == q.encode()
        assert dlh.Format.strip() == b"MQSTR" and data[172:] == b"does not fit"
    finally:
        _close(sub, managed=False)
        queue.close()
        dlq.close()


def test_delivery_rule_all_fails_the_put_and_delivers_nothing(qmgr, pcf):
    pcf.MQCMD_CREATE_TOPIC({CMQC.MQCA_TOPIC_NAME: "PS.STRICT", CMQC.MQCA_TOPIC_STRING: "ps/strict",
                            CMQC.MQIA_NPM_DELIVERY: CMQC.MQDLV_ALL, CMQC.MQIA_USE_DEAD_LETTER_Q: CMQC.MQUSEDLQ_NO,
                            CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    q = _local_queue(pcf, "PS.INHIBITED", {CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED})
    fine = _sub(qmgr, "ps/strict")
    browse = ibmmq.Queue(qmgr, q, CMQC.MQOO_BROWSE)
    blocked = _sub(qmgr, "ps/strict", CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE, queue=browse)
    try:
        with pytest.raises(ibmmq.MQMIError) as info:
            _pub(qmgr, "ps/strict", b"all or nothing")
        assert info.value.reason == CMQC.MQRC_PUBLICATION_FAILURE
        _nothing(fine.get_sub_queue())
    finally:
        _close(fine)
        _close(blocked, managed=False)
        browse.close()
        pcf.MQCMD_DELETE_TOPIC({CMQC.MQCA_TOPIC_NAME: "PS.STRICT"})


# --------------------------------------------------------------------------------------------------
# The publish exit (tests/client/publish_exits.py, configured for this module's server)
# --------------------------------------------------------------------------------------------------

def test_publish_exit_suppresses_reroutes_changes_and_fails_safely(qmgr, pcf):
    q = _local_queue(pcf, "PS.EXIT.REROUTED")
    rerouted = ibmmq.Queue(qmgr, q, CMQC.MQOO_INPUT_AS_Q_DEF)
    sub = _sub(qmgr, "ps/exit/#")
    try:
        _pub(qmgr, "ps/exit/suppress", b"never seen")
        _nothing(sub.get_sub_queue())
        _pub(qmgr, "ps/exit/reroute", b"elsewhere")
        _nothing(sub.get_sub_queue())
        assert _get(rerouted)[1] == b"elsewhere"
        _pub(qmgr, "ps/exit/change", b"original")
        md, data = _get(sub.get_sub_queue())
        assert data == b"changed by the exit" and md.Priority == 9
        _pub(qmgr, "ps/exit/raise", b"the exit raises")  # ALLAVAIL + DLQ: dead-lettered, publisher unaffected
        _nothing(sub.get_sub_queue())
        dlq = ibmmq.Queue(qmgr, "DEV.DEAD.LETTER.QUEUE", CMQC.MQOO_INPUT_AS_Q_DEF)
        try:
            md, data = _get(dlq)
            dlh = ibmmq.DLH()
            dlh.unpack(data[:172])
            assert dlh.Reason == CMQC.MQRC_PUBLISH_EXIT_ERROR and data[172:] == b"the exit raises"
        finally:
            dlq.close()
    finally:
        _close(sub)
        rerouted.close()


def test_topic_status_shows_a_retained_publication_until_clear_topic_string(qmgr, pcf):
    _pub(qmgr, "ps/clear/me", b"kept", Options=CMQC.MQPMO_RETAIN)

    def retained() -> int:
        status = pcf.MQCMD_INQUIRE_TOPIC_STATUS({CMQC.MQCA_TOPIC_STRING: "ps/clear/me"})[0]
        return status[CMQCFC.MQIACF_RETAINED_PUBLICATION]

    assert retained() == 1  # MQQSO_YES
    pcf.MQCMD_CLEAR_TOPIC_STRING({CMQC.MQCA_TOPIC_STRING: "ps/clear/me", CMQCFC.MQIACF_CLEAR_TYPE: 1})  # RETAINED
    late = _sub(qmgr, "ps/clear/me")
    try:
        _nothing(late.get_sub_queue())  # nothing retained any more
        assert retained() == 0  # (the subscription keeps the node in the topic tree)
    finally:
        _close(late)
    pcf.MQCMD_CLEAR_TOPIC_STRING({CMQC.MQCA_TOPIC_STRING: "ps/clear/me", CMQCFC.MQIACF_CLEAR_TYPE: 1})  # none: fine


def test_an_administered_subscription_gets_the_retained_publication(qmgr, pcf):
    q = _local_queue(pcf, "PS.ADMIN.RETAINED")
    _pub(qmgr, "ps/admin/retained", b"state", Options=CMQC.MQPMO_RETAIN)
    pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: "PS.ADMIN.RETAINED", CMQCFC.MQCACF_DESTINATION: q,
                                   CMQC.MQCA_TOPIC_STRING: "ps/admin/retained"})
    queue = ibmmq.Queue(qmgr, q, CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        md, data = _get(queue, CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2)
        split, props = _props(md, data)
        assert split.body == b"state" and props["mqps.Ret"] is True
    finally:
        queue.close()
        pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: "PS.ADMIN.RETAINED"})
