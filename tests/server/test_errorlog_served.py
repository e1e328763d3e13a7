"""Each refusal qmlite makes, through a real client and server: its entry in AMQERR01.LOG (IBM's
message, inserts and layout, line by line: tests/support/amqerr.py), its entry in the REST API's recent
refusals, and -- where the refusal names one -- the MQSC that would allow it, run, letting the client in
(docs/errorlog.md)."""

from __future__ import annotations

import socket
import ssl

import httpx
import pytest

from qmlite.client.errors import MQIError
from qmlite.client.pytest_plugin import running_qmlite
from qmlite.client.sync import QueueManager
from qmlite.pcf import constants as C
from qmlite.pcf import mqi
from qmlite.pcf.mqi import MQMD, MQOD, MQPMO
from tests.support import amqerr

APP = "DEV.APP.SVRCONN"


@pytest.fixture
def server(tmp_path):
    with running_qmlite(tmp_path / "data", http_port=0) as srv:
        yield srv


def _connect(server, channel=APP, user="app", password=None):
    return QueueManager.connect(server.host, server.port, channel, server.qmgr, user=user, password=password)


def _refused(server, channel=APP, user="app", password=None) -> int:
    with pytest.raises(MQIError) as err:
        _connect(server, channel, user, password).close()
    return err.value.reason


def _mqsc(server, text: str) -> None:
    for result in server.mqsc(text):
        assert result.completion_code == 0, result.text


def _entries(server, number: str) -> list[amqerr.Entry]:
    """The error log's entries with this number (the whole log parses, strictly)."""
    entries = amqerr.read(server.error_log)
    assert entries[0].number == "AMQ8003I"  # the log begins with the start
    return [e for e in entries if e.number == number]


def _rest(server) -> list[dict]:
    answer = httpx.get(f"http://127.0.0.1:{server.http_port}/ibmmq/rest/v1/admin/qmgr/QM1/qmlite/refusals",
                       auth=("admin", server.admin_password), timeout=30)
    assert answer.status_code == 200
    body = answer.json()
    assert body["last"] == (body["refusal"][-1]["seq"] if body["refusal"] else body["last"])
    return body["refusal"]


def test_the_start_is_logged_amq8003i_the_listener_amq5026i_then_amq5806i(server):
    entries = amqerr.read(server.error_log)
    assert [e.number for e in entries[:3]] == ["AMQ8003I", "AMQ5026I", "AMQ5806I"]
    assert entries[0].text == "IBM MQ queue manager 'QM1' started using V9.1.2.0."
    assert entries[1].text.startswith("The listener '") and entries[1].inserts["a1"] > 0
    assert entries[2].text == "Queued Publish/Subscribe Daemon started for queue manager QM1."
    assert server.error_log == server.data_dir / "errors" / "AMQERR01.LOG"


def test_noaccess_addressmap_amq9777e_and_the_fix_lets_the_client_in(server):
    _mqsc(server, f"SET CHLAUTH('{APP}') TYPE(ADDRESSMAP) ADDRESS('127.0.0.1') USERSRC(NOACCESS)")
    assert _refused(server) == C.MQRC_NOT_AUTHORIZED
    (entry,) = _entries(server, "AMQ9777E")
    assert entry.program == "amqrmppa" and entry.remote_host == "127.0.0.1"
    assert entry.inserts == {"c1": APP, "c2": "127.0.0.1", "c3": "CLNTUSER(app) ADDRESS(127.0.0.1)"}
    assert entry.text == "Channel was blocked"
    assert entry.explanation == (f"The inbound channel '{APP}' was blocked from address '127.0.0.1' because the "
                                 "active values of the channel matched a record configured with USERSRC(NOACCESS). "
                                 "The active values of the channel were 'CLNTUSER(app) ADDRESS(127.0.0.1)'.")
    assert entry.action.startswith("Contact the systems administrator")
    (refusal,) = _rest(server)
    assert (refusal["kind"], refusal["reason"], refusal["message_id"]) == ("chlauth", 2035, "AMQ9777E")
    assert (refusal["user"], refusal["address"], refusal["channel"]) == ("app", "127.0.0.1", APP)
    assert "USERSRC(NOACCESS)" in refusal["rule"]
    _mqsc(server, "\n".join(refusal["mqsc"]))
    _connect(server).close()


def test_noaccess_usermap_amq9777e(server):
    _mqsc(server, f"SET CHLAUTH('{APP}') TYPE(USERMAP) CLNTUSER('app') USERSRC(NOACCESS)")
    assert _refused(server) == C.MQRC_NOT_AUTHORIZED
    (entry,) = _entries(server, "AMQ9777E")
    assert entry.inserts["c3"] == "CLNTUSER(app) ADDRESS(127.0.0.1)"
    (refusal,) = _rest(server)
    assert refusal["mqsc"] == [f"SET CHLAUTH('{APP}') TYPE(USERMAP) CLNTUSER('app') USERSRC(CHANNEL) ACTION(REPLACE)"]
    _mqsc(server, refusal["mqsc"][0])
    _connect(server).close()


def test_blockuser_amq9776e_and_the_fix(server):
    _mqsc(server, f"SET CHLAUTH('{APP}') TYPE(BLOCKUSER) USERLIST('app')")
    assert _refused(server) == C.MQRC_NOT_AUTHORIZED
    (entry,) = _entries(server, "AMQ9776E")
    assert entry.text == "Channel was blocked by userid"
    assert entry.inserts == {"c1": APP, "c2": "127.0.0.1", "c3": "MCAUSER(app) CLNTUSER(app) ADDRESS(127.0.0.1)"}
    (refusal,) = _rest(server)
    assert refusal["message_id"] == "AMQ9776E" and "TYPE(BLOCKUSER)" in refusal["rule"]
    _mqsc(server, refusal["mqsc"][0])
    _connect(server).close()


def test_blockaddr_amq9782e_and_the_fix(server):
    _mqsc(server, "SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.1', '10.9.9.9')")
    assert _refused(server) == C.MQRC_NOT_AUTHORIZED
    (entry,) = _entries(server, "AMQ9782E")
    assert entry.inserts == {"c1": "127.0.0.1"} and entry.remote_host == "127.0.0.1"
    (refusal,) = _rest(server)
    assert refusal["mqsc"] == ["SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('10.9.9.9') ACTION(REPLACE)"]
    # The block keeps the administrator out too: the fix runs as the console's runmqsc would, in the server.
    from qmlite.registry.mqsc import run_mqsc

    qm = server._runner.server.qm
    (result,) = server._runner.loop.run_sync(lambda: run_mqsc(qm, refusal["mqsc"][0]))
    assert result.completion_code == 0, result.text
    _connect(server).close()


def test_a_wrong_password_amq5534e_with_amq5542i(server):
    assert _refused(server, "DEV.ADMIN.SVRCONN", "admin", "wrong") == C.MQRC_NOT_AUTHORIZED
    (entry,) = _entries(server, "AMQ5534E")
    assert entry.text == "User ID 'admin' authentication failed" and entry.program == "amqzlaa0"
    assert entry.explanation == "The user ID and password supplied by the 'qmlite' program could not be " \
                                "authenticated. Additional information: 'N/A'."
    # IBM's companion names CONNAUTH's AUTHINFO (the developer container's DEV.AUTHINFO) and its CHCKCLNT.
    (why,) = _entries(server, "AMQ5542I")
    assert why.text == "The failed authentication check was caused by the queue manager CONNAUTH CHCKCLNT(REQDADM) " \
                       "configuration."
    assert why.inserts == {"c1": "admin", "c2": "DEV.AUTHINFO", "c3": "CHCKCLNT(REQDADM)"}
    (refusal,) = _rest(server)
    assert (refusal["kind"], refusal["user"], refusal["message_id"]) == ("password", "admin", "AMQ5534E")
    assert _entries(server, "AMQ9777E") == []  # one refusal, one account of it


def test_chckclnt_required_without_a_password_amq5540e(server):
    _mqsc(server, f"SET CHLAUTH('{APP}') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) CHCKCLNT(REQUIRED) "
                  "ACTION(REPLACE)")
    assert _refused(server) == C.MQRC_NOT_AUTHORIZED
    (entry,) = _entries(server, "AMQ5540E")
    assert entry.explanation == "The queue manager is configured to require a user ID and password, but none was " \
                                "supplied."
    assert _entries(server, "AMQ5542I") == []  # IBM's AMQ5542I names CONNAUTH, which did not refuse
    (refusal,) = _rest(server)
    assert refusal["mqsc"] == [f"SET CHLAUTH('{APP}') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) CHCKCLNT(ASQMGR) "
                               "ACTION(REPLACE)"]
    assert _entries(server, "AMQ5534E") == []  # the CHLAUTH refusal, not a password check, is logged
    _mqsc(server, refusal["mqsc"][0])
    _connect(server).close()


def test_an_authority_missing_on_a_queue_amq8077w_and_the_fix(server):
    _mqsc(server, "DEFINE QLOCAL(ORDERS)")
    qm = _connect(server)
    try:
        with pytest.raises(MQIError) as err:
            qm.open(mqi.MQOD(ObjectName="ORDERS"), C.MQOO_OUTPUT)
        assert err.value.reason == C.MQRC_NOT_AUTHORIZED
        (entry,) = _entries(server, "AMQ8077W")
        assert entry.text == "Entity 'app' has insufficient authority to access object 'ORDERS'."
        assert entry.explanation == ("The specified entity is not authorized to access the required object. The "
                                     "following requested permissions are unauthorized: put")
        assert entry.program == "amqzlaa0"
        (refusal,) = _rest(server)
        assert (refusal["object"], refusal["object_type"], refusal["missing"]) == ("ORDERS", "QUEUE", ["PUT"])
        assert refusal["mqsc"] == ["SET AUTHREC PROFILE('ORDERS') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT)"]
        _mqsc(server, refusal["mqsc"][0])
        hobj, _ = qm.open(mqi.MQOD(ObjectName="ORDERS"), C.MQOO_OUTPUT)  # the fix lets the put in
        qm.close(hobj)
    finally:
        qm.close()


def test_an_authority_missing_on_a_topic_amq8077w(server):
    qm = _connect(server)
    try:
        sd = mqi.MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NON_DURABLE,
                      ObjectString=mqi.MQCHARV("private/prices"), ResObjectString=mqi.MQCHARV("", 256))
        with pytest.raises(MQIError) as err:
            qm.sub(sd)
        assert err.value.reason == C.MQRC_NOT_AUTHORIZED
    finally:
        qm.close()
    (entry,) = _entries(server, "AMQ8077W")
    assert entry.inserts == {"c1": "app", "c2": "private/prices", "c3": "sub"}
    (refusal,) = _rest(server)
    assert refusal["mqsc"] == ["SET AUTHREC PROFILE('SYSTEM.BASE.TOPIC') OBJTYPE(TOPIC) PRINCIPAL('app') AUTHADD(SUB)"]


def test_an_unknown_channel_amq9519e(server):
    assert _refused(server, "NO.SUCH.SVRCONN") == C.MQRC_UNKNOWN_CHANNEL_NAME
    (entry,) = _entries(server, "AMQ9519E")
    assert entry.text == "Channel 'NO.SUCH.SVRCONN' not found."
    (refusal,) = _rest(server)
    assert refusal["reason"] == C.MQRC_UNKNOWN_CHANNEL_NAME and refusal["channel"] == "NO.SUCH.SVRCONN"


@pytest.mark.parametrize("attribute, number", [("MAXINST", "AMQ9489I"), ("MAXINSTC", "AMQ9490E")])
def test_a_channel_at_its_instance_limit(server, attribute, number):
    _mqsc(server, f"ALTER CHANNEL('{APP}') CHLTYPE(SVRCONN) {attribute}(1)")
    first = _connect(server)
    try:
        assert _refused(server) in (C.MQRC_CHANNEL_NOT_AVAILABLE, C.MQRC_Q_MGR_NOT_AVAILABLE)
    finally:
        first.close()
    (entry,) = _entries(server, number)
    assert entry.inserts["a1"] == 1 and entry.inserts["c1"] == APP
    (refusal,) = _rest(server)
    assert refusal["mqsc"] == [f"ALTER CHANNEL('{APP}') CHLTYPE(SVRCONN) {attribute}(2)"]


def test_a_tls_channel_refusing_a_plain_client_amq9639e(server):
    _mqsc(server, "DEFINE CHANNEL(TLS.ONLY) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) MCAUSER('app')\n"
                  "SET CHLAUTH(TLS.ONLY) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL)")
    _refused(server, "TLS.ONLY")
    (entry,) = _entries(server, "AMQ9639E")
    assert entry.text == "Remote channel 'TLS.ONLY' did not specify a CipherSpec."
    (refusal,) = _rest(server)
    assert (refusal["kind"], refusal["rule"]) == ("tls", "CIPHER_SPEC")


def test_a_key_repository_that_cannot_be_opened_amq9657e(server):
    server.mqsc("REFRESH SECURITY TYPE(SSL)")  # no key repository: SSLKEYR names nothing there
    (entry,) = _entries(server, "AMQ9657E")
    assert entry.inserts == {"c1": "????"}
    (refusal,) = _rest(server)
    assert refusal["reason"] == C.MQRC_KEY_REPOSITORY_ERROR and refusal["message_id"] == "AMQ9657E"


def test_the_rest_list_pages_and_clears(server):
    for _ in range(3):
        _refused(server, "NO.SUCH.SVRCONN")
    base = f"http://127.0.0.1:{server.http_port}/ibmmq/rest/v1/admin/qmgr/QM1/qmlite/refusals"
    auth = ("admin", server.admin_password)
    assert [r["seq"] for r in httpx.get(base + "?after=1", auth=auth).json()["refusal"]] == [2, 3]
    assert [r["seq"] for r in httpx.get(base + "?limit=1", auth=auth).json()["refusal"]] == [3]
    assert httpx.get(base + "?bogus=1", auth=auth).status_code == 400
    assert httpx.get(base, auth=("app", "x")).status_code in (401, 403)
    deleted = httpx.delete(base, auth=auth, headers={"ibm-mq-rest-csrf-token": "x"})
    assert deleted.json() == {"cleared": 3}
    assert _rest(server) == []


def test_a_hosted_queue_manager_has_its_own_log_without_a_listener_of_its_own(server):
    qm2 = server.add_qmgr("QM2")
    _mqsc(qm2, "SET CHLAUTH('DEV.APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS) ACTION(REPLACE)")
    with pytest.raises(MQIError):
        QueueManager.connect(server.host, server.port, APP, "QM2", user="app").close()
    entries = amqerr.read(qm2.data_dir / "errors" / "AMQERR01.LOG")
    assert [e.number for e in entries] == ["AMQ8003I", "AMQ5806I", "AMQ9777E"]  # the listener is QM1's
    assert {e.qmgr for e in entries} == {"QM2"}
    assert _entries(server, "AMQ9777E") == []  # QM1's log has none of QM2's refusals


def test_the_servers_connection_limit_amq9513e(tmp_path):
    with running_qmlite(tmp_path / "data", max_connections=1) as srv:
        first = _connect(srv)
        try:
            assert _refused(srv) == C.MQRC_MAX_CONNS_LIMIT_REACHED
        finally:
            first.close()
        (entry,) = _entries(srv, "AMQ9513E")
        assert entry.text == "Maximum number of channels reached." and entry.remote_host == "127.0.0.1"
        (refusal,) = srv.refusals()
        assert (refusal["reason"], refusal["message_id"]) == (C.MQRC_MAX_CONNS_LIMIT_REACHED, "AMQ9513E")


def test_a_command_the_user_may_not_run_amq8077w_and_its_fixes_in_turn(server):
    from qmlite.registry.mqsc import run_mqsc

    qm = server._runner.server.qm

    def define_as_app():
        return server._runner.loop.run_sync(lambda: run_mqsc(qm, "DEFINE QLOCAL(APP.OWN)", user="app"))[0]

    fixes = []
    for _ in range(4):  # each refusal names one missing authority; its fix lets the next check through
        result = define_as_app()
        if result.completion_code == 0:
            break
        refusal = server.refusals()[-1]
        assert (refusal["kind"], refusal["user"], refusal["message_id"]) == ("authority", "app", "AMQ8077W")
        fixes += refusal["mqsc"]
        _mqsc(server, refusal["mqsc"][0])
    assert result.completion_code == 0, result.text
    # display on the queue manager, create on the queue class, display on the queue DEFINE copies from
    assert fixes == ["SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('app') AUTHADD(DSP)",
                     "SET AUTHREC PROFILE('@class') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(CRT)",
                     "SET AUTHREC PROFILE('SYSTEM.DEFAULT.LOCAL.QUEUE') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(DSP)"]
    entries = _entries(server, "AMQ8077W")
    assert [(e.inserts["c2"], e.inserts["c3"]) for e in entries] == [
        ("QM1", "dsp"), ("@class", "crt"), ("SYSTEM.DEFAULT.LOCAL.QUEUE", "dsp")]


@pytest.mark.parametrize("record, number, inserts", [
    (f"SET CHLAUTH('{APP}') TYPE(ADDRESSMAP) ADDRESS('127.0.0.1') USERSRC(NOACCESS) WARN(YES)", "AMQ9786W",
     {"c1": APP, "c2": "127.0.0.1", "c3": "CLNTUSER(app) ADDRESS(127.0.0.1)"}),
    (f"SET CHLAUTH('{APP}') TYPE(BLOCKUSER) USERLIST('app') WARN(YES) ACTION(REPLACE)", "AMQ9787W",
     {"c1": APP, "c2": "127.0.0.1", "c3": "MCAUSER(app) CLNTUSER(app) ADDRESS(127.0.0.1)"}),
    ("SET CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST('127.0.0.1') WARN(YES) ACTION(REPLACE)", "AMQ9785W",
     {"c1": "127.0.0.1"}),
])
def test_a_chlauth_record_with_warn_yes_lets_the_client_in_and_logs_its_warning(server, record, number, inserts):
    _mqsc(server, record)
    _connect(server).close()  # let in
    (entry,) = _entries(server, number)
    assert entry.inserts == inserts and entry.remote_host == "127.0.0.1" and entry.program == "amqrmppa"
    assert "would have been blocked" in entry.text + entry.explanation
    assert "WARN(YES)" in entry.explanation and entry.action.startswith("Contact the systems administrator")
    assert _rest(server) == []  # not a refusal: the channel started


def test_a_rejected_command_message_the_full_dead_letter_queue_will_not_take_amq8507e(server):
    _mqsc(server, "DEFINE QLOCAL(FULL.DLQ) MAXDEPTH(1)\nALTER QMGR DEADQ(FULL.DLQ)")
    qm = server.connect()
    try:
        qm.put1(MQOD(ObjectName="FULL.DLQ"), MQMD(), MQPMO(), b"the one it holds")
        # A datagram is no command: the command server dead-letters it, and FULL.DLQ is full.
        qm.put1(MQOD(ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE"), MQMD(MsgType=C.MQMT_DATAGRAM), MQPMO(), b"junk")
        qm.pcf(C.MQCMD_PING_Q_MGR, [])  # answered after the datagram: the command server has dealt with it
    finally:
        qm.close()
    (entry,) = _entries(server, "AMQ8507E")
    assert entry.program == "amqpcsea" and entry.inserts == {"a1": C.MQRC_Q_FULL, "a2": 0}
    assert entry.text == "Command server MQPUT1 request for an undelivered message failed."
    assert entry.explanation == ("The command server attempted to put a message to the dead-letter queue, using "
                                 f"MQPUT1, which failed with reason code {C.MQRC_Q_FULL}. The MQDLH reason code "
                                 "was 0.")
    assert _rest(server) == []  # no client was refused


@pytest.fixture
def tls_server(tmp_path):
    from qmlite.keys import testpki as pki

    made = pki.init(tmp_path / "pki")
    with running_qmlite(tmp_path / "data", http_port=0, pki_dir=str(made.pki_dir)) as srv:
        yield srv


def test_a_tls_handshake_the_client_ends_before_naming_a_channel_amq9665e(tls_server):
    """A client that does not trust the queue manager's certificate ends the handshake (its alert) before
    any channel is named: IBM's AMQ9665E with the channel '????', and a refusal the REST list shows."""
    ctx = ssl.create_default_context()  # the system's CAs: not the test PKI's that signed the queue manager's
    ctx.check_hostname = False
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(incoming, outgoing)  # no SNI: no channel named
    with socket.create_connection((tls_server.host, tls_server.port), timeout=30) as sock:
        while True:
            try:
                tls.do_handshake()
            except ssl.SSLWantReadError:
                sock.sendall(outgoing.read())
                incoming.write(sock.recv(65536))
                continue
            except ssl.SSLCertVerificationError:
                sock.sendall(outgoing.read())  # the client's alert
                break
            raise AssertionError("the handshake succeeded")
        try:
            while sock.recv(65536):  # the server closes once it has written its entry
                pass
        except ConnectionResetError:
            pass
    (entry,) = _entries(tls_server, "AMQ9665E")
    assert entry.inserts == {"c1": "????", "c2": "127.0.0.1"} and entry.remote_host == "127.0.0.1"
    assert entry.text == "SSL connection closed by remote end of channel '????'."
    (refusal,) = _rest(tls_server)
    assert (refusal["kind"], refusal["reason"], refusal["message_id"]) == ("tls", 2393, "AMQ9665E")
    assert refusal["channel"] == "" and "ALERT_UNKNOWN_CA" in refusal["rule"]  # what the client said


@pytest.mark.parametrize("reason, number", [
    ("PEER_DID_NOT_RETURN_A_CERTIFICATE", "AMQ9637E"), ("CERTIFICATE_VERIFY_FAILED", "AMQ9633E"),
    ("NO_SHARED_CIPHER", "AMQ9616E"), ("UNSUPPORTED_PROTOCOL", "AMQ9616E"), ("TLSV1_ALERT_UNKNOWN_CA", "AMQ9665E"),
    ("UNEXPECTED_EOF_WHILE_READING", "AMQ9665E")])
def test_each_handshake_failure_has_its_ibm_message(reason, number):
    from qmlite.server.tls import handshake_message

    error = ssl.SSLError(1, f"[SSL: {reason}] {reason.lower().replace('_', ' ')}")
    error.reason = reason
    assert handshake_message(error) == number
