"""The ibmmqc transport's native-layout codecs against IBM's own ``ibmmq`` structure classes.

ibmmq's structure classes are pure Python (``struct`` in native mode); with qmlite installed they import
without IBM's C library.  Every layout must (a) read back exactly what ibmmq packed, (b) write bytes that
ibmmq unpacks to the values qmlite meant, and (c) return an unchanged structure byte for byte."""

from __future__ import annotations

import ctypes
import os
import pathlib
import struct

import pytest

ibmmq = pytest.importorskip("ibmmq")

import ibmmqc  # noqa: E402
from ibmmqc import native as N  # noqa: E402

from qmlite.pcf import constants as C  # noqa: E402
from qmlite.pcf import mqi  # noqa: E402

# (ibmmq class, layout, fields that are pointers in ibmmq's class)
PAIRS = [
    (ibmmq.MD, N.MQMD), (ibmmq.OD, N.MQOD), (ibmmq.PMO, N.MQPMO), (ibmmq.GMO, N.MQGMO), (ibmmq.SD, N.MQSD),
    (ibmmq.SRO, N.MQSRO), (ibmmq.CNO, N.MQCNO), (ibmmq.CSP, N.MQCSP), (ibmmq.CD, N.MQCD), (ibmmq.STS, N.MQSTS),
]
IDS = [lay.name for _cls, lay in PAIRS]


def test_module_metadata_satisfies_ibmmq():
    from importlib.metadata import version
    assert ibmmqc.__version__ == version("ibmmq") == ibmmq.__version__
    assert ibmmq.__cmdlevel__ == C.MQCMDL_LEVEL_912
    assert ibmmq.__mqbuild__ == "common"
    # the fallback only: ibmmq's own extension is not shadowed and ibmmq is not patched
    assert ibmmq.ibmmqc is ibmmqc
    assert ibmmqc.__file__.endswith("client/ibmmqc/__init__.py")


@pytest.mark.parametrize("cls, lay", PAIRS, ids=IDS)
def test_length_of_default_structure(cls, lay):
    assert len(cls().pack()) == lay.size


@pytest.mark.parametrize("size, lay", [(364, N.MQMD), (424, N.MQOD), (184, N.MQPMO), (112, N.MQGMO),
                                       (344, N.MQSD), (16, N.MQSRO), (272, N.MQCNO), (104, N.MQCSP),
                                       (280, N.MQSTS)], ids=lambda v: getattr(v, "name", str(v)))
def test_sizes_match_the_64_bit_c_structures(size, lay):
    # MQOD_LENGTH_4 424, MQSD_LENGTH_1 344, MQGMO_LENGTH_4 112, MQPMO_LENGTH_3 184 on 64-bit platforms
    assert lay.size == size


def test_version_sizes():
    assert [N.MQMD.size_of(v) for v in (1, 2)] == [324, 364]
    assert [N.MQOD.size_of(v) for v in (1, 2, 3, 4)] == [168, 208, 344, 424]
    assert [N.MQPMO.size_of(v) for v in (1, 2, 3)] == [128, 160, 184]
    assert [N.MQGMO.size_of(v) for v in (1, 2, 3, 4)] == [72, 80, 100, 112]


@pytest.mark.parametrize("cls, lay", PAIRS, ids=IDS)
def test_every_member_offset_agrees_with_ibmmq(cls, lay):
    """Set one member at a time to a distinctive value in ibmmq's class and find it at our offset."""
    obj = cls()
    for f in lay.fields:
        if f.kind in ("pad", "charv") or f.name == "StrucId":
            continue
        name = f.name
        if not hasattr(obj, name):
            name = "_" + name  # ibmmq hides reserved members behind a leading underscore
        if not hasattr(obj, name):
            continue
        before = getattr(obj, name)
        if f.kind in ("char", "bin"):
            value = b"Z" * f.size
        elif f.kind == "byte":
            value = b"Z" if isinstance(before, bytes) else ord("Z")
        elif f.kind == "ints":
            value = list(range(7, 7 + f.size))
        else:
            value = 0x5A5A5A5A
        setattr(obj, name, value)
        packed = obj.pack()
        setattr(obj, name, before)
        raw = lay.read_raw(packed, f)
        expected = value if f.kind != "ints" else tuple(value)
        if f.kind == "byte":
            expected = ord("Z")
        assert raw == expected, f"{lay.name}.{f.name} at offset {f.offset}"


@pytest.mark.parametrize("cls, lay", PAIRS, ids=IDS)
def test_unchanged_structure_round_trips_byte_for_byte(cls, lay):
    packed = cls().pack()
    assert lay.encode(lay.decode(packed), packed) == packed
    assert lay.encode(lay.decode_fields(packed), packed) == packed


def test_an_output_structure_written_over_members_decoded_once_is_the_same():
    # MQOPEN hands encode() the members it decoded from the caller's MQOD instead of decoding them again
    packed = ibmmq.OD(ObjectName=b"SYSTEM.ADMIN.COMMAND.QUEUE", Version=C.MQOD_VERSION_4).pack()
    fields = N.MQOD.decode_fields(packed)
    reply = N.MQOD.model_of(fields)
    reply.ResolvedQName = "SYSTEM.ADMIN.COMMAND.QUEUE"
    reply.ResolvedType = C.MQOT_Q
    once = N.MQOD.encode(reply, packed, pad=b" ", old=fields)
    assert once == N.MQOD.encode(reply, packed, pad=b" ")
    assert N.MQOD.decode(once).ResolvedQName == "SYSTEM.ADMIN.COMMAND.QUEUE"
    assert once[:N.MQOD.by_name["ResolvedQName"].offset] == packed[:N.MQOD.by_name["ResolvedQName"].offset]


def test_a_version_1_buffer_takes_no_member_beyond_its_end():
    short = ibmmq.OD(ObjectName=b"Q1").pack()[:N.MQOD.size_of(1)]
    obj = N.MQOD.decode(short)
    obj.ResolvedQName = "NOT.IN.A.V1.OD"  # a version 3 member: no room for it
    out = N.MQOD.encode(obj, short, pad=b" ")
    assert out == short and len(out) == 168


@pytest.mark.parametrize("cls, lay", [p for p in PAIRS if p[1].model.__module__ == "qmlite.pcf.mqi"],
                         ids=lambda v: getattr(v, "name", getattr(v, "__name__", "")))
def test_default_structure_re_encodes_exactly_without_base(cls, lay):
    """Decode ibmmq's default bytes into qmlite's dataclass, encode from scratch: identical bytes."""
    packed = cls().pack()
    assert lay.encode(lay.decode(packed)) == packed


def test_md_values_both_ways():
    md = ibmmq.MD(Report=C.MQRO_PASS_CORREL_ID, MsgType=C.MQMT_REQUEST, Expiry=150, Format=b"MQADMIN ",
                  MsgId=b"M" * 24, CorrelId=bytes(range(24)), ReplyToQ=b"PYMQPCF.1", PutApplName=b"ibmmq app",
                  Persistence=C.MQPER_PERSISTENT, Priority=4, OriginalLength=77)
    got = N.MQMD.decode(md.pack())
    assert isinstance(got, mqi.MQMD)
    assert (got.Version, got.Report, got.MsgType, got.Expiry) == (2, C.MQRO_PASS_CORREL_ID, C.MQMT_REQUEST, 150)
    assert (got.Format, got.ReplyToQ, got.PutApplName) == ("MQADMIN", "PYMQPCF.1", "ibmmq app")
    assert (got.MsgId, got.CorrelId) == (b"M" * 24, bytes(range(24)))
    assert (got.Persistence, got.Priority, got.OriginalLength) == (C.MQPER_PERSISTENT, 4, 77)
    back = mqi.MQMD(Version=2, MsgId=b"\x01" * 24, Format="MQSTR", PutDate="20260101", PutTime="12000000",
                    UserIdentifier="admin", BackoutCount=3, MsgSeqNumber=9)
    md2 = ibmmq.MD().unpack(N.MQMD.encode(back, pad=b" "))
    assert md2.MsgId == b"\x01" * 24 and md2.Format == b"MQSTR   " and md2.PutDate == b"20260101"
    assert md2.UserIdentifier == b"admin       " and md2.BackoutCount == 3 and md2.MsgSeqNumber == 9


def test_output_fields_rewritten_on_the_callers_bytes():
    """What the transport does after MQOPEN: only changed members are rewritten, blank-padded."""
    od = ibmmq.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"PYMQPCF.*")
    packed = od.pack()
    res = N.MQOD.decode(packed)
    res.ObjectName = "PYMQPCF.0001"
    res.ResolvedQName = "PYMQPCF.0001"
    res.ResolvedType = C.MQOT_Q
    out = N.MQOD.encode(res, packed, pad=b" ")
    od.unpack(out)
    assert od.ObjectName == b"PYMQPCF.0001".ljust(48) and od.ObjectName.strip() == b"PYMQPCF.0001"
    assert od.ResolvedQName == b"PYMQPCF.0001".ljust(48) and od.ResolvedType == C.MQOT_Q
    assert od.DynamicQName == b"PYMQPCF.*" + bytes(39)  # untouched input keeps ibmmq's NUL padding


def test_gmo_single_character_members():
    gmo = ibmmq.GMO(Options=C.MQGMO_WAIT, WaitInterval=5000, MatchOptions=C.MQMO_MATCH_CORREL_ID,
                    GroupStatus=C.MQGS_LAST_MSG_IN_GROUP, MsgToken=b"T" * 16, ReturnedLength=12, MsgHandle=7)
    got = N.MQGMO.decode(gmo.pack())
    assert (got.Options, got.WaitInterval, got.MatchOptions) == (C.MQGMO_WAIT, 5000, C.MQMO_MATCH_CORREL_ID)
    assert got.GroupStatus == C.MQGS_LAST_MSG_IN_GROUP and got.SegmentStatus == ord(" ") == got.Reserved1
    assert (got.MsgToken, got.ReturnedLength, got.MsgHandle) == (b"T" * 16, 12, 7)
    got.ReturnedLength = 300
    got.GroupStatus = C.MQGS_MSG_IN_GROUP
    back = ibmmq.GMO().unpack(N.MQGMO.encode(got, gmo.pack()))
    assert back.ReturnedLength == 300 and back.GroupStatus == C.MQGS_MSG_IN_GROUP and back.MsgHandle == 7


def test_pmo_pointers_are_not_handed_to_qmlite():
    pmo = ibmmq.PMO(Options=C.MQPMO_NO_SYNCPOINT, PutMsgRecPtr=0x7FFF12345678, PubLevel=3)
    got = N.MQPMO.decode(pmo.pack())
    assert got.PutMsgRecPtr == 0 and got.Options == C.MQPMO_NO_SYNCPOINT and got.PubLevel == 3
    got.pack()  # qmlite's 32-bit wire layout accepts it
    # ...and the caller's pointer survives an output rewrite
    got.ResolvedQName = "Q1"
    out = ibmmq.PMO().unpack(N.MQPMO.encode(got, pmo.pack(), pad=b" "))
    assert out.PutMsgRecPtr == 0x7FFF12345678 and out.ResolvedQName.strip() == b"Q1"


def test_charv_read_through_ibmmq_pointers():
    sd = ibmmq.SD(Options=C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED)
    sd.set_vs("ObjectString", b"price/fruit")
    sd.set_vs("SubName", "SUB.NATIVE")
    got = N.MQSD.decode(sd.pack())
    assert isinstance(got, mqi.MQSD)
    assert got.ObjectString.VSString == "price/fruit" and got.SubName.VSString == "SUB.NATIVE"
    assert got.SubUserData.VSString == "" and got.Options == C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED
    got.pack()  # and qmlite can send it

    od = ibmmq.OD(ObjectType=C.MQOT_TOPIC)
    od.set_vs("ObjectString", b"a/b/c")
    assert N.MQOD.decode(od.pack()).ObjectString.VSString == "a/b/c"


def test_charv_output_written_into_the_callers_buffer():
    buf = ctypes.create_string_buffer(16)
    sd = ibmmq.SD()
    sd.ResObjectStringVSPtr = ctypes.addressof(buf)
    sd.ResObjectStringVSBufSize = 16
    packed = sd.pack()
    res = N.MQSD.decode(packed)
    res.ResObjectString = mqi.MQCHARV("price/fruit/apples/long", 16, 1208)
    out = ibmmq.SD().unpack(N.MQSD.encode(res, packed))
    assert buf.raw == b"price/fruit/appl"  # truncated to the buffer, as MQ does
    assert out.ResObjectStringVSLength == len("price/fruit/apples/long")
    assert out.ResObjectStringVSPtr == ctypes.addressof(buf)


def test_charv_by_offset():
    # a structure built without pointers (VSOffset into the same buffer) also decodes
    base = bytearray(N.MQOD.encode(mqi.MQOD(Version=4)))
    base += b"x/y\0"
    f = N.MQOD.by_name["ObjectString"]
    struct.pack_into("@P4i", base, f.offset, 0, N.MQOD.size, 0, 3, 1208)
    assert N.MQOD.decode(bytes(base)).ObjectString.VSString == "x/y"


def test_csp_credentials_through_pointers():
    csp = ibmmq.CSP()
    csp._set_ptr_field("CSPUserId", "admin")
    csp._set_ptr_field("CSPPassword", b"passw0rd")
    csp.AuthenticationType = C.MQCSP_AUTH_USER_ID_AND_PWD
    got = N.MQCSP.decode(csp.pack())
    assert got.AuthenticationType == C.MQCSP_AUTH_USER_ID_AND_PWD
    assert N.read_pointer(got.CSPUserIdPtr, got.CSPUserIdLength) == b"admin"
    assert N.read_pointer(got.CSPPasswordPtr, got.CSPPasswordLength) == b"passw0rd"


def test_cd_connection_fields():
    cd = ibmmq.CD(ChannelName=b"DEV.ADMIN.SVRCONN", ConnectionName=b"127.0.0.1(1414)", SharingConversations=3,
                  HeartbeatInterval=60, MaxMsgLength=1000)
    got = N.MQCD.decode(cd.pack())
    assert (got.ChannelName, got.ConnectionName, got.Version) == ("DEV.ADMIN.SVRCONN", "127.0.0.1(1414)", 11)
    assert (got.SharingConversations, got.HeartbeatInterval, got.MaxMsgLength) == (3, 60, 1000)
    assert (got.ChannelType, got.TransportType) == (C.MQCHT_CLNTCONN, C.MQXPT_TCP)


def test_cno_appl_name_and_client_conn_pointer():
    cno = ibmmq.CNO(Version=7, ApplName=b"my app", Options=C.MQCNO_CLIENT_BINDING)
    got = N.MQCNO.decode(cno.pack())
    assert (got.Version, got.ApplName, got.Options) == (7, "my app", C.MQCNO_CLIENT_BINDING)


@pytest.mark.parametrize("lay, bad", [
    (N.MQOD, b"XX  " + bytes(420)),  # wrong StrucId
    (N.MQMD, b"MD  " + bytes(10)),  # too short
    (N.MQGMO, "GMO "),  # not bytes
])
def test_bad_buffers_raise_the_structure_reason(lay, bad):
    with pytest.raises(N.NativeError) as info:
        lay.decode(bad)
    assert info.value.reason == lay.reason


def test_too_long_value_refused():
    md = mqi.MQMD(Format="TOO-LONG-FORMAT")
    with pytest.raises(ValueError):
        N.MQMD.encode(md)


def test_structure_versions_make_ibmmq_build_current_layouts():
    assert ibmmqc.__strucversions__["od"] == C.MQOD_CURRENT_VERSION
    assert ibmmqc.__strucversions__["cno"] == C.MQCNO_CURRENT_VERSION
    assert len(ibmmq.CNO().pack()) == N.MQCNO.size_of(C.MQCNO_CURRENT_VERSION)
    assert len(ibmmq.CSP().pack()) == N.MQCSP.size_of(C.MQCSP_CURRENT_VERSION)
    assert len(ibmmq.STS().pack()) == N.MQSTS.size_of(C.MQSTS_CURRENT_VERSION)


def test_an_extension_inside_the_ibmmq_package_wins_over_qmlites(tmp_path):
    """Installing qmlite never shadows a working IBM install: ibmmq imports its own ``ibmmq.ibmmqc``
    first and only falls back to the top-level module when that fails.  A copy of ibmmq with a
    stand-in extension of its own shows which one it takes."""
    import shutil
    import subprocess
    import sys

    pkg = pathlib.Path(ibmmq.__file__).parent
    shutil.copytree(pkg, tmp_path / "ibmmq", ignore=shutil.ignore_patterns("ibmmqc*.so", "__pycache__"))
    # the vendor's extension, here a Python file standing in for ibmmqc.abi3.so (it reuses qmlite's
    # functions only so that the package can finish importing)
    (tmp_path / "ibmmq" / "ibmmqc.py").write_text(
        "from ibmmqc import *\n"
        "from ibmmqc import __version__, __cmdlevel__, __mqbuild__, __strucversions__\n"
        "VENDOR = True\n")
    code = "import ibmmq; print(getattr(ibmmq.ibmmqc, 'VENDOR', False), ibmmq.ibmmqc.__name__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(tmp_path), "MQIPY_NOOTEL": "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "ibmmq.ibmmqc"]
