"""Message handles and properties in ``ibmmqc.msghandles``, driven with the structures ``ibmmq`` packs.

No server: the handles live in the client process, as with IBM's MQ client.  The connection table is
replaced by a validator that knows two fake connections.
"""

from __future__ import annotations

import math
import struct
import threading

import pytest

ibmmq = pytest.importorskip("ibmmq")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from ibmmq import CMQC  # noqa: E402
from ibmmq.mqprops import CMHO, DMHO, DMPO, IMPO, PD, SMPO  # noqa: E402

from ibmmqc import msghandles as MH  # noqa: E402
from qmlite.pcf import properties as PR  # noqa: E402

HCONN = 0x1001
OTHER = 0x1002
OK, WARNING, FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED


@pytest.fixture(autouse=True)
def connections():
    MH.set_hconn_validator(lambda h: h in (HCONN, OTHER))
    yield
    MH.set_hconn_validator(None)
    MH.drop_connection(HCONN)
    MH.drop_connection(OTHER)


def new(hconn=HCONN, **kw):
    hmsg, cc, rc = MH.MQCRTMH(hconn, CMHO(**kw).pack())
    assert (cc, rc) == (OK, 0)
    return hmsg


def setp(hmsg, name, value, ptype=CMQC.MQTYPE_STRING, length=CMQC.MQVL_NULL_TERMINATED, hconn=HCONN, **smpo):
    if isinstance(name, str):
        name = name.encode()
    return MH.MQSETMP(hconn, hmsg, SMPO(**smpo).pack(), name, PD().pack(), ptype, value, length)


def inq(hmsg, name, options=CMQC.MQIMPO_INQ_FIRST | CMQC.MQIMPO_CONVERT_VALUE, ptype=CMQC.MQTYPE_AS_SET,
        maxlen=64, hconn=HCONN):
    if isinstance(name, str):
        name = name.encode()
    return MH.MQINQMP(hconn, hmsg, IMPO(Options=options).pack(), name, PD().pack(), ptype, maxlen)


def dltp(hmsg, name, options=CMQC.MQDMPO_DEL_FIRST, hconn=HCONN):
    return MH.MQDLTMP(hconn, hmsg, DMPO(Options=options).pack(), name.encode())


# --------------------------------------------------------------------------------------------------
# MQCRTMH / MQDLTMH
# --------------------------------------------------------------------------------------------------


def test_create_returns_distinct_nonzero_64bit_handles():
    a, b = new(), new()
    assert a != b and a > 0xFFFFFFFF and b > 0xFFFFFFFF


@pytest.mark.parametrize("hconn", [0, -1, 0x9999])
def test_create_on_a_bad_hconn_is_2018(hconn):
    assert MH.MQCRTMH(hconn, CMHO().pack()) == (CMQC.MQHM_UNUSABLE_HMSG, FAILED, CMQC.MQRC_HCONN_ERROR)


def test_create_unassociated_is_allowed_and_survives_drop_connection():
    h = new(CMQC.MQHC_UNASSOCIATED_HCONN)
    mine = new()
    assert MH.drop_connection(HCONN) == 1
    assert MH.properties_of(mine) is None
    assert setp(h, "a", "x", hconn=CMQC.MQHC_UNASSOCIATED_HCONN) == (OK, 0)
    assert setp(h, "b", "y", hconn=HCONN) == (OK, 0)  # any live connection may use it
    assert MH.MQDLTMH(CMQC.MQHC_UNASSOCIATED_HCONN, h, DMHO().pack()) == (OK, 0)


@pytest.mark.parametrize("options", [CMQC.MQCMHO_VALIDATE, CMQC.MQCMHO_NO_VALIDATION,
                                     CMQC.MQCMHO_DEFAULT_VALIDATION])
def test_create_options(options):
    assert new(Options=options)


def test_create_structure_and_option_errors():
    bad_id = b"XXXX" + CMHO().pack()[4:]
    assert MH.MQCRTMH(HCONN, bad_id)[1:] == (FAILED, CMQC.MQRC_CMHO_ERROR)
    assert MH.MQCRTMH(HCONN, CMHO(Version=2).pack())[1:] == (FAILED, CMQC.MQRC_CMHO_ERROR)
    assert MH.MQCRTMH(HCONN, CMHO().pack()[:8])[1:] == (FAILED, CMQC.MQRC_CMHO_ERROR)
    assert MH.MQCRTMH(HCONN, CMHO(Options=7).pack())[1:] == (FAILED, CMQC.MQRC_OPTIONS_ERROR)


def test_delete_handle():
    h = new()
    assert MH.MQDLTMH(HCONN, h, DMHO().pack()) == (OK, 0)
    assert MH.MQDLTMH(HCONN, h, DMHO().pack()) == (FAILED, CMQC.MQRC_HMSG_ERROR)
    assert MH.MQDLTMH(HCONN, 12345, DMHO().pack()) == (FAILED, CMQC.MQRC_HMSG_ERROR)
    assert setp(h, "a", "x") == (FAILED, CMQC.MQRC_HMSG_ERROR)
    assert inq(h, "a")[3:] == (FAILED, CMQC.MQRC_HMSG_ERROR)
    assert MH.MQDLTMH(HCONN, new(), b"DMHO" + bytes(8)) == (FAILED, CMQC.MQRC_DMHO_ERROR)


def test_handle_is_bound_to_its_connection():
    h = new(HCONN)
    assert setp(h, "a", "x", hconn=OTHER) == (FAILED, CMQC.MQRC_HMSG_ERROR)
    assert setp(h, "a", "x", hconn=0x7777) == (FAILED, CMQC.MQRC_HCONN_ERROR)
    assert MH.MQDLTMH(OTHER, h, DMHO().pack()) == (FAILED, CMQC.MQRC_HMSG_ERROR)


# --------------------------------------------------------------------------------------------------
# Every type, set and read back as ibmmq expects it
# --------------------------------------------------------------------------------------------------

TYPED = [
    # (type, value set, value_length, value read, its Python type, DataLength)
    (CMQC.MQTYPE_BOOLEAN, True, 4, 1, int, 4),
    (CMQC.MQTYPE_BOOLEAN, False, 4, 0, int, 4),
    (CMQC.MQTYPE_INT8, -128, 1, -128, int, 1),
    (CMQC.MQTYPE_INT16, 32767, 2, 32767, int, 2),
    (CMQC.MQTYPE_INT32, -2147483648, 4, -2147483648, int, 4),
    (CMQC.MQTYPE_INT64, 2**63 - 1, 8, 2**63 - 1, int, 8),
    (CMQC.MQTYPE_FLOAT32, 0.5, 4, 0.5, float, 4),
    (CMQC.MQTYPE_FLOAT32, 1.1, 4, struct.unpack("f", struct.pack("f", 1.1))[0], float, 4),
    (CMQC.MQTYPE_FLOAT64, 1.1, 8, 1.1, float, 8),
    (CMQC.MQTYPE_STRING, "héllo wörld", CMQC.MQVL_NULL_TERMINATED, "héllo wörld", str, 13),
    (CMQC.MQTYPE_STRING, "", CMQC.MQVL_EMPTY_STRING, "", str, 0),
    (CMQC.MQTYPE_BYTE_STRING, b"\x00\x01\xff", 3, b"\x00\x01\xff", bytes, 3),
    (CMQC.MQTYPE_BYTE_STRING, b"", 0, b"", bytes, 0),
    (CMQC.MQTYPE_NULL, None, 0, None, type(None), 0),
]


@pytest.mark.parametrize("ptype,value,length,want,pytype,data_length", TYPED)
def test_every_type_round_trips_with_ibmmq_shapes(ptype, value, length, want, pytype, data_length):
    h = new()
    assert setp(h, "p", value, ptype, length) == (OK, 0)
    got, dl, name, cc, rc = inq(h, "p")
    assert (cc, rc, dl, name) == (OK, 0, data_length, None)
    assert type(got) is pytype and got == want


def test_set_conversions_of_the_c_extension():
    h = new()
    setp(h, "i8", 200, CMQC.MQTYPE_INT8)            # (MQINT8) cast wraps
    setp(h, "i16", 70000, CMQC.MQTYPE_INT16)
    setp(h, "i32", 2**32 + 5, CMQC.MQTYPE_INT32)
    setp(h, "b", 2.0, CMQC.MQTYPE_BOOLEAN)           # (MQBOOL) of a double
    setp(h, "f", 3, CMQC.MQTYPE_FLOAT64)             # an int is a number
    setp(h, "cut", "abcdef", CMQC.MQTYPE_STRING, 3)  # ValueLength counts UTF-8 bytes
    setp(h, "nul", "ab\0cd", CMQC.MQTYPE_STRING)     # MQVL_NULL_TERMINATED stops at the NUL
    setp(h, "by", b"abcdef", CMQC.MQTYPE_BYTE_STRING, 2)
    assert inq(h, "i8")[0] == -56
    assert inq(h, "i16")[0] == 70000 - 65536
    assert inq(h, "i32")[0] == 5
    assert inq(h, "b")[0] == 1
    assert inq(h, "f")[0] == 3.0 and type(inq(h, "f")[0]) is float
    assert inq(h, "cut")[:2] == ("abc", 3)
    assert inq(h, "nul")[:2] == ("ab", 2)
    assert inq(h, "by")[:2] == (b"ab", 2)


def test_set_wrong_python_types_raise_like_the_c_extension():
    h = new()
    with pytest.raises(TypeError):
        setp(h, "s", b"bytes", CMQC.MQTYPE_STRING)
    with pytest.raises(TypeError):
        setp(h, "x", "text", CMQC.MQTYPE_BYTE_STRING, 4)
    with pytest.raises(TypeError):
        setp(h, "i", 1.5, CMQC.MQTYPE_INT32)
    with pytest.raises(OverflowError):
        setp(h, "i", 2**64, CMQC.MQTYPE_INT64)
    with pytest.raises(TypeError):
        MH.MQSETMP(HCONN, h, SMPO().pack(), "str-name", PD().pack(), CMQC.MQTYPE_STRING, "v", -1)


def test_set_replaces_in_place_and_usr_prefix_is_the_same_property():
    h = new()
    setp(h, "Color", "red")
    setp(h, "usr.Color", 7, CMQC.MQTYPE_INT32)
    assert inq(h, "Color")[:2] == (7, 4)
    assert inq(h, "usr.Color")[0] == 7
    assert list(MH.properties_of(h)) == ["Color"]


def test_value_length_errors():
    h = new()
    assert setp(h, "x", b"ab", CMQC.MQTYPE_BYTE_STRING, CMQC.MQVL_NULL_TERMINATED) == \
        (FAILED, CMQC.MQRC_BUFFER_LENGTH_ERROR)
    assert setp(h, "x", "ab", CMQC.MQTYPE_STRING, -5) == (FAILED, CMQC.MQRC_BUFFER_LENGTH_ERROR)


def test_bad_type_and_structures():
    h = new()
    assert setp(h, "x", "v", 3) == (FAILED, CMQC.MQRC_PROPERTY_TYPE_ERROR)
    assert setp(h, "x", "v", CMQC.MQTYPE_AS_SET) == (FAILED, CMQC.MQRC_PROPERTY_TYPE_ERROR)
    assert MH.MQSETMP(HCONN, h, b"SMPO" + bytes(16), b"x", PD().pack(), CMQC.MQTYPE_STRING, "v", -1) == \
        (FAILED, CMQC.MQRC_SMPO_ERROR)
    assert MH.MQSETMP(HCONN, h, SMPO().pack(), b"x", PD().pack()[:20], CMQC.MQTYPE_STRING, "v", -1) == \
        (FAILED, CMQC.MQRC_PD_ERROR)
    assert setp(h, "x", "v", Options=0x40) == (FAILED, CMQC.MQRC_OPTIONS_ERROR)
    assert inq(h, "x", ptype=3)[3:] == (FAILED, CMQC.MQRC_PROPERTY_TYPE_ERROR)
    assert MH.MQINQMP(HCONN, h, IMPO().pack()[:60], b"x", PD().pack(), 0, 64)[3:] == \
        (FAILED, CMQC.MQRC_IMPO_ERROR)
    assert inq(h, "x", options=CMQC.MQIMPO_INQ_NEXT | CMQC.MQIMPO_INQ_PROP_UNDER_CURSOR)[3:] == \
        (FAILED, CMQC.MQRC_OPTIONS_ERROR)
    assert MH.MQDLTMP(HCONN, h, b"DMPO" + bytes(8), b"x") == (FAILED, CMQC.MQRC_DMPO_ERROR)


# --------------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------------

BAD_NAMES = ["a..b", ".a", "a.", "1abc", "a b", "a%", "NULL", "usr.true", "JMSFoo", "usr.JMSX",
             "Body.x", "Root.x", "mqx.a.b", "MQ.a.b", "a-b", "\U0001F600"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_bad_names_are_2442(name):
    assert setp(new(), name, "v") == (FAILED, CMQC.MQRC_PROPERTY_NAME_ERROR)


@pytest.mark.parametrize("name", ["a", "a.b.c", "mq_usr.a.b", "mqx.a", "_x1", "Größe", "JMSCorrelationID",
                                  "JMSReplyTo", "JMSType", "JMSXGroupID"])
def test_good_names(name):
    assert setp(new(), name, "v") == (OK, 0)


def test_name_length():
    h = new()
    assert setp(h, "", "v") == (FAILED, CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR)
    assert setp(h, "a" * 4096, "v") == (FAILED, CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR)
    assert setp(h, "a" * 4095, "v") == (OK, 0)
    assert inq(h, "")[3:] == (FAILED, CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR)


def test_no_validation_skips_the_reserved_name_rules():
    h = new(Options=CMQC.MQCMHO_NO_VALIDATION)
    assert setp(h, "NULL", "v") == (OK, 0)
    assert setp(h, "JMSFoo", "v") == (OK, 0)
    assert setp(h, "a..b", "v") == (FAILED, CMQC.MQRC_PROPERTY_NAME_ERROR)  # still no MQRFH2 element


def test_mixed_content_is_refused():
    h = new()
    assert setp(h, "a.b", "v") == (OK, 0)
    assert setp(h, "a.b.c", "v") == (FAILED, CMQC.MQRC_PROPERTY_NAME_ERROR)
    assert setp(h, "a", "v") == (OK, 0)  # usr.a is not a.b's group
    assert setp(h, "x.y.z", "v") == (OK, 0)
    assert setp(h, "x.y", "v") == (FAILED, CMQC.MQRC_PROPERTY_NAME_ERROR)


def test_jms_synonyms():
    h = new()
    assert setp(h, "JMSXGroupSeq", "1") == (FAILED, CMQC.MQRC_PROPERTY_TYPE_ERROR)
    assert setp(h, "JMSXGroupSeq", 3, CMQC.MQTYPE_INT32) == (OK, 0)
    assert setp(h, "JMSCorrelationID", "abc") == (OK, 0)
    assert setp(h, "JMSExpiration", 5, CMQC.MQTYPE_INT64) == (FAILED, CMQC.MQRC_PROPERTY_NAME_ERROR)
    assert inq(h, "jms.Cid")[0] == "abc"
    assert inq(h, "JMSCorrelationID")[0] == "abc"
    assert inq(h, "jms.%")[2] == "JMSXGroupSeq"  # returned under the JMS name
    props = MH.properties_of(h)
    assert props["jms.Seq"] == PR.Property(PR.INT32, 3) and props.folder("jms.Cid") == "jms"


def test_root_mqmd_fields():
    h = new()
    assert inq(h, "Root.MQMD.Priority")[:2] == (-1, 4)  # the default MQMD
    assert inq(h, "Root.MQMD.CorrelId")[:2] == (bytes(24), 24)
    assert setp(h, "Root.MQMD.Priority", 4, CMQC.MQTYPE_INT32) == (OK, 0)
    assert setp(h, "Root.MQMD.Priority", "4") == (FAILED, CMQC.MQRC_PROPERTY_TYPE_ERROR)
    assert setp(h, "Root.MQMD.CorrelId", b"C" * 3, CMQC.MQTYPE_BYTE_STRING, 3) == (OK, 0)
    assert setp(h, "Root.MQMD.CorrelId", b"C" * 25, CMQC.MQTYPE_BYTE_STRING, 25) == \
        (FAILED, CMQC.MQRC_PROPERTY_VALUE_TOO_BIG)
    assert setp(h, "Root.MQMD.ReplyToQ", "Q1") == (OK, 0)
    assert setp(h, "Root.MQMD.Nope", 1, CMQC.MQTYPE_INT32) == (FAILED, CMQC.MQRC_PROPERTY_NAME_ERROR)
    assert inq(h, "Root.MQMD.Priority")[0] == 4
    assert inq(h, "Root.MQMD.CorrelId")[0] == b"CCC" + bytes(21)
    assert MH.md_fields_of(h) == {"Priority": 4, "CorrelId": b"CCC" + bytes(21), "ReplyToQ": "Q1"}
    assert inq(h, "%")[3:] == (FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)  # not properties
    assert MH.properties_of(h) == PR.Properties()
    assert dltp(h, "Root.MQMD.Priority") == (OK, 0)
    assert inq(h, "Root.MQMD.Priority")[0] == -1


def test_a_get_into_the_handle_replaces_its_root_mqmd():
    from ibmmqc import native as N

    h = new()
    assert setp(h, "Root.MQMD.Priority", 4, CMQC.MQTYPE_INT32) == (OK, 0)
    assert MH.descriptor_of(h)["Priority"] == 4 and MH.descriptor_of(h)["MsgType"] == 8  # the rest: defaults
    got = N.MQMD.decode(ibmmq.MD(Version=2, Priority=9, ReplyToQ=b"RQ", CorrelId=b"C" * 3,
                                 PutApplName=b"app", MsgSeqNumber=2).pack())
    MH.md_from_get(h, got)
    assert inq(h, "Root.MQMD.Priority")[:2] == (9, 4)
    assert inq(h, "Root.MQMD.ReplyToQ")[:2] == ("RQ", 2)  # without the blank padding
    assert inq(h, "Root.MQMD.CorrelId")[0] == b"CCC" + bytes(21)
    assert inq(h, "Root.MQMD.PutApplName")[0] == "app"
    assert inq(h, "Root.MQMD.MsgSeqNumber")[0] == 2
    assert set(MH.descriptor_of(h)) == set(MH.md_fields_of(h)) and len(MH.md_fields_of(h)) == 27
    assert inq(h, "%")[3:] == (FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)  # still not properties
    MH.md_from_get(0, got)  # no handle: nothing to do
    assert MH.descriptor_of(0) is None and MH.descriptor_of(h + 999) is None


# --------------------------------------------------------------------------------------------------
# MQINQMP: wildcards, cursor, lengths, conversions
# --------------------------------------------------------------------------------------------------


def _all(h, name):
    out, options = [], CMQC.MQIMPO_INQ_FIRST
    while True:
        value, _dl, rname, cc, rc = inq(h, name, options)
        if rc == CMQC.MQRC_PROPERTY_NOT_AVAILABLE:
            assert rname == ""
            return out
        assert (cc, rc) == (OK, 0)
        out.append((rname, value))
        options = CMQC.MQIMPO_INQ_NEXT


def test_wildcard_iteration():
    h = new()
    setp(h, "a", "1")
    setp(h, "f.x", "2")
    setp(h, "f.y", 3, CMQC.MQTYPE_INT32)
    setp(h, "b", "4")
    assert _all(h, "%") == [("a", "1"), ("b", "4"), ("f.x", "2"), ("f.y", 3)]  # b joins its group
    assert _all(h, "f.%") == [("f.x", "2"), ("f.y", 3)]
    assert _all(h, "usr.%") == [("a", "1"), ("b", "4")]
    assert _all(h, "nothing.%") == []
    assert inq(h, "a%b")[3:] == (FAILED, CMQC.MQRC_PROPERTY_NAME_ERROR)


def test_inq_next_with_a_changed_name_starts_again():
    h = new()
    setp(h, "a", "1")
    setp(h, "b", "2")
    assert inq(h, "%")[2] == "a"
    assert inq(h, "%", CMQC.MQIMPO_INQ_NEXT)[2] == "b"
    assert inq(h, "b", CMQC.MQIMPO_INQ_NEXT)[0] == "2"     # a new name: INQ_FIRST implied
    assert inq(h, "a", CMQC.MQIMPO_INQ_NEXT)[0] == "1"


def test_value_too_big_then_under_cursor():
    h = new()
    setp(h, "long", "x" * 100)
    setp(h, "raw", b"y" * 10, CMQC.MQTYPE_BYTE_STRING, 10)
    setp(h, "n", 5, CMQC.MQTYPE_INT64)
    assert inq(h, "long", maxlen=10) == ("x" * 10, 100, None, FAILED, CMQC.MQRC_PROPERTY_VALUE_TOO_BIG)
    assert inq(h, "long", CMQC.MQIMPO_INQ_PROP_UNDER_CURSOR, maxlen=100)[:2] == ("x" * 100, 100)
    assert inq(h, "raw", maxlen=4)[:2] == (b"yyyy", 10)
    assert inq(h, "n", maxlen=4) == (None, 8, None, FAILED, CMQC.MQRC_PROPERTY_VALUE_TOO_BIG)
    # wildcard: the returned name comes back with the failure
    assert inq(h, "%", maxlen=1) == ("x", 100, "long", FAILED, CMQC.MQRC_PROPERTY_VALUE_TOO_BIG)


def test_query_length():
    h = new()
    setp(h, "s", "héllo")
    assert inq(h, "s", CMQC.MQIMPO_QUERY_LENGTH, maxlen=0) == (None, 6, None, OK, 0)
    r = MH.inquire(HCONN, h, IMPO(Options=CMQC.MQIMPO_QUERY_LENGTH).pack(), b"s", PD().pack(), 0, 0)
    assert r.type == CMQC.MQTYPE_STRING


def test_under_cursor_without_cursor_and_after_delete():
    h = new()
    setp(h, "a", "1")
    assert inq(h, "a", CMQC.MQIMPO_INQ_PROP_UNDER_CURSOR)[3:] == (FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
    inq(h, "a")
    assert dltp(h, "a", CMQC.MQDMPO_DEL_PROP_UNDER_CURSOR) == (OK, 0)
    assert dltp(h, "a", CMQC.MQDMPO_DEL_PROP_UNDER_CURSOR) == (FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)


def test_delete_while_iterating_continues_with_the_next():
    h = new()
    for n in "abcd":
        setp(h, n, n)
    seen = [inq(h, "%")[2]]
    while True:
        assert dltp(h, "x", CMQC.MQDMPO_DEL_PROP_UNDER_CURSOR) == (OK, 0)
        r = inq(h, "%", CMQC.MQIMPO_INQ_NEXT)
        if r[4] == CMQC.MQRC_PROPERTY_NOT_AVAILABLE:
            break
        seen.append(r[2])
    assert seen == ["a", "b", "c", "d"] and MH.properties_of(h) == PR.Properties()


def test_set_first_adds_after_the_properties_of_the_same_group():
    h = new()
    for name in ("a", "f.x", "b", "g.y", "f.z", "c"):
        setp(h, name, name)
    assert [n for n, _v in _all(h, "%")] == ["a", "b", "c", "f.x", "f.z", "g.y"]


def test_set_relative_to_the_cursor():
    h = new()
    setp(h, "a", "1")
    setp(h, "c", "3")
    assert setp(h, "a", "x", Options=CMQC.MQSMPO_SET_PROP_UNDER_CURSOR) == \
        (FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
    inq(h, "c")
    assert setp(h, "b", "2", Options=CMQC.MQSMPO_SET_PROP_BEFORE_CURSOR) == (OK, 0)
    assert setp(h, "d", "4", Options=CMQC.MQSMPO_SET_PROP_AFTER_CURSOR) == (OK, 0)
    assert setp(h, "c", "three", Options=CMQC.MQSMPO_SET_PROP_UNDER_CURSOR) == (OK, 0)
    assert _all(h, "%") == [("a", "1"), ("b", "2"), ("c", "three"), ("d", "4")]


def test_duplicates_by_append_are_iterated_and_deleted_first_first():
    h = new()
    setp(h, "a", "1")
    assert setp(h, "a", "2", Options=CMQC.MQSMPO_APPEND_PROPERTY) == (OK, 0)
    assert inq(h, "a")[0] == "1"
    assert inq(h, "a", CMQC.MQIMPO_INQ_NEXT)[0] == "2"
    assert MH.properties_of(h)["a"].value == "1"
    assert dltp(h, "a") == (OK, 0)
    assert inq(h, "a")[0] == "2"


CONVERSIONS = [
    (CMQC.MQTYPE_INT8, 5, CMQC.MQTYPE_INT64, 5),
    (CMQC.MQTYPE_INT16, -5, CMQC.MQTYPE_INT32, -5),
    (CMQC.MQTYPE_INT32, 70000, CMQC.MQTYPE_STRING, "70000"),
    (CMQC.MQTYPE_BOOLEAN, True, CMQC.MQTYPE_STRING, "TRUE"),
    (CMQC.MQTYPE_BOOLEAN, False, CMQC.MQTYPE_BYTE_STRING, b"\x00"),
    (CMQC.MQTYPE_BYTE_STRING, b"\xf1\x12\x00\xff", CMQC.MQTYPE_STRING, "F11200FF"),
    (CMQC.MQTYPE_FLOAT32, 0.25, CMQC.MQTYPE_FLOAT64, 0.25),
    (CMQC.MQTYPE_FLOAT64, 2.5, CMQC.MQTYPE_STRING, "2.5"),
    (CMQC.MQTYPE_STRING, " -42 ", CMQC.MQTYPE_INT16, -42),
    (CMQC.MQTYPE_STRING, "true", CMQC.MQTYPE_BOOLEAN, 1),
    (CMQC.MQTYPE_STRING, "0", CMQC.MQTYPE_BOOLEAN, 0),
    (CMQC.MQTYPE_STRING, "1.5e3", CMQC.MQTYPE_FLOAT64, 1500.0),
    (CMQC.MQTYPE_STRING, "abc", CMQC.MQTYPE_STRING, "abc"),
    (CMQC.MQTYPE_NULL, None, CMQC.MQTYPE_INT32, None),
]


@pytest.mark.parametrize("ptype,value,want_type,want", CONVERSIONS)
def test_convert_type(ptype, value, want_type, want):
    h = new()
    length = len(value) if isinstance(value, bytes) else -1
    assert setp(h, "p", value, ptype, length) == (OK, 0)
    got, _dl, _n, cc, rc = inq(h, "p", CMQC.MQIMPO_CONVERT_TYPE, want_type)
    assert (cc, rc) == (OK, 0)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize("ptype,value,want_type,reason", [
    (CMQC.MQTYPE_INT32, 1, CMQC.MQTYPE_INT16, CMQC.MQRC_PROP_CONV_NOT_SUPPORTED),   # narrowing
    (CMQC.MQTYPE_INT32, 1, CMQC.MQTYPE_FLOAT64, CMQC.MQRC_PROP_CONV_NOT_SUPPORTED),
    (CMQC.MQTYPE_FLOAT64, 1.0, CMQC.MQTYPE_FLOAT32, CMQC.MQRC_PROP_CONV_NOT_SUPPORTED),
    (CMQC.MQTYPE_STRING, "ab", CMQC.MQTYPE_BYTE_STRING, CMQC.MQRC_PROP_CONV_NOT_SUPPORTED),
    (CMQC.MQTYPE_STRING, "12x", CMQC.MQTYPE_INT32, CMQC.MQRC_PROP_NUMBER_FORMAT_ERROR),
    (CMQC.MQTYPE_STRING, "300", CMQC.MQTYPE_INT8, CMQC.MQRC_PROP_NUMBER_FORMAT_ERROR),
    (CMQC.MQTYPE_STRING, "yes", CMQC.MQTYPE_BOOLEAN, CMQC.MQRC_PROP_NUMBER_FORMAT_ERROR),
])
def test_convert_type_errors(ptype, value, want_type, reason):
    h = new()
    setp(h, "p", value, ptype)
    assert inq(h, "p", CMQC.MQIMPO_CONVERT_TYPE, want_type)[3:] == (FAILED, reason)


def test_requested_type_without_convert_type_returns_the_type_as_set():
    h = new()
    setp(h, "p", 5, CMQC.MQTYPE_INT32)
    assert inq(h, "p", CMQC.MQIMPO_INQ_FIRST, CMQC.MQTYPE_STRING)[0] == 5


def test_unknown_dt_from_the_wire_is_a_string_with_a_warning():
    h = new()
    rfh, fmt = PR.join(None, b"", "MQSTR", 546, 1208, folders_extra=["<usr><d dt='dateTime'>2026</d></usr>"])
    MH.decode_from_get(h, rfh + b"body", fmt, 546, 1208)
    value, dl, _n, cc, rc = inq(h, "d")
    assert (value, dl, cc, rc) == ("2026", 4, WARNING, CMQC.MQRC_PROP_TYPE_NOT_SUPPORTED)
    r = MH.inquire(HCONN, h, IMPO().pack(), b"d", PD().pack(), 0, 64)
    assert r.type_string == "dateTime"


def test_delete_property():
    h = new()
    setp(h, "a", "1")
    assert dltp(h, "usr.a") == (OK, 0)
    assert dltp(h, "a") == (WARNING, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
    assert dltp(h, "%") == (FAILED, CMQC.MQRC_PROPERTY_NAME_ERROR)
    assert MH.MQDLTMP(HCONN, h, DMPO(Options=4).pack(), b"a") == (FAILED, CMQC.MQRC_OPTIONS_ERROR)


# --------------------------------------------------------------------------------------------------
# The transport's API: properties_of, encode_for_put, decode_from_get; MQMHBUF / MQBUFMH
# --------------------------------------------------------------------------------------------------


def test_drop_connection_and_unknown_handles():
    a, b, c = new(), new(), new(OTHER)
    setp(a, "x", "1")
    assert MH.drop_connection(HCONN) == 2
    assert MH.properties_of(a) is None and MH.md_fields_of(b) is None and MH.md_fields_of(0) is None
    assert MH.properties_of(c) == PR.Properties()
    assert MH.encode_for_put(a, "MQSTR   ", 546, 1208, b"x") == (b"x", "MQSTR   ")
    assert MH.decode_from_get(a, b"x", "MQSTR   ", 546, 1208) == (b"x", "MQSTR   ", 546, 1208)


def test_encode_for_put_without_properties_is_unchanged():
    h = new()
    assert MH.encode_for_put(h, "MQSTR   ", 546, 1208, b"x") == (b"x", "MQSTR   ")
    assert MH.encode_for_put(0, "MQSTR   ", 546, 1208, b"x") == (b"x", "MQSTR   ")
    assert MH.properties_of(0) is None and MH.properties_of(424242) is None


def test_encode_decode_round_trip_keeps_types():
    src, dst = new(), new()
    for ptype, value, length, *_ in TYPED:
        setp(src, f"p{ptype}_{len(str(value))}", value, ptype, length)
    setp(src, "grp.a", "x")
    setp(src, "mq_usr.g.h", 1, CMQC.MQTYPE_INT16)
    data, fmt = MH.encode_for_put(src, "MQSTR   ", 546, 1208, b"payload")
    assert fmt == "MQHRF2  " and data.startswith(b"RFH ")
    body, fmt2, enc, ccsid = MH.decode_from_get(dst, data, fmt, 546, 1208)
    assert (body, fmt2.strip(), enc, ccsid) == (b"payload", "MQSTR", 546, 1208)
    assert MH.properties_of(dst) == MH.properties_of(src)
    for name, *_ in _all(src, "%"):
        assert inq(dst, name)[:2] == inq(src, name)[:2]


def test_decode_replaces_properties_and_keeps_non_property_folders():
    h = new()
    setp(h, "old", "gone")
    rfh, fmt = PR.join(PR.Properties({"new": 1}), b"body", "MQSTR", 546, 1208,
                      folders_extra=["<psc><Command>Publish</Command></psc>"])
    body, fmt2, _e, _c = MH.decode_from_get(h, rfh, fmt, 546, 1208)
    assert list(MH.properties_of(h)) == ["new"]
    assert fmt2 == "MQHRF2  "
    rest = PR.split(body, fmt2, 546, 1208)
    assert rest.folders == ["<psc><Command>Publish</Command></psc>"] and rest.body == b"body"


def test_decode_without_rfh2_empties_the_handle_and_leaves_data():
    h = new()
    setp(h, "old", "gone")
    assert MH.decode_from_get(h, b"plain", "MQSTR   ", 546, 1208) == (b"plain", "MQSTR   ", 546, 1208)
    assert MH.properties_of(h) == PR.Properties()
    broken = b"RFH \x02\x00\x00\x00" + bytes(4)
    assert MH.decode_from_get(h, broken, "MQHRF2  ", 546, 1208)[0] == broken


def _md(fmt=b"MQSTR   ", encoding=546, ccsid=1208):
    from ibmmq import MD
    return MD(Format=fmt, Encoding=encoding, CodedCharSetId=ccsid).pack()


def _opts(strucid, options):
    return struct.pack("=4sii", strucid, 1, options)


def test_mqmhbuf_and_mqbufmh():
    h = new()
    setp(h, "a", "1")
    setp(h, "b", 2, CMQC.MQTYPE_INT32)
    md = _md()
    buf, md2, dl, cc, rc = MH.MQMHBUF(HCONN, h, _opts(b"MHBO", 1), b"%", md, 10)
    assert (cc, rc, buf) == (FAILED, CMQC.MQRC_PROPERTY_VALUE_TOO_BIG, b"") and dl > 10
    buf, md2, dl, cc, rc = MH.MQMHBUF(HCONN, h, _opts(b"MHBO", 3), b"%", md, 4096)
    assert (cc, rc, dl) == (OK, 0, len(buf)) and md2[32:40] == b"MQHRF2  "
    assert MH.properties_of(h) == PR.Properties()  # MQMHBO_DELETE_PROPERTIES
    assert MH.MQMHBUF(HCONN, h, _opts(b"MHBO", 0), b"%", md, 99)[3:] == (FAILED, CMQC.MQRC_OPTIONS_ERROR)
    assert MH.MQMHBUF(HCONN, h, _opts(b"MHBO", 1), b"%", md, 99)[3:] == (FAILED, CMQC.MQRC_PROPERTY_NOT_AVAILABLE)
    assert MH.MQMHBUF(HCONN, h, _opts(b"MHBO", 1), b"", md, 99)[3:] == (FAILED, CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR)
    assert MH.MQMHBUF(HCONN, h, _opts(b"XXXX", 1), b"%", md, 99)[3:] == (FAILED, CMQC.MQRC_MHBO_ERROR)
    assert MH.MQMHBUF(HCONN, h, _opts(b"MHBO", 1), b"%", md[:100], 99)[3:] == (FAILED, CMQC.MQRC_MD_ERROR)
    g = new()
    out, md3, dl, cc, rc = MH.MQBUFMH(HCONN, g, _opts(b"BMHO", 1), md2, buf + b"tail")
    assert (out, dl, cc, rc) == (b"tail", 4, OK, 0) and md3[32:40] == b"MQSTR   "
    assert list(MH.properties_of(g).items()) == [("a", PR.Property(PR.STRING, "1")), ("b", PR.Property(PR.INT32, 2))]
    kept = MH.MQBUFMH(HCONN, new(), _opts(b"BMHO", 0), md2, buf)
    assert kept[0] == buf and kept[3:] == (OK, 0)


PROPERTY = st.one_of(
    st.tuples(st.just(CMQC.MQTYPE_STRING), st.text(st.characters(blacklist_categories=("Cs",),
                                                              blacklist_characters="\0"), max_size=20)),
    st.tuples(st.just(CMQC.MQTYPE_BOOLEAN), st.booleans()),
    st.tuples(st.just(CMQC.MQTYPE_INT8), st.integers(-128, 127)),
    st.tuples(st.just(CMQC.MQTYPE_INT16), st.integers(-(2**15), 2**15 - 1)),
    st.tuples(st.just(CMQC.MQTYPE_INT32), st.integers(-(2**31), 2**31 - 1)),
    st.tuples(st.just(CMQC.MQTYPE_INT64), st.integers(-(2**63), 2**63 - 1)),
    st.tuples(st.just(CMQC.MQTYPE_FLOAT32), st.floats(width=32)),
    st.tuples(st.just(CMQC.MQTYPE_FLOAT64), st.floats()),
    st.tuples(st.just(CMQC.MQTYPE_BYTE_STRING), st.binary(max_size=16)),
    st.tuples(st.just(CMQC.MQTYPE_NULL), st.none()),
)
NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
    lambda n: n.upper() not in MH._SQL_WORDS and not n.startswith("JMS"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(props=st.dictionaries(st.tuples(st.sampled_from(["", "usr.", "f.", "mq_usr."]), NAME), PROPERTY,
                             max_size=12),
       encoding=st.sampled_from([0x111, 0x222, 546]), body=st.binary(max_size=32))
def test_round_trip_of_arbitrary_property_sets(props, encoding, body):
    src, dst = new(), new()
    try:
        for (prefix, name), (ptype, value) in props.items():
            length = len(value) if ptype == CMQC.MQTYPE_BYTE_STRING else -1
            assert setp(src, prefix + name, value, ptype, length) == (OK, 0)
        data, fmt = MH.encode_for_put(src, "MQSTR   ", encoding, 1208, body)
        out = MH.decode_from_get(dst, data, fmt, encoding, 1208)
        assert out[0] == body and out[1].strip() == "MQSTR"
        assert MH.properties_of(dst) == MH.properties_of(src)
        for rname, value in _all(src, "%"):
            other = inq(dst, rname, maxlen=4096)[0]
            assert type(other) is type(value)
            assert other == value or (isinstance(value, float) and math.isnan(value) and math.isnan(other))
    finally:
        MH.MQDLTMH(HCONN, src, DMHO().pack())
        MH.MQDLTMH(HCONN, dst, DMHO().pack())


# --------------------------------------------------------------------------------------------------
# Threads
# --------------------------------------------------------------------------------------------------


def test_threads_create_set_and_delete_handles():
    before = MH.handle_count()
    errors = []
    made = []

    def work(n):
        try:
            for i in range(200):
                h = new()
                made.append(h)
                assert setp(h, "n", n * 1000 + i, CMQC.MQTYPE_INT32) == (OK, 0)
                assert inq(h, "n")[0] == n * 1000 + i
                assert MH.MQDLTMH(HCONN, h, DMHO().pack()) == (OK, 0)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors and len(set(made)) == 1200 and MH.handle_count() == before


# --------------------------------------------------------------------------------------------------
# ibmmq's own MessageHandle over these functions
# --------------------------------------------------------------------------------------------------


class _QM:
    def get_handle(self):
        return HCONN


@pytest.fixture
def wired(monkeypatch):
    for verb in ("MQCRTMH", "MQDLTMH", "MQSETMP", "MQINQMP", "MQDLTMP"):
        monkeypatch.setattr(ibmmq.ibmmqc, verb, getattr(MH, verb))


def test_ibmmq_message_handle(wired):
    mh = ibmmq.MessageHandle(_QM())
    mh.properties.set("Color", "blue")
    mh.properties.set("n", 42, property_type=CMQC.MQTYPE_INT32)
    mh.properties.set("ok", True, property_type=CMQC.MQTYPE_BOOLEAN)
    mh.properties.set("raw", b"\x01\x02", property_type=CMQC.MQTYPE_BYTE_STRING, value_length=2)
    assert mh.properties["Color"] == "blue"
    assert mh.properties.get("n") == 42
    assert mh.properties.get("ok") == 1
    assert mh.properties.get("raw") == b"\x01\x02"
    assert mh.properties.get("%") == ("blue", "Color")
    with pytest.raises(ibmmq.MQMIError) as info:
        mh.properties.get("missing")
    assert info.value.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE
    with pytest.raises(ibmmq.MQMIError) as info:
        mh.properties.get("Color", max_value_length=2)
    assert info.value.reason == CMQC.MQRC_PROPERTY_VALUE_TOO_BIG
    mh.properties.dlt("Color")
    with pytest.raises(ibmmq.MQMIError) as info:  # ibmmq's __getitem__ lets get()'s error through
        mh.properties["Color"]
    assert info.value.reason == CMQC.MQRC_PROPERTY_NOT_AVAILABLE
    mh.dlt()
    with pytest.raises(ibmmq.MQMIError) as info:
        ibmmq.MessageHandle(_QM(), dup_handle=mh.msg_handle).properties.set("x", "y")
    assert info.value.reason == CMQC.MQRC_HMSG_ERROR
