"""The PCF codec against real queue-manager bytes (tests/fixtures, see its README for provenance)."""

from __future__ import annotations

import json
import pathlib
import struct

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf.errors import CodecError
from qmlite.pcf.jsonview import to_json
from qmlite.pcf.pcf import CFBS, CFGR, CFH, CFIF, CFIL, CFIL64, CFIN, CFSF, CFST, PCFMessage, decode, encode
from tests.support.fixtures import FIXTURES

PCF_DIR = FIXTURES / "pcf"
FRAGMENTS = FIXTURES / "real-server" / "emulator-fragments"


def _read(path: pathlib.Path) -> bytes:
    return path.read_bytes()  # the fixtures live in the repository (tests/fixtures)


# --- statistics_q.dat ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def stats_bytes() -> bytes:
    return _read(PCF_DIR / "statistics_q.dat")


def test_statistics_header(stats_bytes):
    msg = decode(stats_bytes, 546)
    assert msg.header == CFH(Type=C.MQCFT_STATISTICS, StrucLength=36, Version=3, Command=C.MQCMD_STATISTICS_Q,
                             MsgSeqNumber=1, Control=C.MQCFC_LAST, CompCode=0, Reason=0, ParameterCount=23)
    assert len(msg.parameters) == 23


def test_statistics_top_level_values(stats_bytes):
    msg = decode(stats_bytes)
    qmgr = msg.get(C.MQCA_Q_MGR_NAME)
    assert qmgr == CFST(C.MQCA_Q_MGR_NAME, "mq_mgr1" + " " * 41, 0)
    assert len(qmgr.value) == 48  # StringLength 48, blank padded, not stripped
    assert msg.get(C.MQCAMO_START_DATE).value == "2020-06-15"
    assert msg.get(C.MQCAMO_START_TIME).value == "10.41.58"
    assert msg.get(C.MQCAMO_END_DATE).value == "2020-06-15"
    assert msg.get(C.MQCAMO_END_TIME).value == "10.42.28"
    assert msg.get(C.MQIA_COMMAND_LEVEL) == CFIN(C.MQIA_COMMAND_LEVEL, 911)
    assert msg.get(C.MQIAMO_OBJECT_COUNT).value == 16
    assert msg.get(12345) is None and msg.get(12345, "x") == "x"
    assert [p.parameter for p in msg][:7] == [2015, 2711, 2712, 2707, 2708, 31, 732]


def test_statistics_start_date_layout(stats_bytes):
    # START_DATE is the second parameter: MQCFH 36 + Q_MGR_NAME (20 + 48) = offset 104.
    typ, sl, pid, ccsid, slen = struct.unpack_from("<5i", stats_bytes, 104)
    assert (typ, sl, pid, ccsid, slen) == (C.MQCFT_STRING, 32, C.MQCAMO_START_DATE, 0, 10)
    assert stats_bytes[104 + 30:104 + 32] == b"\0\0"  # two NUL pad bytes, as a real QM writes them


def test_statistics_groups(stats_bytes):
    msg = decode(stats_bytes)
    groups = [p for p in msg if isinstance(p, CFGR)]
    assert len(groups) == 16
    assert all(g.parameter == C.MQGACF_Q_STATISTICS_DATA for g in groups)
    assert all(len(g.parameters) == 22 for g in groups)
    names = [g.get(C.MQCA_Q_NAME).value.rstrip() for g in groups]
    assert names[0] == "SYSTEM.ADMIN.COMMAND.QUEUE"
    assert names[1] == "SYSTEM.CLUSTER.COMMAND.QUEUE"
    assert sum(n.startswith("MQAI.REPLY.5EE748E0") for n in names) == 14
    first = groups[0]
    assert first.get(C.MQCA_CREATION_DATE) == CFST(C.MQCA_CREATION_DATE, "2020-06-15  ", 0)
    assert first.get(C.MQCA_CREATION_TIME).value == "10.09.36"
    assert first.get(C.MQIA_Q_TYPE).value == C.MQQT_LOCAL
    assert first.get(C.MQIAMO_PUTS) == CFIL(C.MQIAMO_PUTS, (14, 0))
    assert first.get(C.MQIAMO_PUTS).value == (14, 0)  # list alias
    assert first.get(C.MQIAMO64_PUT_BYTES) == CFIL64(C.MQIAMO64_PUT_BYTES, (1056, 0))
    assert first.get(C.MQIAMO64_GET_BYTES).values == (1056, 0)
    assert isinstance(first.get(C.MQIAMO64_AVG_Q_TIME), CFIL64)
    assert first.value is first.parameters


def test_statistics_reencodes_identically(stats_bytes):
    assert encode(decode(stats_bytes), 546) == stats_bytes


def test_statistics_big_endian_round_trip(stats_bytes):
    msg = decode(stats_bytes)
    be = encode(msg, 273)
    assert be != stats_bytes and len(be) == len(stats_bytes)
    assert decode(be, 273) == msg


def test_statistics_json_view(stats_bytes):
    view = to_json(decode(stats_bytes))
    json.dumps(view)
    assert view["header"]["Type_name"] == "MQCFT_STATISTICS"
    assert view["header"]["Command_name"] == "MQCMD_STATISTICS_Q"
    assert view["parameters"][0] == {"struct": "MQCFST", "parameter": 2015, "value": "mq_mgr1" + " " * 41,
                                     "ccsid": 0}
    assert view["parameters"][7]["struct"] == "MQCFGR"


# --- pcf_with_cfsf.dat / pcf_with_cfif.dat ----------------------------------------------------------

# Both files carry an MQCFST Q_NAME "*" (StringLength 1, StrucLength 24) whose three insignificant
# pad bytes are 01 06 01 in the queue manager's output.  IBM: bytes between the end of the string and
# StrucLength "are not significant"; the codec ignores them and writes NULs, so identity holds only
# after masking them.
PAD_OFFSET = 221


def _command_context(group: CFGR) -> None:
    assert group.parameter == C.MQGACF_COMMAND_CONTEXT
    assert group.parameters == [
        CFST(C.MQCACF_EVENT_USER_ID, "mqm" + " " * 9, 819),
        CFIN(C.MQIACF_EVENT_ORIGIN, 1),  # MQEVO_CONSOLE (fixtures README); no MQEVO_* in constants.py
        CFST(C.MQCACF_EVENT_Q_MGR, "MQTEST" + " " * 42, 819),
        CFIN(C.MQIACF_COMMAND, C.MQCMD_INQUIRE_Q),
    ]


def _event_header(msg: PCFMessage) -> None:
    assert msg.header == CFH(Type=C.MQCFT_EVENT, StrucLength=36, Version=3, Command=C.MQCMD_COMMAND_EVENT,
                             MsgSeqNumber=1, Control=1, CompCode=0, Reason=C.MQRC_COMMAND_MQSC,
                             ParameterCount=2)


@pytest.mark.parametrize("name", ["pcf_with_cfsf.dat", "pcf_with_cfif.dat"])
def test_event_pad_bytes_are_not_nul(name):
    data = _read(PCF_DIR / name)
    typ, sl, pid, ccsid, slen = struct.unpack_from("<5i", data, PAD_OFFSET - 21)
    assert (typ, sl, pid, slen) == (C.MQCFT_STRING, 24, C.MQCA_Q_NAME, 1)
    assert data[PAD_OFFSET - 1:PAD_OFFSET + 3] == b"*\x01\x06\x01"


def test_cfsf_fixture():
    data = _read(PCF_DIR / "pcf_with_cfsf.dat")
    msg = decode(data, 546)
    _event_header(msg)
    _command_context(msg.parameters[0])
    cmd = msg.parameters[1]
    assert cmd.parameter == C.MQGACF_COMMAND_DATA
    assert cmd.parameters == [
        CFST(C.MQCA_Q_NAME, "*", 0),
        CFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
        CFSF(C.MQCA_Q_DESC, C.MQCFOP_LIKE, "test*", 0),
        CFIL(C.MQIACF_Q_ATTRS, (C.MQCA_Q_DESC, C.MQCA_Q_NAME)),
    ]
    assert to_json(cmd.parameters[2])["operator_name"] == "MQCFOP_LIKE"
    masked = bytearray(data)
    masked[PAD_OFFSET:PAD_OFFSET + 3] = b"\0\0\0"
    assert encode(msg, 546) == bytes(masked)


def test_cfif_fixture():
    data = _read(PCF_DIR / "pcf_with_cfif.dat")
    msg = decode(data, 546)
    _event_header(msg)
    _command_context(msg.parameters[0])
    cmd = msg.parameters[1]
    assert cmd.parameters == [
        CFST(C.MQCA_Q_NAME, "*", 0),
        CFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
        CFIF(C.MQIA_CURRENT_Q_DEPTH, C.MQCFOP_GREATER, 0),
        CFIL(C.MQIACF_Q_ATTRS, (C.MQIA_CURRENT_Q_DEPTH, C.MQCA_Q_NAME)),
    ]
    # Same 01 06 01 pad as the CFSF file (see above), so identity after masking.
    masked = bytearray(data)
    masked[PAD_OFFSET:PAD_OFFSET + 3] = b"\0\0\0"
    assert encode(msg, 546) == bytes(masked)


@pytest.mark.parametrize("name", ["statistics_q.dat", "pcf_with_cfsf.dat", "pcf_with_cfif.dat"])
def test_real_messages_decode_strict_and_lenient_alike(name):
    data = _read(PCF_DIR / name)
    assert decode(data, strict=True) == decode(data, strict=False)


@pytest.mark.parametrize("name", ["statistics_q.dat", "pcf_with_cfsf.dat", "pcf_with_cfif.dat"])
def test_real_messages_truncated_fail_cleanly(name):
    data = _read(PCF_DIR / name)
    for cut in range(0, len(data), 7 if len(data) > 1000 else 1):
        with pytest.raises(CodecError):
            decode(data[:cut])


# --- ibmmq example, docs/reference/pcf.md §11.1 --------------------------------------------------------------------

IBMMQ_CREATE_SUB = bytes.fromhex(
    "10000000 24000000 03000000 b1000000 01000000 01000000 00000000 00000000 04000000"
    "04000000 1c000000 500c0000 00000000 05000000 5355422e 41000000"
    "04000000 20000000 2e080000 00000000 0b000000 70726963 652f6672 75697400"
    "03000000 10000000 f9040000 01000000"
    "03000000 10000000 ee030000 01000000".replace(" ", "")
)


def test_ibmmq_create_subscription_example():
    assert len(IBMMQ_CREATE_SUB) == 128
    msg = decode(IBMMQ_CREATE_SUB, 546)
    expected = PCFMessage(
        CFH(Type=C.MQCFT_COMMAND_XR, StrucLength=36, Version=3, Command=C.MQCMD_CREATE_SUBSCRIPTION,
            MsgSeqNumber=1, Control=1, CompCode=0, Reason=0, ParameterCount=4),
        [
            CFST(C.MQCACF_SUB_NAME, "SUB.A", 0),
            CFST(C.MQCA_TOPIC_STRING, "price/fruit", 0),
            CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED),
            CFIN(C.MQIACF_REPLACE, C.MQRP_YES),
        ],
    )
    assert msg == expected
    assert encode(expected, 546) == IBMMQ_CREATE_SUB
    assert msg.get(C.MQCACF_SUB_NAME).value == "SUB.A"


def test_subid_as_mqcfbs_struc_length_40():
    # docs/reference/pcf.md §11.3: ByteString(subid) is sent as an MQCFBS with StrucLength 40.
    msg = PCFMessage(CFH(C.MQCFT_COMMAND_XR, Command=C.MQCMD_DELETE_SUBSCRIPTION, ParameterCount=1),
                     [CFBS(C.MQBACF_SUB_ID, bytes(range(24)))])
    data = encode(msg)
    assert struct.unpack_from("<4i", data, 36) == (C.MQCFT_BYTE_STRING, 40, C.MQBACF_SUB_ID, 24)
    assert decode(data) == msg


# --- SPI OPEN reply user PCF (emulator fragments) ---------------------------------------------------

def _spi_message() -> bytes:
    head = _read(FRAGMENTS / "spi-open-reply-userpcf-head-72.frag.bin")
    tail = _read(FRAGMENTS / "spi-open-reply-userpcf-tail-96.frag.bin")
    return head + b" " * 48 + tail


def test_spi_user_pcf_big_endian():
    data = _spi_message()
    assert len(data) == 216
    # The head declares ParameterCount 8; the bytes hold exactly 8: MQCFIN 5, MQCFST 6 and 6 x MQCFIN.
    msg = decode(data, 273, strict=False)
    assert msg.header == CFH(Type=C.MQCFT_USER, StrucLength=36, Version=3, Command=0, MsgSeqNumber=1,
                             Control=1, CompCode=0, Reason=0, ParameterCount=8)
    assert msg.parameters == [
        CFIN(5, 1), CFST(6, " " * 48, 819),
        CFIN(7, 0), CFIN(8, 0), CFIN(9, 0), CFIN(14, 0), CFIN(10, 0), CFIN(12, 0),
    ]
    assert encode(msg, 273) == data


def test_spi_user_pcf_is_outside_the_strict_id_families():
    # MQCFT_USER uses private ids: an MQCFST with id 6 is in the integer range, so strict mode (which
    # applies MQ's id families to every message type) refuses it.
    with pytest.raises(CodecError) as info:
        decode(_spi_message(), 273)
    assert (info.value.reason, info.value.parameter, info.value.offset) == (C.MQRCCF_CFST_PARM_ID_ERROR, 6, 52)


def test_spi_user_pcf_with_wrong_byte_order():
    with pytest.raises(CodecError) as info:
        decode(_spi_message(), 546, strict=False)
    assert info.value.reason == C.MQRCCF_CFH_TYPE_ERROR
