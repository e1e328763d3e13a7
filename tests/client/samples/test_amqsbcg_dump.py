"""amqsbcg's dump, line by line as IBM's amqsbcg0.c (MQ 9.4) prints it: the start lines, the MQMD block
with each field in its width, the message properties, a dead-letter header, the hex and character
lines (multi-byte characters kept whole under a UTF-8 locale), the page breaks, the summary.  The
expected lines are written out from amqsbcg0.c's printf calls; the MQMD values from what the queue
manager stored (the MQMD the put returned)."""

from __future__ import annotations

import re

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import properties as PR
from qmlite.pcf.mqi import MQDLH, MQMD, MQOD, MQPMO

from .samplerun import environment, run

MSGID = b"AMQ QM1 sample message 1"
CORRELID = b"correlation-id-for-test!"


@pytest.fixture
def server(qmlite_server):
    return qmlite_server


def put(server, queue: str, data: bytes, **fields) -> MQMD:
    with server.connect() as qm:
        hobj, _ = qm.open(MQOD(ObjectName=queue), C.MQOO_OUTPUT)
        md, _pmo = qm.put(hobj, MQMD(**fields), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), data)
    return md


def md_lines(md: MQMD, *, fmt: str = "MQSTR   ", ccsid: int = 819) -> list[str]:
    """amqsbcg0.c's printMD for a message put by the test (admin, on DEV.ADMIN.SVRCONN)."""
    return [
        "****Message descriptor****",
        "",
        "  StrucId  : 'MD  '  Version : 2",
        f"  Report   : 0  MsgType : {md.MsgType}",
        "  Expiry   : -1  Feedback : 0",
        f"  Encoding : 546  CodedCharSetId : {ccsid}",
        f"  Format : '{fmt}'",
        f"  Priority : {md.Priority}  Persistence : {md.Persistence}",
        "  MsgId : X'" + md.MsgId.hex().upper() + "'",
        "  CorrelId : X'" + md.CorrelId.hex().upper() + "'",
        "  BackoutCount : 0",
        "  ReplyToQ       : '" + md.ReplyToQ.ljust(48) + "'",
        "  ReplyToQMgr    : '" + md.ReplyToQMgr.ljust(48) + "'",
        "  ** Identity Context",
        "  UserIdentifier : 'admin       '",
        "  AccountingToken : ",
        "   X'" + md.AccountingToken.hex().upper() + "'",
        "  ApplIdentityData : '" + " " * 32 + "'",
        "  ** Origin Context",
        f"  PutApplType    : '{md.PutApplType}'",
        "  PutApplName    : '" + md.PutApplName.ljust(28) + "'",
        f"  PutDate  : '{md.PutDate}'    PutTime  : '{md.PutTime}'",
        "  ApplOriginData : '    '",
        "",
        "  GroupId : X'" + "00" * 24 + "'",
        "  MsgSeqNumber   : '1'",
        "  Offset         : '0'",
        "  MsgFlags       : '0'",
        "  OriginalLength : '-1'",
    ]


def closing(count: int, small: int, large: int, average: int) -> list[str]:
    return [" ", " ", " ", " No more messages ", "", "****   Summary      ****", f" {count} messages browsed.",
            f" Smallest message {small} bytes.", f" Largest message {large} bytes.",
            f" Average message {average} bytes.", "", " MQCLOSE", " MQDISC"]


def bcg(server, *args: str, **env: str) -> tuple[int, list[str]]:
    done = run(["amqsbcgc", *args], environment(server, channel="DEV.ADMIN.SVRCONN", MQSAMP_USER_ID="admin", **env),
               stdin=b"passw0rd\n")
    assert done.stderr == b""
    text = done.stdout.decode("utf-8")
    # MQSAMP_USER_ID's prompt, once the arguments are checked (amqsbcg0.c's order)
    assert text.startswith("\nAMQSBCG0 - starts here\n**********************\n Enter password: \n")
    return done.returncode, text.replace(" Enter password: ", " ", 1).split("\n")


START = ["", "AMQSBCG0 - starts here", "**********************", " "]


def test_one_message_field_by_field_and_its_hex_and_character_lines(server):
    md = put(server, "DEV.QUEUE.1", b"0123456789ABCDEF\x00\x7f\xe9Z", Format=C.MQFMT_STRING, CodedCharSetId=819,
             Priority=7, Persistence=C.MQPER_PERSISTENT, MsgId=MSGID, CorrelId=CORRELID, ReplyToQ="REPLY.Q",
             ReplyToQMgr="QM1", MsgType=C.MQMT_REQUEST)
    assert (md.MsgId, md.PutApplName) == (MSGID, md.PutApplName)
    code, lines = bcg(server, "DEV.QUEUE.1", "QM1")
    assert code == 0
    assert lines == [
        *START, " MQOPEN - 'DEV.QUEUE.1'", " ", " ", " MQGET of message number 1, CompCode:0 Reason:0",
        *md_lines(md), " ", "****   Message      ****", " ", " length - 20 of 20 bytes", " ",
        "00000000:  3031 3233 3435 3637 3839 4142 4344 4546 '0123456789ABCDEF'",
        "00000010:  007F E95A" + " " * 30 + " '...Z            '",
        *closing(1, 20, 20, 20), ""]
    assert "  MsgId : X'414D5120514D312073616D706C65206D6573736167652031'" in lines
    assert "  ReplyToQ       : 'REPLY.Q                                         '" in lines


def test_multi_byte_characters_under_a_utf8_locale_stay_whole(server):
    put(server, "DEV.QUEUE.2", b"A" * 15 + "é".encode() + b"B", Format=C.MQFMT_STRING, CodedCharSetId=1208)
    code, lines = bcg(server, "DEV.QUEUE.2", LC_ALL="C.UTF-8")
    assert code == 0
    at = lines.index(" length - 18 of 18 bytes")
    # MB_CUR_MAX 6 leaves 2*(6-1) blanks before the characters; the 'é' that starts at byte 15 ends the
    # first line with 17 bytes, and the second line starts with the column it took (IBM's "overrun")
    assert lines[at + 2:at + 4] == [
        "00000000: " + " 4141" * 7 + " 41C3A9" + " " * 8 + " '" + "A" * 15 + "é'",
        "00000011: " + "   " + "42" + " " * 35 + " " * 10 + " ' B" + " " * 14 + "'"]


def test_long_messages_break_pages_and_the_summary_counts(server):
    put(server, "DEV.QUEUE.3", b"x" * 640, Format=C.MQFMT_STRING)
    put(server, "DEV.QUEUE.3", b"", Format=C.MQFMT_STRING)
    code, lines = bcg(server, "DEV.QUEUE.3")
    assert code == 0
    first = lines.index(" length - 640 of 640 bytes") + 2
    dump = lines[first:first + 41]
    # the first message's page starts at line 29: after 31 lines it reaches 60 and a blank line follows
    assert dump[30].startswith("000001E0: ") and dump[31] == " " and dump[32].startswith("000001F0: ")
    assert dump[40].startswith("00000270: ") and lines[first + 41] == " "
    assert " MQGET of message number 2, CompCode:0 Reason:0" in lines
    empty = lines.index(" length - 0 of 0 bytes")
    assert lines[empty + 2] == "00000000: " + " " * 40 + " '" + " " * 16 + "'"  # IBM prints one blank line
    assert lines[-14:] == [*closing(2, 0, 640, 320), ""]


def test_a_dead_letter_header_is_shown_and_the_data_after_it(server):
    dlh = MQDLH(Reason=C.MQRC_Q_FULL, DestQName="DEV.QUEUE.1", DestQMgrName="QM1", Encoding=546, CodedCharSetId=819,
                Format=C.MQFMT_STRING, PutApplType=C.MQAT_UNIX, PutApplName="amqsput", PutDate="20260101",
                PutTime="12000000")
    md = put(server, "DEV.DEAD.LETTER.QUEUE", dlh.pack() + b"payload", Format=C.MQFMT_DEAD_LETTER_HEADER,
             CodedCharSetId=819)
    code, lines = bcg(server, "DEV.DEAD.LETTER.QUEUE")
    assert code == 0
    at = lines.index("  OriginalLength : '-1'")
    assert lines[:at + 1][-29:] == md_lines(md, fmt="MQDEAD  ")
    assert lines[at + 1:at + 20] == [
        "", "****Dead Letter Header****", "",
        "  StrucId  : 'DLH '  Version : 1",
        "  Reason   : 2053 [MQRC_Q_FULL]",
        "  DestQName      : 'DEV.QUEUE.1" + " " * 37 + "'",
        "  DestQMgrName   : 'QM1" + " " * 45 + "'",
        "  Encoding : 546  CodedCharSetId : 819",
        "  Format : 'MQSTR   '",
        "  PutApplType    : '6'",
        "  PutApplName    : 'amqsput" + " " * 21 + "'",
        "  PutDate  : '20260101'    PutTime  : '12000000'",
        " ", "****   Message      ****", " ", " length - 7 of 7 bytes", " ",
        "00000000:  7061 796C 6F61 64" + " " * 22 + " 'payload         '",
        " "]


def test_message_properties_in_a_handle_or_not_at_all(server):
    props = PR.Properties()
    props.set("colour", "blue")
    props.set("size", 42, PR.INT32)
    props.set("fresh", True)
    data, fmt = PR.join(props, b"body", C.MQFMT_STRING, 546, 819)
    put(server, "DEV.QUEUE.1", data, Format=fmt, CodedCharSetId=819)
    code, lines = bcg(server, "DEV.QUEUE.1", "QM1", "1")
    assert code == 0
    assert lines[4:6] == [" MQOPEN - 'DEV.QUEUE.1'", " MQCRTMH"]
    assert "  Format : 'MQSTR   '" in lines  # the MQMD describes the body once the properties are taken off
    at = lines.index("****Message properties****")
    assert lines[at - 1:at + 5] == [" ", "****Message properties****", "", "  colour : 'blue'", "  size : 42",
                                    "  fresh : TRUE"]
    assert " length - 4 of 4 bytes" in lines
    assert lines[-4:] == [" MQDLTMH", " MQCLOSE", " MQDISC", ""]
    code, lines = bcg(server, "DEV.QUEUE.1", "QM1", "2")  # PROPS_NONE: the body alone, no block
    assert "****Message properties****" not in lines and " length - 4 of 4 bytes" in lines
    code, lines = bcg(server, "DEV.QUEUE.1", "QM1", "3")  # PROPS_IN_MQRFH2
    assert "  Format : 'MQHRF2  '" in lines and f" length - {len(data)} of {len(data)} bytes" in lines


@pytest.mark.parametrize("args, lines", [
    ([], ["Required parameter missing - queue name"]),
    (["DEV.QUEUE.1", "QM1", "5"], ['PropOption "5" invalid - specify 0-4']),
])
def test_bad_arguments_print_the_usage_and_end_with_4(server, args, lines):
    done = run(["amqsbcgc", *args], environment(server))
    assert done.returncode == 4
    assert done.stdout.decode().split("\n") == [
        "", "AMQSBCG0 - starts here", "**********************", " " + lines[0], "",
        "  Usage: amqsbcgc QName [ QMgrName ] [ PropOption ]", "", ""]


def test_an_unknown_queue_or_queue_manager(server):
    done = run(["amqsbcgc", "NO.SUCH.QUEUE"], environment(server))
    assert (done.returncode, done.stdout.decode().split("\n")[4:]) == (
        2, [" MQOPEN - 'NO.SUCH.QUEUE'", " MQOPEN failed with CompCode:2, Reason:2085", " MQDISC", ""])
    done = run(["amqsbcgc", "DEV.QUEUE.1", "QM9"], environment(server))
    assert (done.returncode, done.stdout.decode().split("\n")[4:]) == (
        2, [" MQCONNX failed with CompCode:2, Reason:2058", ""])


def test_a_message_longer_than_the_buffer_is_dumped_truncated(server):
    put(server, "DEV.QUEUE.2", bytes(range(256)) * 300, Format=C.MQFMT_NONE)  # 76,800 bytes
    code, lines = bcg(server, "DEV.QUEUE.2")
    assert code == 0
    assert " MQGET of message number 1, CompCode:1 Reason:2079" in lines  # MQRC_TRUNCATED_MSG_ACCEPTED
    at = lines.index(" length - 65536 of 76800 bytes")
    dump = [line for line in lines[at + 2:] if re.match(r"[0-9A-F]{8}: ", line)]
    assert len(dump) == 65536 // 16 and dump[-1].startswith("0000FFF0:  F0F1 F2F3")
    assert dump[2] == "00000020:  2021 2223 2425 2627 2829 2A2B 2C2D 2E2F ' !\"#$%&'()*+,-./'"
    assert " Largest message 76800 bytes." in lines
    get = run(["amqsgetc", "DEV.QUEUE.2"], environment(server))  # amqsget counts it a failure: it stays
    assert get.stdout.decode().splitlines() == ["Sample AMQSGET0 start", "MQGET ended with reason code 2080",
                                                "Sample AMQSGET0 end"]
