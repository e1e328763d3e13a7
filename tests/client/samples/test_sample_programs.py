"""IBM's sample programs, installed as console scripts, run from shell scripts against a queue manager the
test starts (a virtual clock: the samples' 5, 15, 30 and 60 second waits end when the test moves it),
their output compared line by line with what IBM's samples print (amqsput0.c, amqsget0.c, amqsgbr0.c,
amqspuba.c, amqssuba.c, amqsreq0.c, amqsinqa.c, amqsseta.c; docs/samples.md)."""

from __future__ import annotations

import json

import pytest

from qmlite.pcf import constants as C

from .samplerun import Running, environment, run


@pytest.fixture
def server(qmlite_virtual):
    return qmlite_virtual


def test_put_browse_and_get_through_a_script_with_the_fifteen_second_wait(server):
    script = Running("put_browse_get.sh", environment(server))
    server.clock.wait_for_waits(1)  # amqsgetc has taken both messages and waits for more
    server.clock.advance(14.9)
    assert server.clock.status()["waits"] == 1  # not yet: IBM's sample waits 15 seconds
    server.clock.advance(0.1)
    code, out = script.finish()
    assert code == 0
    assert out.splitlines() == [
        "Sample AMQSPUT0 start",
        "target queue is DEV.QUEUE.1",
        "Sample AMQSPUT0 end",
        "amqsputc exit 0",
        "Sample AMQSGBR0 (browse) start",
        "QM1",
        "Messages for " + "DEV.QUEUE.1".ljust(48),
        "1 <first message>",
        "2 <second message>",
        "no more messages",
        "Sample AMQSGBR0 (browse) end",
        "amqsgbrc exit 0",
        "Sample AMQSGET0 start",
        "message <first message>",
        "message <second message>",
        "no more messages",
        "Sample AMQSGET0 end",
        "amqsgetc exit 0",
        "Sample AMQSGBR0 (browse) start",
        "QM1",
        "no more messages",
        "Sample AMQSGBR0 (browse) end",
        "amqsgbrc exit 0",
    ]


def test_the_local_names_reach_the_server_on_this_machine_as_admin(server):
    env = environment(server)
    del env["MQSERVER"]  # the local samples never read it (IBM's bind to the local queue manager)
    put = run("printf 'one\\n' | amqsput DEV.QUEUE.2", env)
    assert (put.returncode, put.stdout.decode().splitlines()) == (
        0, ["Sample AMQSPUT0 start", "target queue is DEV.QUEUE.2", "Sample AMQSPUT0 end"])
    with server.connect() as qm:
        from qmlite.pcf.mqi import MQGMO, MQMD, MQOD

        hobj, _ = qm.open(MQOD(ObjectName="DEV.QUEUE.2"), C.MQOO_INPUT_SHARED)
        md, _gmo, data = qm.get(hobj, MQMD(), MQGMO(), 100)
    assert (data, md.UserIdentifier, md.PutApplName, md.Format) == (b"one", "admin", "amqsput", "MQSTR")
    assert md.CodedCharSetId == 819  # MQCCSI_Q_MGR from a client: its locale's (C: ISO 8859-1)


def test_a_subscriber_prints_what_a_script_publishes_and_ends_thirty_seconds_later(server):
    env = environment(server)
    sub = Running("subscribe.sh", env)
    try:
        server.clock.wait_for_waits(1)  # subscribed, and waiting
        pub = run("publish.sh", env)
        assert pub.stdout.decode().splitlines() == [
            "Sample AMQSPUBA start", "target topic is dev/news", "Sample AMQSPUBA end", "amqspubc exit 0"]
        sub.read_until("message <edition>\n")
        server.clock.wait_for_waits(1)
        server.clock.advance(29.9)
        assert sub.alive() and server.clock.status()["waits"] == 1
        server.clock.advance(0.1)
        code, out = sub.finish()
    finally:
        sub.kill()
    assert code == 0
    assert out.splitlines() == [
        "Sample AMQSSUBA start",
        "Calling MQGET : 30 seconds wait time",
        "message <extra>",
        "Calling MQGET : 30 seconds wait time",
        "message <edition>",
        "Calling MQGET : 30 seconds wait time",
        "no more messages",
        "Sample AMQSSUBA end",
        "amqssubc exit 0",
    ]


def test_requests_answered_by_the_triggered_inquire_and_set_servers(server):
    env = environment(server)
    trigger = "TMC    2" + "DEV.QUEUE.3".ljust(48)  # an MQTMC2 as runmqtrm passes it (the rest blank)
    inq = Running(["amqsinq", trigger], env)
    req = None
    try:
        server.clock.wait_for_waits(1)  # the server waits for requests
        req = Running("amqsreqc DEV.QUEUE.3 QM1 DEV.QUEUE.2", env, stdin=b"DEV.QUEUE.1\nNO.SUCH.QUEUE\n")
        req.read_until("report with feedback = 2085\n")
        inq.read_until("NO.SUCH.QUEUE\n")
        server.clock.wait_for_waits(2)  # the server's 5 seconds, the requester's 15
        server.clock.advance(5)
        code, out = inq.finish()
        assert code == 0
        assert out.splitlines() == ["Sample AMQSINQA start", "DEV.QUEUE.1", "NO.SUCH.QUEUE",
                                    "MQGET ended with reason code 2033", "Sample AMQSINQA end"]
        assert req.alive()
        server.clock.advance(10)
        code, out = req.finish()
        assert code == 0
        assert out.splitlines() == [
            "Sample AMQSREQ0 start",
            "server queue is DEV.QUEUE.3",
            "replies to DEV.QUEUE.2",
            "response <DEV.QUEUE.1 has 0 messages, used by 0 jobs>",
            "response <NO.SUCH.QUEUE>",
            "  report with feedback = 2085",
            "no more replies",
            "Sample AMQSREQ0 end",
        ]
        # amqsset, started with the queue's name (qmlite has no trigger monitor: docs/decisions.md SM5)
        setter = Running(["amqsset", "DEV.QUEUE.3", "QM1"], env)
        server.clock.wait_for_waits(1)
        req = Running("amqsreqc DEV.QUEUE.3 QM1 DEV.QUEUE.2", env, stdin=b"DEV.QUEUE.1\n")
        req.read_until("response <DEV.QUEUE.1 PUT inhibited>\n")
        server.clock.wait_for_waits(2)
        server.clock.advance(15)
        assert setter.finish()[1].splitlines() == [
            "Sample AMQSSETA start", "DEV.QUEUE.1", "MQGET ended with reason code 2033", "Sample AMQSSETA end"]
        assert req.finish()[0] == 0
    finally:
        inq.kill()
        if req is not None:
            req.kill()
    put = run("printf 'refused\\n' | amqsputc DEV.QUEUE.1 QM1", env)
    assert put.stdout.decode().splitlines() == [
        "Sample AMQSPUT0 start", "target queue is DEV.QUEUE.1",
        f"MQPUT ended with reason code {C.MQRC_PUT_INHIBITED}", "Sample AMQSPUT0 end"]


def test_mqsamp_user_id_reads_the_password_from_standard_input(server):
    env = environment(server, channel="DEV.ADMIN.SVRCONN", MQSAMP_USER_ID="admin")
    good = run("amqsputc DEV.QUEUE.1 QM1", env, stdin=b"passw0rd\nsecured\n")
    assert (good.returncode, good.stdout.decode().splitlines()) == (
        0, ["Sample AMQSPUT0 start", "Enter password: target queue is DEV.QUEUE.1", "Sample AMQSPUT0 end"])
    bad = run("amqsgetc DEV.QUEUE.1 QM1", env, stdin=b"wrong\n")
    assert bad.stdout.decode().splitlines() == [
        "Sample AMQSGET0 start", "Enter password: MQCONNX ended with reason code 2035"]
    assert bad.returncode == 2035 % 256  # IBM's exit(CReason), as the system keeps it


def test_a_ccdt_names_the_channel_instead_of_mqserver(server, tmp_path):
    ccdt = tmp_path / "ccdt.json"
    ccdt.write_text(json.dumps({"channel": [{
        "name": "DEV.APP.SVRCONN", "type": "clientConnection",
        "clientConnection": {"connection": [{"host": "127.0.0.1", "port": server.port}], "queueManager": "QM1"}}]}))
    env = environment(server, MQCCDTURL=f"file://{ccdt}")
    del env["MQSERVER"]
    put = run("printf 'via ccdt\\n' | amqsputc DEV.QUEUE.1 QM1", env)
    assert put.returncode == 0 and "Sample AMQSPUT0 end" in put.stdout.decode()
    tab_env = {**env, "MQCHLLIB": str(tmp_path), "MQCHLTAB": "ccdt.json"}
    del tab_env["MQCCDTURL"]
    browse = run("amqsgbrc DEV.QUEUE.1 QM1", tab_env)
    assert "1 <via ccdt>" in browse.stdout.decode().splitlines()
    wrong = run("amqsgbrc DEV.QUEUE.1 QM9", env)  # no channel in the CCDT for QM9
    assert wrong.stdout.decode().splitlines()[-1] == f"MQCONN ended with reason code {C.MQRC_Q_MGR_NAME_ERROR}"


@pytest.mark.parametrize("command, lines, code", [
    ("amqsputc", ["Sample AMQSPUT0 start", "Required parameter missing - queue name"], 99),
    ("amqsget", ["Sample AMQSGET0 start", "Required parameter missing - queue name"], 99),
    ("amqsgbrc", ["Sample AMQSGBR0 (browse) start", "Required parameter missing - queue name"], 99),
    ("amqspubc", ["Sample AMQSPUBA start", "Required parameter missing - topic string"], 99),
    ("amqssub", ["Sample AMQSSUBA start", "Required parameter missing - topic string"], 99),
    ("amqsreqc", ["Sample AMQSREQ0 start", "Required parameter missing - queue name"], 99),
    ("amqsinq", ["Sample AMQSINQA start", "Missing parameter - start program by MQI trigger"], 99),
    ("amqsset ' '", ["Sample AMQSSETA start", "Parameter supplied is not a trigger message",
                     "This program must be started by MQI trigger"], 2),
    ("amqsgetc NO.SUCH.QUEUE QM1", ["Sample AMQSGET0 start", "MQOPEN ended with reason code 2085",
                                    "unable to open queue for input", "Sample AMQSGET0 end"], 0),
    ("printf 'x\\n' | amqsputc NO.SUCH.QUEUE", ["Sample AMQSPUT0 start", "target queue is NO.SUCH.QUEUE",
                                               "MQOPEN ended with reason code 2085",
                                               "unable to open queue for output", "Sample AMQSPUT0 end"], 0),
    ("amqsreqc NO.SUCH.QUEUE QM1", ["Sample AMQSREQ0 start", "server queue is NO.SUCH.QUEUE",
                                    "MQOPEN ended with reason code 2085",
                                    "unable to open server queue for output"], 2085 % 256),
    ("amqsreqc DEV.QUEUE.3 QM1", ["Sample AMQSREQ0 start", "server queue is DEV.QUEUE.3",
                                  "MQOPEN ended with reason code 2085", "unable to open reply queue",
                                  "Sample AMQSREQ0 end"], 0),  # no SYSTEM.SAMPLE.REPLY: IBM's sample definitions
    ("amqspubc 'other/topic'", ["Sample AMQSPUBA start", "target topic is other/topic",
                                "MQOPEN ended with reason code 2035", "unable to open topic for publish",
                                "Sample AMQSPUBA end"], 0),  # app may publish under dev/ only
    ("amqsgetc DEV.QUEUE.1 QM9", ["Sample AMQSGET0 start", "MQCONNX ended with reason code 2058"], 2058 % 256),
    ("MQSERVER=NO.SUCH.CHANNEL/TCP/'127.0.0.1('$QMLITE_PORT')' amqsgetc DEV.QUEUE.1",
     ["Sample AMQSGET0 start", "MQCONNX ended with reason code 2540"], 2540 % 256),
    ("QMLITE_PORT=1 amqsget DEV.QUEUE.1", ["Sample AMQSGET0 start", "MQCONNX ended with reason code 2059"],
     2059 % 256),  # nothing listens: to a local application the queue manager is not running
])
def test_bad_input_gets_ibms_text_and_exit_code(server, command, lines, code):
    done = run(command, environment(server))
    assert (done.stdout.decode().splitlines(), done.returncode) == (lines, code)
    assert done.stderr == b""
