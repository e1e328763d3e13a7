"""``qmlite decode``: every fixture, the three input kinds, hex input, and errors instead of crashes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from qmlite import cli
from qmlite.pcf import calls, decode, fap, mqi
from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from tests.support.fixtures import FIXTURES

SEGMENT_FIXTURES = sorted((FIXTURES / "real-server").glob("*.bin")) + sorted(
    (FIXTURES / "real-server" / "emulator-assembled").glob("*.bin"))


def run_cli(capsys, *argv: str) -> tuple[int, list[dict]]:
    rc = cli.main(["decode", *argv])
    out = capsys.readouterr().out
    return rc, [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("path", SEGMENT_FIXTURES, ids=lambda p: p.name)
def test_every_segment_fixture_decodes_without_error(capsys, path):
    rc, objs = run_cli(capsys, str(path))
    assert rc == 0
    assert len(objs) == 1
    (obj,) = objs
    assert obj["kind"] == "segment" and not decode.has_error(obj)
    assert obj["header"]["SegmentLength"] == path.stat().st_size
    assert obj["header"]["SegmentType_name"] is not None


def test_id_reply_fields_are_named(capsys):
    _, (obj,) = run_cli(capsys, str(FIXTURES / "real-server" / "id-reply-error-tsh.bin"))
    body = obj["body"]
    assert obj["header"]["ControlFlags1_name"] == ["ERROR"]
    assert body["struct"] == "ID" and body["FapLevel"] == 13
    assert body["IniErrFlags1_name"] == ["MAX_TRANSMISSION_SIZE", "MAX_MSG_SIZE", "HEARTBEAT_INTERVAL"]
    assert body["ECapFlags3_name"] == ["MULTIPLEX_SYNCGET"]
    assert body["ChannelName"] == "DEV.ADMIN.SVRCONN" and body["QMgrId"] == "QM1_2019-12-05_11.17.01"


def test_mqinq_reply_shows_call_body(capsys):
    _, (obj,) = run_cli(capsys, str(FIXTURES / "real-server" / "emulator-assembled" / "mqinq-reply.bin"))
    assert obj["api"]["CompCode_name"] == "MQCC_OK"
    assert obj["call"]["Selectors"] == [31, 32, 2, 2015, 2032, 2006]
    assert obj["call"]["IntAttrs"] == [912, 3, 819]


def test_async_message_shows_md_and_data(capsys):
    _, (obj,) = run_cli(capsys, str(FIXTURES / "real-server" / "emulator-assembled" / "async-message.bin"))
    assert obj["async"]["ResolvedQName"] == "DEV.QUEUE.1"
    assert obj["md"]["Format"] == "MQHRF2" and obj["md"]["MsgType_name"] == "MQMT_DATAGRAM"
    assert obj["message"]["kind"] == "data"


def test_a_stream_of_all_segments_gives_one_object_each(capsys, tmp_path):
    stream = tmp_path / "stream.bin"
    stream.write_bytes(b"".join(p.read_bytes() for p in SEGMENT_FIXTURES))
    rc, objs = run_cli(capsys, str(stream))
    assert rc == 0
    assert [o["offset"] for o in objs] == list(_offsets(SEGMENT_FIXTURES))


def _offsets(paths):
    pos = 0
    for p in paths:
        yield pos
        pos += p.stat().st_size


@pytest.mark.parametrize("name, command, count", [
    ("statistics_q.dat", "MQCMD_STATISTICS_Q", 23),
    ("pcf_with_cfsf.dat", "MQCMD_COMMAND_EVENT", 2),
    ("pcf_with_cfif.dat", "MQCMD_COMMAND_EVENT", 2),
])
def test_bare_pcf_fixtures(capsys, name, command, count):
    rc, (obj,) = run_cli(capsys, str(FIXTURES / "pcf" / name))
    assert rc == 0 and obj["kind"] == "pcf" and obj["encoding"] == C.MQENC_NATIVE
    assert obj["header"]["Command_name"] == command
    assert obj["header"]["Control_name"] == "MQCFC_LAST"
    assert len(obj["parameters"]) == count


def test_event_reason_is_named_from_mqrc():
    (obj,) = decode.decode_objects((FIXTURES / "pcf" / "pcf_with_cfsf.dat").read_bytes())
    assert obj["header"]["Reason_name"] == "MQRC_COMMAND_MQSC"
    group = obj["parameters"][1]
    assert group["parameter_name"] == "MQGACF_COMMAND_DATA"
    flt = [p for p in group["parameters"] if p["struct"] == "MQCFSF"][0]
    assert flt["operator_name"] == "MQCFOP_LIKE" and flt["value"] == "test*"


def _create_sub(encoding: int) -> bytes:
    msg = P.PCFMessage(P.CFH(Type=C.MQCFT_COMMAND_XR, Command=C.MQCMD_CREATE_SUBSCRIPTION),
                       [P.CFST(C.MQCACF_SUB_NAME, "SUB.A"), P.CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED)])
    return P.encode(msg, encoding)


@pytest.mark.parametrize("encoding", [C.MQENC_NATIVE, 0x111])
def test_bare_pcf_byte_order_is_detected(encoding):
    (obj,) = decode.decode_objects(_create_sub(encoding))
    assert obj["encoding"] == encoding
    assert obj["header"]["Command_name"] == "MQCMD_CREATE_SUBSCRIPTION"
    assert obj["parameters"][0] == {"struct": "MQCFST", "parameter": 3152, "parameter_name": "MQCACF_SUB_NAME",
                                    "value": "SUB.A", "ccsid": 0}


@pytest.mark.parametrize("order", ["<", ">"])
def test_mqmd_prefixed_pcf(order):
    md = mqi.MQMD(Version=2, Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST,
                  Encoding=C.MQENC_NATIVE if order == "<" else 0x111)
    (obj,) = decode.decode_objects(md.pack(order) + _create_sub(md.Encoding))
    assert obj["kind"] == "message" and obj["md"]["Version"] == 2
    assert obj["data"]["header"]["Command_name"] == "MQCMD_CREATE_SUBSCRIPTION"


def test_pcf_inside_an_mqput_segment_is_decoded():
    md = mqi.MQMD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ="PYMQPCF.1")
    body = calls.MQPutRequest(md, mqi.MQPMO(Version=2), _create_sub(C.MQENC_NATIVE)).pack("<")
    api = fap.ApiHeader(CallLength=36 + 16 + len(body), Hobj=2).pack("<")
    seg = fap.encode_segment(fap.MQPUT, api + body, conversation_id=1)
    (obj,) = decode.decode_objects(seg)
    assert obj["call"]["MsgDesc"]["ReplyToQ"] == "PYMQPCF.1"
    assert obj["message"]["header"]["Command_name"] == "MQCMD_CREATE_SUBSCRIPTION"


def test_split_call_is_shown_reassembled():
    from qmlite.pcf.framer import split_call

    md = mqi.MQMD(Format="MQSTR")
    body = calls.MQPutRequest(md, mqi.MQPMO(Version=2), b"x" * 5000).pack("<")
    api = fap.ApiHeader(CallLength=36 + 16 + len(body), Hobj=2).pack("<")
    header = fap.SegmentHeader(StructId=fap.TSHM, ConversationId=1, SegmentType=fap.MQPUT,
                               ControlFlags1=fap.CF1_FIRST | fap.CF1_LAST)
    pieces = split_call(header, api + body, 2048)
    objs = list(decode.decode_objects(b"".join(pieces)))
    assert len(objs) == len(pieces) > 2
    assert all(o.get("partial") for o in objs[:-1])
    assert objs[-1]["message"]["length"] == 5000 and not decode.has_error(objs[-1])


def test_hex_input(capsys, tmp_path):
    path = tmp_path / "id.hex"
    raw = (FIXTURES / "real-server" / "nmap-status-no-channel.bin").read_bytes()
    path.write_text(" ".join(f"{b:02x}" for b in raw) + "\n")
    rc, (obj,) = run_cli(capsys, "--hex", str(path))
    assert rc == 0 and obj["body"]["ReturnCode_name"] == "NO_CHANNEL"


@pytest.mark.parametrize("blob, error", [
    (bytes.fromhex("54534820000000ff"), "PROTOCOL_LENGTH_ERROR"),  # a segment that never completes
    (bytes.fromhex("5453482000000010" + "00" * 8), "PROTOCOL_LENGTH_ERROR"),  # SegmentLength below header
    (bytes.fromhex("0100000024000000"), "MQRCCF_MSG_LENGTH_ERROR"),  # a PCF header cut short
    (bytes(36), "MQRCCF_CFH_TYPE_ERROR"),
])
def test_errors_are_reported_with_reason_and_offset(blob, error):
    objs = list(decode.decode_objects(blob))
    assert objs[-1]["error"] == error
    assert isinstance(objs[-1]["offset"], int)


def test_error_exit_status(capsys, tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(bytes(36))
    rc, (obj,) = run_cli(capsys, str(bad))
    assert rc == 1 and obj["error"] == "MQRCCF_CFH_TYPE_ERROR"
    assert cli.main(["decode", str(tmp_path / "missing.bin")]) == 2


def test_console_script_runs():
    path = FIXTURES / "real-server" / "nmap-probe-id.bin"
    proc = subprocess.run([sys.executable, "-m", "qmlite", "decode", str(path)], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["body"]["ChannelName"] == "SYSTEM.ADMIN.SVRCONN"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.sampled_from(["auto", "fap", "pcf", "md"]))
def test_any_bytes_give_json_and_never_a_traceback(blob, kind):
    for obj in decode.decode_objects(blob, kind):
        json.dumps(obj)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_mutated_fixture_streams_never_crash(data):
    raw = bytearray(data.draw(st.sampled_from(SEGMENT_FIXTURES)).read_bytes())
    for _ in range(data.draw(st.integers(1, 6))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    for obj in decode.decode_objects(bytes(raw[:cut])):
        json.dumps(obj)
