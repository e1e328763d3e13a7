"""IBM's ``ibmmq`` with OpenTelemetry over qmlite (issue 15).

With ``opentelemetry-api`` importable, ``import ibmmq`` turns on its trace propagation (``ibmmq/mqotel.py``):
every put goes through a message handle (MQCRTMH) that carries the current span as the ``traceparent``
property, every open for input inquires the queue's PropertyControl (MQINQ of MQIA_PROPERTY_CONTROL,
the only selector the layer asks for), and a get adds its own message handle when the application or
the queue would otherwise drop properties, then links the consumer's span to the producer's context.
The SDK (``opentelemetry-sdk``) makes real spans, so a real ``traceparent`` travels.  The same scenarios
run once more in a subprocess with ``MQIPY_NOOTEL=1`` (the layer off): both must work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC  # noqa: E402
from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402

APP = "DEV.APP.SVRCONN"
MODEL = "DEV.APP.MODEL.QUEUE"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-otel")) as srv:
        srv.mqsc("DEFINE QLOCAL(DEV.OTEL.NOPROPS) PROPCTL(NONE)\n"
                 "DEFINE QALIAS(DEV.OTEL.ALIAS) TARGET(DEV.OTEL.NOPROPS)")
        yield srv


@pytest.fixture(scope="module")
def tracer():
    # A provider of our own (not the global one): ibmmq reads the *current* span from the context.
    return TracerProvider().get_tracer("qmlite-tests")


@pytest.fixture
def inquiries(monkeypatch):
    """Every MQINQ made through ibmmq, with the queue manager's answer: (selectors, cc, rc)."""
    seen = []
    real = ibmmq.ibmmqc.MQINQ

    def spy(hconn, hobj, selectors, *rest):
        out = real(hconn, hobj, selectors, *rest)
        seen.append((list(selectors), out[-2], out[-1]))
        return out

    monkeypatch.setattr(ibmmq.ibmmqc, "MQINQ", spy)
    return seen


def _traceparent(span) -> str:
    ctx = span.get_span_context()
    return f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-{int(ctx.trace_flags):02x}"


def _app(server):
    return ibmmq.connect("QM1", APP, server.conn_name)


def _drain(queue):
    while True:
        try:
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
        except ibmmq.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return


def test_the_otel_layer_is_on():
    # Otherwise the tests below would exercise nothing of it.
    assert ibmmq.OTelFunctions.put_trace_before is not None and ibmmq.OTelFunctions.open is not None
    assert os.environ.get("AMQ_OTEL_INSTRUMENTED") == "true"


def test_span_travels_as_traceparent_with_user_properties(server, tracer, inquiries):
    qm = _app(server)
    queue = ibmmq.Queue(qm, "DEV.QUEUE.1", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    _drain(queue)
    # The open for input inquired PropertyControl, and the queue manager answered.
    assert inquiries == [([CMQC.MQIA_PROPERTY_CONTROL], CMQC.MQCC_OK, CMQC.MQRC_NONE)]

    put_mh = ibmmq.MessageHandle(qm)
    put_mh.properties.set("tenant", "acme")
    with tracer.start_as_current_span("producer") as producer:
        pmo = ibmmq.PMO(Version=CMQC.MQPMO_VERSION_3, OriginalMsgHandle=put_mh.msg_handle)
        queue.put(b"order 1", ibmmq.MD(), pmo)          # the application's own handle: OTel adds to it
        queue.put(b"order 2")                             # no handle: OTel's own (MQCRTMH)
    expected = _traceparent(producer)

    get_mh = ibmmq.MessageHandle(qm)
    gmo = ibmmq.GMO(Version=CMQC.MQGMO_VERSION_4, MsgHandle=get_mh.msg_handle,
                    Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    with tracer.start_as_current_span("consumer") as consumer:
        body = queue.get(None, ibmmq.MD(), gmo)
    assert body == b"order 1"
    assert get_mh.properties.get("tenant") == "acme"
    assert get_mh.properties.get("traceparent") == expected
    assert [link.context.span_id for link in consumer.links] == [producer.get_span_context().span_id]

    # PropertyControl COMPAT and no handle: the properties come in an MQRFH2, as from a queue manager;
    # OTel still finds the context there, and remove_rfh2 gives the application the bare body.
    md = ibmmq.MD()
    with tracer.start_as_current_span("consumer2") as consumer2:
        body = queue.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT),
                         otel_options=ibmmq.OTelOptions(remove_rfh2=True))
    assert (body, md.Format) == (b"order 2", CMQC.MQFMT_NONE)  # the MQRFH2 taken off, its Format restored
    assert [link.context.trace_id for link in consumer2.links] == [producer.get_span_context().trace_id]
    assert all(cc == CMQC.MQCC_OK for _, cc, _ in inquiries)
    queue.close()
    qm.disconnect()


def test_propctl_none_queue_gets_the_context_through_the_layers_own_handle(server, tracer, inquiries):
    qm = _app(server)
    out = ibmmq.Queue(qm, "DEV.OTEL.NOPROPS", CMQC.MQOO_OUTPUT)
    with tracer.start_as_current_span("producer") as producer:
        out.put(b"plain")
    # Opened through the alias (its own PropertyControl, COMPAT) and directly (NONE).
    via_alias = ibmmq.Queue(qm, "DEV.OTEL.ALIAS", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    direct = ibmmq.Queue(qm, "DEV.OTEL.NOPROPS", CMQC.MQOO_INPUT_SHARED)
    assert [(s, cc) for s, cc, _ in inquiries] == [([CMQC.MQIA_PROPERTY_CONTROL], CMQC.MQCC_OK)] * 2
    assert via_alias.inquire(CMQC.MQIA_PROPERTY_CONTROL) == CMQC.MQPROP_COMPATIBILITY
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)
    md = ibmmq.MD()
    with tracer.start_as_current_span("consumer") as consumer:
        body = direct.get(None, md, gmo)
    assert body == b"plain" and md.Format == CMQC.MQFMT_NONE  # PROPCTL(NONE): no MQRFH2 reaches the app
    assert gmo.MsgHandle == 0  # the layer's handle was taken back out of the caller's MQGMO
    assert [link.context.span_id for link in consumer.links] == [producer.get_span_context().span_id]
    for q in (out, via_alias, direct):
        q.close()
    qm.disconnect()


def test_async_consume_links_each_message_to_its_producer(server, tracer):
    """MQCB/MQCTL: the dispatcher (START_WAIT: the caller's thread, inside its span) reads the context
    from the message's MQRFH2 (PROPCTL COMPAT) before the application's callback runs; remove_rfh2
    gives the callback the bare body.  (On a PROPCTL NONE queue ibmmq 2.1.2's layer fails at MQCB
    registration in Python, AttributeError, as with IBM's library: docs/ecosystem.md.)"""
    qm = _app(server)
    queue = ibmmq.Queue(qm, "DEV.QUEUE.3", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    _drain(queue)
    with tracer.start_as_current_span("producer") as producer:
        queue.put(b"async")
    seen = []

    def consumer(queue_manager, queue, md, gmo, msg, cbc):
        if cbc.CallType == CMQC.MQCBCT_MSG_REMOVED:
            seen.append((msg, md.Format))
            queue_manager.ctl(CMQC.MQOP_STOP, ibmmq.CTLO())

    with tracer.start_as_current_span("dispatcher") as dispatcher:
        queue.cb(operation=CMQC.MQOP_REGISTER, cbd=ibmmq.CBD(CallbackFunction=consumer), md=ibmmq.MD(),
                 gmo=ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT), otel_options=ibmmq.OTelOptions(remove_rfh2=True))
        qm.ctl(CMQC.MQOP_START_WAIT, ibmmq.CTLO())  # returns when the callback stops the connection
    assert seen == [(b"async", CMQC.MQFMT_NONE)]
    assert [link.context.span_id for link in dispatcher.links] == [producer.get_span_context().span_id]
    queue.close()
    qm.disconnect()


def test_property_control_is_answered_on_each_kind_of_object(server):
    qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", server.conn_name, "admin", "passw0rd")
    values = {}
    for name in ("DEV.QUEUE.1", "DEV.OTEL.ALIAS", "DEV.OTEL.NOPROPS"):
        q = ibmmq.Queue(qm, name, CMQC.MQOO_INQUIRE)
        values[name] = q.inquire(CMQC.MQIA_PROPERTY_CONTROL)
        q.close()
    od = ibmmq.OD(ObjectName=MODEL, DynamicQName="DEV.OTEL.*")
    dyn = ibmmq.Queue(qm, od, CMQC.MQOO_INQUIRE | CMQC.MQOO_INPUT_EXCLUSIVE)
    values["dynamic"] = dyn.inquire(CMQC.MQIA_PROPERTY_CONTROL)
    dyn.close()
    assert values == {"DEV.QUEUE.1": CMQC.MQPROP_COMPATIBILITY, "DEV.OTEL.ALIAS": CMQC.MQPROP_COMPATIBILITY,
                      "DEV.OTEL.NOPROPS": CMQC.MQPROP_NONE, "dynamic": CMQC.MQPROP_COMPATIBILITY}
    # The queue manager object has no PropertyControl: the selector is refused, as MQ refuses it.
    with pytest.raises(ibmmq.MQMIError) as err:
        qm.inquire(CMQC.MQIA_PROPERTY_CONTROL)
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_SELECTOR_ERROR)
    qm.disconnect()


def _queue_exists(server, name: str) -> bool:
    admin = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", server.conn_name, "admin", "passw0rd")
    pcf = ibmmq.PCFExecute(admin)
    try:
        pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: name})
        return True
    except ibmmq.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        return False
    finally:
        pcf.disconnect()
        admin.disconnect()


def test_request_reply_through_the_model_queue_as_app(server, tracer, inquiries):
    requester = _app(server)
    od = ibmmq.OD(ObjectName=MODEL, DynamicQName="DEV.REPLY.*")
    reply_q = ibmmq.Queue(requester, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    reply_name = od.ObjectName.decode().strip()
    # OTel's inquiry on the new temporary dynamic queue (opened again for MQOO_INQUIRE) was answered.
    assert [(s, cc) for s, cc, _ in inquiries] == [([CMQC.MQIA_PROPERTY_CONTROL], CMQC.MQCC_OK)]
    assert reply_name.startswith("DEV.REPLY.") and _queue_exists(server, reply_name)

    requests = ibmmq.Queue(requester, "DEV.QUEUE.2", CMQC.MQOO_OUTPUT)
    with tracer.start_as_current_span("request") as request_span:
        md = ibmmq.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=reply_name, Format=CMQC.MQFMT_STRING)
        requests.put(b"ping", md)
    request_id = md.MsgId

    responder = _app(server)
    inbox = ibmmq.Queue(responder, "DEV.QUEUE.2", CMQC.MQOO_INPUT_AS_Q_DEF)
    in_md = ibmmq.MD()
    with tracer.start_as_current_span("respond") as respond_span:
        body = inbox.get(None, in_md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT),
                         otel_options=ibmmq.OTelOptions(remove_rfh2=True))
        assert body == b"ping"
        responder.put1(in_md.ReplyToQ.decode().strip(), b"pong",
                       ibmmq.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=in_md.MsgId, Format=CMQC.MQFMT_STRING))
    assert [link.context.span_id for link in respond_span.links] == [request_span.get_span_context().span_id]

    get_mh = ibmmq.MessageHandle(requester)
    gmo = ibmmq.GMO(Version=CMQC.MQGMO_VERSION_4, MsgHandle=get_mh.msg_handle, WaitInterval=5000,
                    Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    reply_md = ibmmq.MD(CorrelId=request_id)
    assert reply_q.get(None, reply_md, gmo) == b"pong"
    assert get_mh.properties.get("traceparent") == _traceparent(respond_span)
    assert reply_md.MsgType == CMQC.MQMT_REPLY

    reply_q.close()  # a temporary dynamic queue is deleted when closed
    assert not _queue_exists(server, reply_name)
    with pytest.raises(ibmmq.MQMIError) as err:
        ibmmq.Queue(requester, reply_name, CMQC.MQOO_OUTPUT)
    assert err.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    for q in (requests, inbox):
        q.close()
    requester.disconnect()
    responder.disconnect()


NO_OTEL = textwrap.dedent('''
    import json, sys
    import ibmmq
    from ibmmq import CMQC
    conn = sys.argv[1]
    out = {"otel": ibmmq.OTelFunctions.put_trace_before is not None}
    qm = ibmmq.connect("QM1", "DEV.APP.SVRCONN", conn)
    od = ibmmq.OD(ObjectName="DEV.APP.MODEL.QUEUE", DynamicQName="DEV.NOOTEL.*")
    reply_q = ibmmq.Queue(qm, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    reply_name = od.ObjectName.decode().strip()
    mh = ibmmq.MessageHandle(qm)
    mh.properties.set("tenant", "acme")
    q = ibmmq.Queue(qm, "DEV.QUEUE.3", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    md = ibmmq.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=reply_name)
    q.put(b"ping", md, ibmmq.PMO(Version=CMQC.MQPMO_VERSION_3, OriginalMsgHandle=mh.msg_handle))
    got = ibmmq.MessageHandle(qm)
    in_md = ibmmq.MD()
    body = q.get(None, in_md, ibmmq.GMO(Version=CMQC.MQGMO_VERSION_4, MsgHandle=got.msg_handle,
                                       Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE))
    try:
        got.properties.get("traceparent")
        out["traceparent"] = True
    except ibmmq.MQMIError as exc:
        out["traceparent"] = exc.reason
    out["body"], out["tenant"] = body.decode(), got.properties.get("tenant")
    qm.put1(in_md.ReplyToQ.decode().strip(), b"pong", ibmmq.MD(CorrelId=in_md.MsgId))
    out["reply"] = reply_q.get(None, ibmmq.MD(CorrelId=md.MsgId),
                               ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)).decode()
    reply_q.close()
    try:
        ibmmq.Queue(qm, reply_name, CMQC.MQOO_OUTPUT)
        out["after_close"] = 0
    except ibmmq.MQMIError as exc:
        out["after_close"] = exc.reason
    q.close()
    qm.disconnect()
    print(json.dumps(out))
''')


def test_the_same_without_otel(server, tmp_path):
    script = tmp_path / "no_otel.py"
    script.write_text(NO_OTEL)
    env = {**os.environ, "MQIPY_NOOTEL": "1"}
    env.pop("AMQ_OTEL_INSTRUMENTED", None)
    out = subprocess.run([sys.executable, str(script), server.conn_name], check=True, capture_output=True,
                         text=True, env=env, timeout=120)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"otel": False, "traceparent": CMQC.MQRC_PROPERTY_NOT_AVAILABLE, "body": "ping",
                      "tenant": "acme", "reply": "pong", "after_close": CMQC.MQRC_UNKNOWN_OBJECT_NAME}


def test_no_model_queue_without_developer_objects(tmp_path):
    from qmlite.server import config

    assert config.load(environ={"MQ_DEV": "false"}, overrides={"data_dir": tmp_path}).dev_objects is False
    with running_qmlite(tmp_path / "data", dev_objects=False) as srv:  # what MQ_DEV=false sets
        qm = ibmmq.connect("QM1", "SYSTEM.DEF.SVRCONN", srv.conn_name, "admin", "passw0rd")
        pcf = ibmmq.PCFExecute(qm)
        names = {r[CMQC.MQCA_Q_NAME].decode().strip() for r in pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"*"})}
        assert MODEL not in names and not any(n.startswith("DEV.") for n in names)
        assert "SYSTEM.DEFAULT.MODEL.QUEUE" in names  # the model queues every queue manager has
        with pytest.raises(ibmmq.MQMIError) as err:
            ibmmq.Queue(qm, ibmmq.OD(ObjectName=MODEL, DynamicQName="X.*"), CMQC.MQOO_INPUT_EXCLUSIVE)
        assert err.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        with pytest.raises(ibmmq.MQMIError) as err:
            ibmmq.connect("QM1", APP, srv.conn_name)
        assert err.value.reason == CMQC.MQRC_UNKNOWN_CHANNEL_NAME
        pcf.disconnect()
        qm.disconnect()
