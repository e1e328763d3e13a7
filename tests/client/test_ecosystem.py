"""Frameworks built on ``ibmmq`` and on pymqi, installed unchanged from the package index, against a
qmlite server this module starts (issue 15; docs/ecosystem.md):

* robotframework-ibmmq (Robot Framework keyword library, on ibmmq): ``robot`` runs a suite this test writes.
* faststream-mq (FastStream's IBM MQ broker, asyncio, on ibmmq): subscribers, publish with headers,
  request/reply through ``DEV.APP.MODEL.QUEUE``, its OpenTelemetry middleware with ibmmq's own layer.
* stream-pymqi (consumer broker on pymqi): its IbmMqBroker consuming two queues on its threads.

``scripts/test`` installs them (robotframework-ibmmq and faststream-mq through the ``dev`` extra, stream-pymqi
with pymqi, which it needs); nothing of theirs is patched."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import threading

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402

APP = "DEV.APP.SVRCONN"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ecosystem")) as srv:
        yield srv


def _admin(server):
    return ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", server.conn_name, "admin", "passw0rd")


def _depth(server, queue: str) -> int:
    qm = _admin(server)
    try:
        q = ibmmq.Queue(qm, queue, CMQC.MQOO_INQUIRE)
        depth = q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        q.close()
        return depth
    finally:
        qm.disconnect()


def _queue_names(server, pattern: bytes) -> set[str]:
    qm = _admin(server)
    pcf = ibmmq.PCFExecute(qm)
    try:
        return {r[CMQC.MQCA_Q_NAME].decode().strip() for r in pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: pattern})}
    except ibmmq.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        return set()
    finally:
        pcf.disconnect()
        qm.disconnect()


# --------------------------------------------------------------------------------------------------
# robotframework-ibmmq
# --------------------------------------------------------------------------------------------------

ROBOT_SUITE = textwrap.dedent('''\
    *** Settings ***
    Library    IBMMQLibrary

    *** Variables ***
    ${PORT}    1414

    *** Test Cases ***
    Put Browse Get Clear
        Connect MQ    queue_manager=QM1    hostname=127.0.0.1    port=${PORT}    channel=DEV.APP.SVRCONN
        Put MQ Message    queue=DEV.QUEUE.1    message=Hello één
        Put MQ Message    queue=DEV.QUEUE.1    message=Second
        ${browsed}=    Browse MQ Messages    queue=DEV.QUEUE.1    max_messages=5    timeout=0
        Should Be Equal    ${browsed}    ${{["Hello één", "Second"]}}
        ${got}=    Get MQ Messages    queue=DEV.QUEUE.1    message_amount=1
        Should Be Equal    ${got}    ${{["Hello één"]}}
        Clear MQ Queue    queue=DEV.QUEUE.1
        ${none}=    Browse MQ Messages    queue=DEV.QUEUE.1    timeout=0
        Should Be Empty    ${none}
        Run Keyword And Expect Error    *Expected 1 message(s), but received 0*
        ...    Get MQ Messages    queue=DEV.QUEUE.1    timeout=0.1s
        Put MQ Message    queue=DEV.QUEUE.2    message=left for the test
        Disconnect MQ

    Two Aliases
        Connect MQ    QM1    127.0.0.1    ${PORT}    DEV.APP.SVRCONN    alias=a
        Connect MQ    QM1    127.0.0.1    ${PORT}    DEV.ADMIN.SVRCONN    admin    passw0rd    alias=b
        Put MQ Message    queue=DEV.QUEUE.3    message=via a    alias=a
        ${got}=    Get MQ Messages    queue=DEV.QUEUE.3    alias=b
        Should Be Equal    ${got}    ${{["via a"]}}
        Disconnect All MQ Connections

    Refused Connections Name The Reason
        Run Keyword And Expect Error    *2540*
        ...    Connect MQ    QM1    127.0.0.1    ${PORT}    NO.SUCH.CHANNEL
        Run Keyword And Expect Error    *2035*
        ...    Connect MQ    QM1    127.0.0.1    ${PORT}    DEV.ADMIN.SVRCONN    admin    wrong
        Connect MQ    QM1    127.0.0.1    ${PORT}    DEV.APP.SVRCONN    alias=c
        Run Keyword And Expect Error    *Reason 2085*
        ...    Browse MQ Messages    queue=DEV.NO.SUCH.QUEUE    alias=c
        Disconnect MQ    alias=c
''')


def test_robotframework_ibmmq_keywords(server, tmp_path):
    suite = tmp_path / "mq.robot"
    suite.write_text(ROBOT_SUITE, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "robot", "--variable", f"PORT:{server.port}",
                          "--outputdir", str(tmp_path / "out"), "--console", "verbose", str(suite)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 tests, 3 passed, 0 failed" in out.stdout
    # What the suite left behind is on the queue manager, as a queue manager keeps it.
    assert _depth(server, "DEV.QUEUE.2") == 1
    qm = _admin(server)
    q = ibmmq.Queue(qm, "DEV.QUEUE.2")
    md = ibmmq.MD()
    assert q.get(None, md) == b"left for the test" and md.CodedCharSetId == 1208
    q.close()
    qm.disconnect()


# --------------------------------------------------------------------------------------------------
# faststream-mq
# --------------------------------------------------------------------------------------------------

def test_faststream_mq_subscribers_publish_and_request_reply(server):
    from faststream_mq import MQBroker, MQMessage
    from faststream_mq.opentelemetry import MQTelemetryMiddleware
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))

    async def scenario():
        broker = MQBroker("QM1", channel=APP, conn_name=server.conn_name,
                          middlewares=[MQTelemetryMiddleware(tracer_provider=provider)])
        seen: asyncio.Queue = asyncio.Queue()

        @broker.subscriber("DEV.QUEUE.1")
        async def echo(body: str) -> str:
            return f"echo:{body}"

        @broker.subscriber("DEV.QUEUE.2")
        async def collect(body: dict, msg: MQMessage) -> None:
            await seen.put((body, dict(msg.headers), msg.correlation_id))

        async with broker:
            await broker.start()
            await broker.publish({"n": 1}, "DEV.QUEUE.2", headers={"tenant": "acme", "count": "3"},
                                 correlation_id="c0ffee" * 8)
            body, headers, correlation_id = await asyncio.wait_for(seen.get(), 30)
            reply = await broker.request("hi", "DEV.QUEUE.1", timeout=30)
            reply_body = await reply.decode()
            with pytest.raises(ibmmq.MQMIError) as err:
                await broker.publish("x", "DEV.NO.SUCH.QUEUE")
        return body, headers, correlation_id, reply_body, err.value.reason

    body, headers, correlation_id, reply_body, unknown = asyncio.run(scenario())
    assert body == {"n": 1}
    assert {k: headers[k] for k in ("tenant", "count", "content-type")} == {
        "tenant": "acme", "count": "3", "content-type": "application/json"}
    assert headers["traceparent"].startswith("00-")
    assert correlation_id == "c0ffee" * 8
    assert reply_body == "echo:hi"
    assert unknown == CMQC.MQRC_UNKNOWN_OBJECT_NAME

    finished = {s.name: s for s in spans.get_finished_spans()}
    # The consumer's span continues the publisher's trace: the context crossed qmlite as a property.
    assert finished["DEV.QUEUE.2 process"].context.trace_id == finished["DEV.QUEUE.2 publish"].context.trace_id
    assert headers["traceparent"].split("-")[1] == f'{finished["DEV.QUEUE.2 publish"].context.trace_id:032x}'
    reply_queues = [n.split()[0] for n in finished if n.startswith("FASTSTREAM.REPLY.")]
    assert reply_queues, sorted(finished)
    # The request's reply queue was a temporary dynamic queue from DEV.APP.MODEL.QUEUE: gone after use.
    assert _queue_names(server, b"FASTSTREAM.*") == set()


# --------------------------------------------------------------------------------------------------
# stream-pymqi
# --------------------------------------------------------------------------------------------------

def test_stream_pymqi_broker_consumes_on_its_threads(server):
    if os.environ.get("QMLITE_REQUIRE_PYMQI"):  # scripts/test installs both: never skip there
        import pymqi
        import stream_pymqi as stream
    else:
        pymqi = pytest.importorskip("pymqi")
        stream = pytest.importorskip("stream_pymqi")
    from stream_pymqi.connection import Connection

    config = stream.StreamConfig(host="127.0.0.1", port=server.port, channel=APP, queue_manager="QM1",
                                 queue_name="DEV.QUEUE.3", auto_reconnect=False)
    broker = stream.IbmMqBroker(config=config)
    got: list = []
    three = threading.Event()

    def record(tag, value):
        got.append((tag, value))
        if len([g for g in got if g[1] != "wake"]) == 3:
            three.set()

    @broker.queue("DEV.QUEUE.1")
    def orders(message):
        record("1", message.to_string())

    @broker.queue("DEV.QUEUE.3")
    def events(message):
        record("3", message.to_json() if message.data.startswith(b"{") else message.to_string())

    broker.start()
    with Connection(config) as conn:
        q1 = pymqi.Queue(conn.queue_manager, "DEV.QUEUE.1")
        q3 = pymqi.Queue(conn.queue_manager, "DEV.QUEUE.3")
        q1.put(b"first")
        q3.put(stream.Message.from_json({"event": "created"}).data)
        q1.put(b"second")
        assert three.wait(30), got
        assert [g for g in got if g[0] == "1"] == [("1", "first"), ("1", "second")]
        assert ("3", {"event": "created"}) in got

        # IbmMqBroker.stop() clears its flag and joins the threads, which sit in an unlimited MQGET:
        # a message wakes each one to see the flag (one more if it woke before the flag was cleared).
        stopper = threading.Thread(target=broker.stop)
        stopper.start()
        for _ in range(20):
            for q in (q1, q3):
                q.put(b"wake")
            stopper.join(1.0)
            if not stopper.is_alive():
                break
        q1.close()
        q3.close()
    assert not stopper.is_alive()
    assert not [t for t in threading.enumerate() if t.name.startswith("Broker-DEV.QUEUE.")]
