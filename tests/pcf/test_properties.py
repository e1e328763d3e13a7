"""Message properties (pcf/properties.py) and the dead-letter header (pcf/mqi.py MQDLH).

Table tests use IBM's documented folder examples and the RFH2 of the async-message fixture; hypothesis
round trips cover properties -> join -> split in both byte orders and folder text through the codec;
fuzz tests check that malformed input raises nothing but CodecError.
"""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from qmlite.pcf import constants as C
from qmlite.pcf import mqi
from qmlite.pcf import properties as PR
from qmlite.pcf.errors import MQRC, CodecError
from qmlite.pcf.jsonview import to_json
from qmlite.pcf.mqi import MQDLH, MQRFH, MQRFH2
from qmlite.pcf.properties import Properties, Property, join, parse_folder, render_folder, split
from tests.support.fixtures import FIXTURES

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

LE = C.MQENC_NATIVE  # 546: integers little-endian
BE = 0x111  # 273: integers big-endian


def rfh_error(fn, *args) -> CodecError:
    with pytest.raises(CodecError) as info:
        fn(*args)
    assert info.value.family == MQRC
    return info.value


# --------------------------------------------------------------------------------------------------
# Folder text: table tests
# --------------------------------------------------------------------------------------------------

FOLDERS = [
    # the brief's example, IBM's null and empty-value examples ("Mapping property data types ...")
    ("<usr><Color>red</Color><Size dt='i4'>5</Size><Opt xsi:nil='true'></Opt></usr>",
     "usr", [("Color", "string", "red"), ("Size", "i4", 5), ("Opt", "NULL", None)]),
    ("<usr><NullProperty xsi:nil='true'></NullProperty><EmptyProperty></EmptyProperty></usr>",
     "usr", [("NullProperty", "NULL", None), ("EmptyProperty", "string", "")]),
    # self-closing, double quotes, blanks between elements
    ('<usr>\n  <Opt xsi:nil="true"/>\n  <N dt="i8">-12</N>\t<E/>\r\n</usr>',
     "usr", [("Opt", "NULL", None), ("N", "i8", -12), ("E", "string", "")]),
    # nested groups
    ("<usr><a><b>1</b></a></usr>", "usr", [("a.b", "string", "1")]),
    ("<mq_usr><a><b><c dt='i2'>7</c></b><d>x</d></a><e>y</e></mq_usr>",
     "mq_usr", [("a.b.c", "i2", 7), ("a.d", "string", "x"), ("e", "string", "y")]),
    # the five entity escapes and character references
    ("<usr><e>&lt;a&gt; &amp; &quot;b&quot; &apos;c&apos;</e><r>&#65;&#x42;&#x1F600;</r></usr>",
     "usr", [("e", "string", "<a> & \"b\" 'c'"), ("r", "string", "AB\U0001F600")]),
    # whitespace inside a value is kept; CDATA and comments
    ("<usr><s>  two  words </s><c><![CDATA[<raw & text>]]></c><!-- note --><k>v<!--x-->w</k></usr>",
     "usr", [("s", "string", "  two  words "), ("c", "string", "<raw & text>"), ("k", "string", "vw")]),
    # every dt
    ("<usr><b1 dt='boolean'>1</b1><b0 dt='boolean'>0</b0><bt dt='boolean'>true</bt>"
     "<i1 dt='i1'>-128</i1><i2 dt='i2'>32767</i2><i4 dt='i4'>-2147483648</i4>"
     "<i8 dt='i8'>9223372036854775807</i8><int dt='int'>+42</int>"
     "<r4 dt='r4'>0.5</r4><r8 dt='r8'>-1.25E3</r8><h dt='bin.hex'>00ff0A</h><s dt='string'>x</s></usr>",
     "usr", [("b1", "boolean", True), ("b0", "boolean", False), ("bt", "boolean", True),
             ("i1", "i1", -128), ("i2", "i2", 32767), ("i4", "i4", -2147483648),
             ("i8", "i8", 2**63 - 1), ("int", "i8", 42),
             ("r4", "r4", 0.5), ("r8", "r8", -1250.0), ("h", "bin.hex", b"\x00\xff\x0a"),
             ("s", "string", "x")]),
    # an unknown dt is kept as text under its own name
    ("<usr><d dt='dateTime'>2020-01-01</d><c dt='char'>x</c></usr>",
     "usr", [("d", "dateTime", "2020-01-01"), ("c", "char", "x")]),
    # content='properties', unknown folders parse generically
    ("<myapp content='properties'><x>1</x></myapp>", "myapp", [("x", "string", "1")]),
    ("<psc><Command>RegSub</Command><Topic>a/b</Topic><Topic>c</Topic></psc>",
     "psc", [("Command", "string", "RegSub"), ("Topic", "string", "a/b"), ("Topic", "string", "c")]),
    ("<pscr><Completion>ok</Completion></pscr>", "pscr", [("Completion", "string", "ok")]),
    # JMS's folders as the async-message fixture carries them (Tms has no dt: a string)
    ("<mcd><Msd>jms_text</Msd></mcd>", "mcd", [("Msd", "string", "jms_text")]),
    ("<jms><Dst>queue:///DEV.QUEUE.1</Dst><Tms>1575636253574</Tms><Dlv>2</Dlv></jms>",
     "jms", [("Dst", "string", "queue:///DEV.QUEUE.1"), ("Tms", "string", "1575636253574"),
             ("Dlv", "string", "2")]),
    ("<usr/>", "usr", []),
    ("<usr></usr>", "usr", []),
    ("  <usr>  </usr>  \x00\x00", "usr", []),
    # xsi:nil='false' is not null; attributes other than dt and xsi:nil are ignored
    ("<usr><a xsi:nil='false' other=\"1\">v</a><g dt='i4'><x>1</x></g></usr>",
     "usr", [("a", "string", "v"), ("g.x", "string", "1")]),
]


@pytest.mark.parametrize("text,name,items", FOLDERS)
def test_parse_folder_table(text, name, items):
    folder = parse_folder(text)
    assert folder.name == name
    assert folder.items == items
    assert [type(v) for _n, _t, v in folder.items] == [type(v) for _n, _t, v in items]


def test_folder_attributes_and_property_folders():
    assert parse_folder("<myapp content='properties'></myapp>").is_properties
    assert parse_folder("<myapp content=\"properties\" x='1'/>").attributes == {"content": "properties",
                                                                                 "x": "1"}
    assert not parse_folder("<myapp></myapp>").is_properties
    assert not parse_folder("<psc></psc>").is_properties
    for name in ("usr", "mcd", "jms", "mq", "mqext", "mqps", "mq_usr", "sib", "mqtt"):
        assert parse_folder(f"<{name}/>").is_properties, name


BAD_FOLDERS = [
    "", "   ", "usr", "<usr>", "<usr><a>1</a>", "<usr><a>1</b></usr>", "<usr></psc>", "</usr>",
    "<usr>text</usr>", "<usr>x<a>1</a></usr>", "<usr><a>1<b>2</b></a></usr>",
    "<usr><a>&bogus;</a></usr>", "<usr><a>&amp</a></usr>", "<usr><a>a & b</a></usr>",
    "<usr><a>&#0;</a></usr>",
    "<usr><a>&#xD800;</a></usr>", "<usr><a>&#x110000;</a></usr>",
    "<usr><a dt='i4'>abc</a></usr>", "<usr><a dt='i4'></a></usr>", "<usr><a dt='i1'>128</a></usr>",
    "<usr><a dt='i8'>9223372036854775808</a></usr>", "<usr><a dt='i4'>1_000</a></usr>",
    "<usr><a dt='i4'>٣</a></usr>", "<usr><a dt='r8'>1e</a></usr>", "<usr><a dt='r8'>1_0.5</a></usr>",
    "<usr><a dt='r4'>1e39</a></usr>", "<usr><a dt='boolean'>yes</a></usr>", "<usr><a dt='boolean'></a></usr>",
    "<usr><a dt='bin.hex'>abc</a></usr>", "<usr><a dt='bin.hex'>zz</a></usr>",
    "<usr><a dt=i4>1</a></usr>", "<usr><a dt='i4>1</a></usr>", "<usr><a dt='i4'dt='i2'>1</a></usr>",
    "<usr><a dt='i4' dt='i2'>1</a></usr>", "<usr><a x='<'>1</a></usr>", "<usr><a x>1</a></usr>",
    "<usr><1a>1</1a></usr>", "<usr>< a>1</a></usr>", "<usr><a/ >1</usr>",
    "<usr></usr><usr></usr>", "<usr></usr>x", "<?xml version='1.0'?><usr/>", "<!DOCTYPE usr><usr/>",
    "<usr><!DOCTYPE x></usr>", "<usr><!-- open</usr>", "<usr><![CDATA[open</usr>", "<usr><a></a",
    "<usr><a>1</a  ", "<usr a='1' a='2'/>",
]


@pytest.mark.parametrize("text", BAD_FOLDERS)
def test_parse_folder_errors(text):
    err = rfh_error(parse_folder, text)
    assert err.reason == C.MQRC_RFH_ERROR
    assert "NameValueData" in err.detail


def test_parse_folder_rejects_non_text_and_bounds_names():
    assert rfh_error(parse_folder, b"<usr/>").reason == C.MQRC_RFH_ERROR
    long_name = "a" * (C.MQ_MAX_PROPERTY_NAME_LENGTH + 1)
    rfh_error(parse_folder, f"<usr><{long_name}>1</{long_name}></usr>")
    ok = "a" * C.MQ_MAX_PROPERTY_NAME_LENGTH
    assert parse_folder(f"<usr><{ok}>1</{ok}></usr>").items == [(ok, "string", "1")]
    # a long group name and many leaves: the names would be far longer in all than the text
    group = "g" * 4000
    text = f"<mq_usr><{group}>" + "<a/>" * 5000 + f"</{group}></mq_usr>"
    err = rfh_error(parse_folder, text)
    assert "in all" in err.detail
    # deep nesting is not recursion: 2000 levels parse
    deep = "<usr>" + "<g>" * 2000 + "<x>1</x>" + "</g>" * 2000 + "</usr>"
    (name, kind, value), = parse_folder(deep).items
    assert name == "g." * 2000 + "x" and value == "1"


F32_TENTH = struct.unpack("<f", struct.pack("<f", 0.1))[0]  # 0.1 as a float32 holds it

RENDERED = [
    ("usr", [("Color", "string", "red"), ("Size", "i4", 5), ("Opt", "NULL", None)], None,
     "<usr><Color>red</Color><Size dt='i4'>5</Size><Opt xsi:nil='true'></Opt></usr>"),
    ("usr", [("e", "string", "<a> & \"b\" 'c'"), ("empty", "string", "")], None,
     "<usr><e>&lt;a&gt; &amp; \"b\" 'c'</e><empty></empty></usr>"),
    ("usr", [("t", "boolean", True), ("f", "boolean", False), ("h", "bin.hex", b"\x00\xab"),
             ("r", "r8", 0.1), ("q", "r4", F32_TENTH), ("n", "r8", float("nan")), ("i", "r8", float("-inf")),
             ("big", "r8", 1e300), ("z", "r8", -0.0)], None,
     "<usr><t dt='boolean'>1</t><f dt='boolean'>0</f><h dt='bin.hex'>00AB</h><r dt='r8'>0.1</r>"
     "<q dt='r4'>0.1</q><n dt='r8'>NaN</n><i dt='r8'>-Infinity</i><big dt='r8'>1e+300</big>"
     "<z dt='r8'>-0.0</z></usr>"),
    ("mq_usr", [("a.b", "i1", 1), ("a.c", "i2", 2), ("d", "string", "x"), ("a.e.f", "i8", 3),
                ("a", "string", "leaf"), ("a.g", "string", "y")], None,
     "<mq_usr><a><b dt='i1'>1</b><c dt='i2'>2</c></a><d>x</d><a><e><f dt='i8'>3</f></e></a><a>leaf</a>"
     "<a><g>y</g></a></mq_usr>"),
    ("myapp", [("x", "string", "1")], {"content": "properties"},
     "<myapp content='properties'><x>1</x></myapp>"),
    ("usr", [], None, "<usr></usr>"),
    ("usr", [("d", "dateTime", "2020-01-01")], None, "<usr><d dt='dateTime'>2020-01-01</d></usr>"),
]


@pytest.mark.parametrize("name,items,attributes,text", RENDERED)
def test_render_folder_compact_form(name, items, attributes, text):
    assert render_folder(name, items, attributes) == text
    back = parse_folder(text)
    assert back.name == name
    assert [(n, t) for n, t, _v in back.items] == [(n, t) for n, t, _v in items]
    for (_n, _t, got), (_n2, _t2, want) in zip(back.items, items):
        assert got == want or (isinstance(got, float) and math.isnan(got) and math.isnan(want))
        if isinstance(want, float):
            assert math.copysign(1.0, got) == math.copysign(1.0, want)


@pytest.mark.parametrize("name,items,attributes", [
    ("", [], None), ("1usr", [], None), ("usr", [("a b", "string", "x")], None),
    ("usr", [("a..b", "string", "x")], None), ("usr", [("a", "i1", 300)], None),
    ("usr", [("a", "i4", "5")], None), ("usr", [("a", "wat", 5)], None), ("usr", [("a", "NULL", 1)], None),
    ("usr", [("a", "r4", 1e40)], None), ("usr", [], {"bad attr": "x"}),
])
def test_render_folder_errors(name, items, attributes):
    with pytest.raises(ValueError):
        render_folder(name, items, attributes)


def test_render_r4_is_shortest_float32_text():
    for value in (0.1, 1 / 3, 3.4028234663852886e38, 1.401298464324817e-45, 123.789):
        f32 = struct.unpack("<f", struct.pack("<f", value))[0]
        text = render_folder("usr", [("x", "r4", f32)])
        digits = text[len("<usr><x dt='r4'>"):-len("</x></usr>")]
        assert struct.unpack("<f", struct.pack("<f", float(digits)))[0] == f32
        assert len(digits.replace("-", "").replace(".", "").split("e")[0]) <= 9
        assert parse_folder(text).items == [("x", "r4", f32)]


# --------------------------------------------------------------------------------------------------
# The property model
# --------------------------------------------------------------------------------------------------


def test_properties_mapping_api():
    p = Properties()
    assert len(p) == 0 and not p and "Color" not in p and p.get("Color") is None
    p.set("Color", "red")
    p.set("Size", 5, "i4")
    p.set("mcd.Msd", "jms_text")
    p.set("Opt", None)
    p.set("usr.Weight", 2.5)
    assert len(p) == 5 and p
    assert p["Color"] == Property("string", "red") and p["Color"].value == "red"
    assert p["Size"] == ("i4", 5)
    assert p["usr.Color"] == p["Color"] and "usr.Size" in p and "Weight" in p
    assert p.get("Nope", 7) == 7 and 42 not in p
    assert list(p) == ["Color", "Size", "mcd.Msd", "Opt", "Weight"]
    assert [name for name, _ in p.items()] == list(p.keys())
    assert dict(p.items())["Opt"] == Property("NULL", None)
    assert p.values_for_selectors() == {"Color": "red", "Size": 5, "mcd.Msd": "jms_text", "Opt": None,
                                        "Weight": 2.5}
    assert p.folder("Color") == "usr" and p.folder("mcd.Msd") == "mcd" and p.folder("usr.Weight") == "usr"
    p.set("Size", 6, "i2")  # replaces in place
    assert p["Size"] == ("i2", 6) and list(p)[1] == "Size"
    p.delete("usr.Color")
    assert "Color" not in p and len(p) == 4
    with pytest.raises(KeyError):
        p.delete("Color")
    with pytest.raises(KeyError):
        p["Color"]
    q = p.copy()
    assert q == p and q is not p
    q.set("Extra", 1)
    assert q != p and "Extra" not in p
    assert "Size" in repr(p) and p != {"Size": 6}


def test_properties_type_inference_and_checks():
    p = Properties({"s": "x", "b": True, "i": 7, "f": 1.5, "n": None, "h": bytearray(b"\x01")})
    assert [p[n].type for n in p] == ["string", "boolean", "i8", "r8", "NULL", "bin.hex"]
    assert p["h"].value == b"\x01" and type(p["h"].value) is bytes
    p.set("r", 0.1, "r4")
    assert p["r"].value == struct.unpack("<f", struct.pack("<f", 0.1))[0] != 0.1
    p.set("bb", 1, "boolean")
    assert p["bb"] == ("boolean", True)
    p.set("ff", 3, "r8")
    assert p["ff"] == ("r8", 3.0) and type(p["ff"].value) is float
    for name, value, kind in [
        ("a", 128, "i1"), ("a", -32769, "i2"), ("a", 2**31, "i4"), ("a", 2**63, "i8"), ("a", 2**63, None),
        ("a", "1", "i4"), ("a", 1.0, "i4"), ("a", 2, "boolean"), ("a", "x", "bin.hex"), ("a", b"x", "string"),
        ("a", 1, "NULL"), ("a", True, "r8"), ("a", 1e39, "r4"), ("a", object(), None), ("a", 1, "i3"),
    ]:
        with pytest.raises(ValueError):
            p.set(name, value, kind)
    assert "a" not in p


@pytest.mark.parametrize("name", [
    "", "a.", ".a", "a..b", "1a", "a b", "a:b", "NULL", "usr.true", "Between", "JMSType", "usr.JMSX",
    "Body", "Root.MQMD.Format", "mq.a.b", "MQext.a.b", "a" * 4096,
])
def test_check_name_rejects(name):
    assert PR.check_name(name) is not None
    with pytest.raises(ValueError):
        Properties().set(name, "x")


@pytest.mark.parametrize("name", ["Color", "_x", "a-b", "usr.Color", "mcd.Msd", "jms.Dst", "mqps.Top",
                                  "mq.xxx", "mqext.xxx", "mq_usr.a.b.c", "myapp.a.b", "Nullable", "a" * 4095])
def test_check_name_accepts(name):
    assert PR.check_name(name) is None


def test_property_folders_from_names_and_from_the_wire():
    p = Properties()
    p.set("a.b", 1)  # IBM mapping: folder a, element b
    assert p.folder("a.b") == "a"
    s = split(*join(p, b"", "MQSTR", LE, 1208), LE, 1208)
    assert s.headers[0].Folders == ["<a content='properties'><b dt='i8'>1</b></a>"]
    assert s.properties == p and s.properties.folder("a.b") == "a"
    # a usr group keeps its folder, also when its value is changed by name
    s = split(*join(None, b"", "MQSTR", LE, 1208, folders_extra=["<usr><a><b>1</b></a></usr>"]), LE, 1208)
    props = s.properties
    assert props["a.b"] == ("string", "1") and props.folder("a.b") == "usr"
    props.set("a.b", "2")
    assert props.folder("a.b") == "usr"
    data, _ = join(props, b"", "MQSTR", LE, 1208)
    assert MQRFH2.unpack(data, 0, "<")[0].Folders == ["<usr><a><b>2</b></a></usr>"]
    # usr.a.b names the same usr group explicitly
    q = Properties()
    q.set("usr.a.b", "2")
    assert q.folder("a.b") == "usr" and "a.b" in q and q == props


# --------------------------------------------------------------------------------------------------
# split / join: table tests
# --------------------------------------------------------------------------------------------------


def fixture_message() -> tuple[bytes, mqi.MQMD]:
    raw = (FIXTURES / "real-server" / "emulator-assembled" / "async-message.bin").read_bytes()
    md, pos = mqi.MQMD.unpack(raw, 36 + 68, "<")
    return raw[pos:], md


def test_split_fixture_message():
    data, md = fixture_message()
    s = split(data, md.Format, md.Encoding, md.CodedCharSetId)
    assert [type(h) for h in s.headers] == [MQRFH2]
    assert s.properties.values_for_selectors() == {
        "mcd.Msd": "jms_text", "jms.Dst": "queue:///DEV.QUEUE.1", "jms.Tms": "1575636253574", "jms.Dlv": "2",
        "esfl_methodName": "clientCreate", "src_systemID": "DRTL", "version": "2"}
    assert s.properties.folder("jms.Dst") == "jms" and s.properties.folder("version") == "usr"
    assert s.body == b"hello\0\0\0" and s.fmt == "MQSTR" and s.encoding == 0x111 and s.ccsid == 1208
    assert s.folders == []  # mcd, jms and usr are all property folders
    data2, fmt2 = join(s.properties, s.body, s.fmt, s.encoding, s.ccsid, folders_extra=s.folders)
    assert fmt2 == C.MQFMT_RF_HEADER_2 == "MQHRF2  "
    again = split(data2, fmt2, md.Encoding, md.CodedCharSetId)
    assert again.properties == s.properties and again.body == s.body and again.fmt == "MQSTR"
    # big-endian integers, as in the fixture
    assert data2[4:8] == b"\0\0\0\2" and data2[32:36] == struct.pack(">i", 1208)


@pytest.mark.parametrize("fmt", ["MQSTR", "MQSTR   ", "", "        ", "MQADMIN ", "MQDEAD  ", "MQHRF3"])
def test_split_fast_path_returns_data_unchanged(fmt):
    for data in (b"RFH \x02\x00\x00\x00", bytearray(b"plain"), memoryview(b"x")):
        s = split(data, fmt, LE, 819)
        assert s.body is data and s.fmt == fmt and s.encoding == LE and s.ccsid == 819
        assert not s.properties and s.headers == [] and s.folders == []


def test_join_nothing_returns_body_unchanged():
    body = b"payload"
    assert join(Properties(), body, "MQSTR", LE, 819) == (body, "MQSTR")
    assert join(None, body, "MQSTR", LE, 819)[0] is body


def test_join_folder_order_and_header_fields():
    p = Properties()
    for name in ("myapp.x", "mqext.a", "mq.b", "jms.Dst", "mcd.Msd", "Color", "mqps.Top"):
        p.set(name, "v")
    for encoding, order in ((LE, "<"), (BE, ">")):
        data, fmt = join(p, b"BODY", "MQSTR   ", encoding, 819,
                         folders_extra=["<psc><Command>x</Command></psc>"])
        rfh, end = MQRFH2.unpack(data, 0, order)
        assert [f[:f.index(">") + 1] for f in rfh.Folders] == [
            "<usr>", "<mcd>", "<jms>", "<mq>", "<mqext>", "<myapp content='properties'>", "<mqps>", "<psc>"]
        assert rfh.Encoding == encoding and rfh.CodedCharSetId == 819 and rfh.Format == "MQSTR"
        assert rfh.NameValueCCSID == 1208 and rfh.Flags == 0
        assert data[end:] == b"BODY" and len(data) % 4 == 0 and fmt == "MQHRF2  "
        s = split(data, fmt, encoding, 819)
        assert s.properties == p and s.folders == ["<psc><Command>x</Command></psc>"]


def test_join_unwritable_values_raise_value_error():
    p = Properties()
    p.set("s", "\ud800")  # a lone surrogate has no UTF-8 form
    with pytest.raises(ValueError):
        join(p, b"", "MQSTR", LE, 1208)
    q = Properties()
    q.set("s", "x")
    with pytest.raises(ValueError):
        join(q, b"", "TOOLONGFMT", LE, 1208)


def rfh1(fmt: str, text: str, order: str, encoding: int, ccsid: int = 819) -> bytes:
    return MQRFH(Encoding=encoding, CodedCharSetId=ccsid, Format=fmt, NameValueString=text).pack(order)


def rfh2(fmt: str, folders: list[str], order: str, encoding: int, ccsid: int = 819) -> bytes:
    return MQRFH2(Encoding=encoding, CodedCharSetId=ccsid, Format=fmt, Folders=folders).pack(order)


def test_split_follows_the_format_chain():
    # MQMD (LE) -> RFH2 (LE, says BE follows) -> RFH v1 (BE) -> RFH2 (BE, inherit CCSID) -> body
    data = (rfh2("MQHRF", ["<usr><a dt='i4'>1</a></usr>", "<psc><Command>Publish</Command></psc>"], "<", BE,
                 1208)
            + rfh1("MQHRF2", "MQPSCommand Publish", ">", BE, 437)
            + rfh2("MQSTR", ["<mcd><Msd>jms_bytes</Msd></mcd>", "<usr><a>2</a><b/></usr>"], ">", LE,
                   C.MQCCSI_INHERIT)
            + b"body")
    s = split(data, "MQHRF2", LE, 819)
    assert [type(h) for h in s.headers] == [MQRFH2, MQRFH, MQRFH2]
    assert s.headers[1].NameValueString == "MQPSCommand Publish"
    assert PR.parse_name_value_string(s.headers[1].NameValueString) == [("MQPSCommand", "Publish")]
    assert s.properties.values_for_selectors() == {"a": "2", "mcd.Msd": "jms_bytes", "b": ""}
    assert s.properties["a"].type == "string"  # the later header wins
    assert s.folders == ["<psc><Command>Publish</Command></psc>"]
    assert s.body == b"body" and s.fmt == "MQSTR" and s.encoding == LE and s.ccsid == 437


def test_split_guesses_order_when_encoding_is_undefined():
    for order in "<>":
        data = rfh2("MQSTR", ["<usr><a>1</a></usr>"], order, LE) + b"x"
        s = split(data, "MQHRF2", 0, 819)
        assert s.properties["a"] == ("string", "1") and s.body == b"x"


def test_split_errors():
    good = rfh2("MQSTR", ["<usr><a>1</a></usr>"], "<", LE)
    rfh_error(split, good, "MQHRF2", BE, 819)  # wrong byte order: Version reads 0x02000000
    assert rfh_error(split, good[:20], "MQHRF2", LE, 819).reason == C.MQRC_RFH_ERROR
    assert rfh_error(split, good, "MQHRF", LE, 819).reason == C.MQRC_RFH_ERROR  # Version 2 where 1 expected
    bad_text = rfh2("MQSTR", ["<usr><a>1</usr>"], "<", LE)
    assert rfh_error(split, bad_text, "MQHRF2", LE, 819).reason == C.MQRC_RFH_ERROR
    chained = rfh2("MQHRF2", [], "<", LE) + b"junk"
    rfh_error(split, chained, "MQHRF2", LE, 819)
    # lengths from the data are checked, never allocated
    huge = bytearray(good)
    huge[8:12] = struct.pack("<i", 0x7FFFFFFF)
    rfh_error(split, bytes(huge), "MQHRF2", LE, 819)
    huge = bytearray(good)
    huge[36:40] = struct.pack("<i", 0x7FFFFFF0)
    rfh_error(split, bytes(huge), "MQHRF2", LE, 819)


# --------------------------------------------------------------------------------------------------
# MQRFH v1 NameValueString
# --------------------------------------------------------------------------------------------------

NVS = [
    ("MQPSCommand Publish MQPSTopic 'a b'", [("MQPSCommand", "Publish"), ("MQPSTopic", "a b")]),
    ('MQPSCommand Publish MQPSTopic "a b"', [("MQPSCommand", "Publish"), ("MQPSTopic", "a b")]),
    ('Famous_Words "The program displayed ""Hello World"""',  # IBM's MQRC_RFH_STRING_ERROR example
     [("Famous_Words", 'The program displayed "Hello World"')]),
    ("  a   b  \t c d ", [("a", "b"), ("c", "d")]),
    ('e "" f x', [("e", ""), ("f", "x")]),
    ("O'Brien x", [("O'Brien", "x")]),
    ("a b\0c d", [("a", "b")]),
    ("", []),
    ("MQPSTopic t MQPSTopic u", [("MQPSTopic", "t"), ("MQPSTopic", "u")]),
]


@pytest.mark.parametrize("text,pairs", NVS)
def test_parse_name_value_string(text, pairs):
    assert PR.parse_name_value_string(text) == pairs


@pytest.mark.parametrize("text", ['a "b', "a 'b", 'a b"c', 'a "b"c', "a", "a b c", 'x "a""', 7])
def test_parse_name_value_string_errors(text):
    assert rfh_error(PR.parse_name_value_string, text).reason == C.MQRC_RFH_STRING_ERROR


def test_render_name_value_string():
    pairs = [("MQPSCommand", "Publish"), ("MQPSTopic", "a b"), ("q", 'say "hi"'), ("e", ""), ("s", "'x")]
    text = PR.render_name_value_string(pairs)
    assert text == 'MQPSCommand Publish MQPSTopic "a b" q "say ""hi""" e "" s "\'x"'
    assert PR.parse_name_value_string(text) == pairs
    with pytest.raises(ValueError):
        PR.render_name_value_string([("a", "b\0")])
    with pytest.raises(ValueError):
        PR.render_name_value_string([("a", 1)])


NVS_TOKEN = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=12)


@SETTINGS
@given(pairs=st.lists(st.tuples(NVS_TOKEN, NVS_TOKEN), max_size=8))
def test_name_value_string_round_trip(pairs):
    text = PR.render_name_value_string(pairs)
    assert PR.parse_name_value_string(text) == pairs
    # and through an MQRFH v1 header
    data = MQRFH(Format="MQSTR", NameValueString=text).pack("<", "utf-8") + b"b"
    s = split(data, "MQHRF", LE, 1208)
    assert PR.parse_name_value_string(s.headers[0].NameValueString) == pairs and s.body == b"b"


# --------------------------------------------------------------------------------------------------
# Hypothesis: properties -> join -> split; folder text through the codec
# --------------------------------------------------------------------------------------------------

PART = st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-]{0,8}", fullmatch=True)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
F32 = st.floats(width=32)


def typed_value():
    return st.one_of(
        st.tuples(st.just("string"), TEXT),
        st.tuples(st.just("boolean"), st.booleans()),
        st.tuples(st.just("i1"), st.integers(-128, 127)),
        st.tuples(st.just("i2"), st.integers(-(2**15), 2**15 - 1)),
        st.tuples(st.just("i4"), st.integers(-(2**31), 2**31 - 1)),
        st.tuples(st.just("i8"), st.integers(-(2**63), 2**63 - 1)),
        st.tuples(st.just("r4"), F32),
        st.tuples(st.just("r8"), st.floats()),
        st.tuples(st.just("bin.hex"), st.binary(max_size=12)),
        st.tuples(st.just("NULL"), st.none()),
    )


def property_name():
    usr = PART.filter(lambda n: PR.check_name(n) is None)
    single = st.builds(lambda f, n: f"{f}.{n}", st.sampled_from(["mcd", "jms", "mq", "mqext", "mqps"]), PART)
    grouped = st.builds(lambda f, ns: ".".join([f, *ns]), st.sampled_from(["mq_usr", "myapp", "x-y"]),
                        st.lists(PART, min_size=1, max_size=3))
    return st.one_of(usr, single, grouped)


@st.composite
def properties(draw) -> Properties:
    p = Properties()
    for name, (kind, value) in draw(st.lists(st.tuples(property_name(), typed_value()), max_size=10)):
        p.set(name, value, kind)
    return p


@SETTINGS
@given(props=properties(), body=st.binary(max_size=40),
       fmt=st.sampled_from(["MQSTR", "", "MQADMIN", "MQDEAD"]),
       encoding=st.sampled_from([LE, BE, 0x222, 0x111]),
       ccsid=st.sampled_from([819, 1208, 437, C.MQCCSI_Q_MGR]))
def test_join_split_round_trip(props, body, fmt, encoding, ccsid):
    data, out_fmt = join(props, body, fmt, encoding, ccsid)
    if not props:
        assert (data, out_fmt) == (body, fmt)
        return
    assert out_fmt == "MQHRF2  " and data.endswith(body)
    s = split(data, out_fmt, encoding, ccsid)
    assert s.properties == props
    assert [s.properties[n].type for n in s.properties] == [props[n].type for n in s.properties]
    for name in props:
        assert s.properties.folder(name) == props.folder(name)
        got, want = s.properties[name].value, props[name].value
        if isinstance(want, float) and not math.isnan(want):
            assert math.copysign(1.0, got) == math.copysign(1.0, want)  # -0.0 stays -0.0
    assert s.body == body and s.fmt == fmt and s.encoding == encoding and s.ccsid == ccsid
    assert len(s.headers) == 1 and s.folders == []
    # joining what split gave is byte-identical
    assert join(s.properties, s.body, s.fmt, s.encoding, s.ccsid) == (data, out_fmt)


@st.composite
def folder_items(draw):
    items = []
    for _ in range(draw(st.integers(0, 8))):
        path = ".".join(draw(st.lists(PART, min_size=1, max_size=3)))
        kind, value = draw(typed_value())
        items.append((path, kind, value))
    return items


def noisy(name: str, items, attributes) -> str:
    """The same folder as render_folder, written the other ways IBM's syntax allows."""
    def esc(text: str) -> str:
        out = []
        for ch in text:
            if ch == "&":
                out.append("&amp;")
            elif ch == "<":
                out.append("&lt;")
            elif ch in "\"'>" or ord(ch) > 0x7F:
                out.append(f"&#x{ord(ch):X};" if ord(ch) % 2 else f"&#{ord(ch)};")
            else:
                out.append(ch)
        return "".join(out)

    attrs = "".join(f' {k} = "{v}"' for k, v in (attributes or {}).items())
    out = [f"\n<{name}{attrs}>"]
    for path, kind, value in items:
        parts = path.split(".")
        for group in parts[:-1]:
            out.append(f"  <{group}>\n")
        leaf = parts[-1]
        if kind == "NULL":
            out.append(f'<{leaf} xsi:nil="true"/>')
        elif kind == "string" and value == "":
            out.append(f"<{leaf}/>")
        elif kind == "string":
            out.append(f"<{leaf}>{esc(value)}</{leaf}>")
        else:
            out.append(f'<{leaf}  dt="{kind}" >{PR.encode_value(kind, value)}</{leaf} >')
        for group in reversed(parts[:-1]):
            out.append(f"\t</{group}>")
        out.append("<!-- c -->\r\n")
    out.append(f"</{name}>  ")
    return "".join(out)


def same_items(got, want) -> bool:
    if [(n, t) for n, t, _ in got] != [(n, t) for n, t, _ in want]:
        return False
    for (_, _, a), (_, _, b) in zip(got, want):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            continue
        if a != b or type(a) is not type(b):
            return False
    return True


@SETTINGS
@given(name=PART, items=folder_items(), props=st.booleans())
def test_folder_text_round_trip(name, items, props):
    attributes = {"content": "properties"} if props else None
    text = render_folder(name, items, attributes)
    folder = parse_folder(text)
    assert folder.name == name and folder.attributes == (attributes or {})
    assert same_items(folder.items, items)
    assert render_folder(name, folder.items, folder.attributes or None) == text
    loose = parse_folder(noisy(name, items, attributes))
    assert loose.name == name and loose.attributes == (attributes or {})
    assert same_items(loose.items, items)


# --------------------------------------------------------------------------------------------------
# Fuzz: nothing but CodecError
# --------------------------------------------------------------------------------------------------


def only_codec_errors(fn, *args):
    try:
        return fn(*args)
    except CodecError as exc:
        assert exc.family == MQRC and exc.reason in (C.MQRC_RFH_ERROR, C.MQRC_RFH_STRING_ERROR)
        return None


@st.composite
def mutated(draw, raw: bytes) -> bytes:
    buf = bytearray(raw)
    for _ in range(draw(st.integers(1, 6))):
        action = draw(st.sampled_from(["flip", "set", "cut", "insert", "int"]))
        if not buf:
            break
        at = draw(st.integers(0, len(buf) - 1))
        if action == "flip":
            buf[at] ^= 1 << draw(st.integers(0, 7))
        elif action == "set":
            buf[at] = draw(st.sampled_from(b"<>/&;'\"= \0x"))
        elif action == "cut":
            del buf[at:at + draw(st.integers(1, 8))]
        elif action == "insert":
            buf[at:at] = draw(st.binary(min_size=1, max_size=6))
        else:
            buf[at:at + 4] = struct.pack("<i", draw(st.integers(-(2**31), 2**31 - 1)))
    return bytes(buf)


@FUZZ
@given(data=st.data(), props=properties(), encoding=st.sampled_from([LE, BE]))
def test_fuzz_split_mutated_messages(data, props, encoding):
    props.set("Guard", "x")  # never empty, so there is a header to damage
    raw, fmt = join(props, b"body", "MQHRF2" if data.draw(st.booleans()) else "MQSTR", encoding, 1208,
                    folders_extra=["<psc><Command>Publish</Command></psc>"])
    bad = data.draw(mutated(raw))
    only_codec_errors(split, bad, fmt, encoding, 1208)
    only_codec_errors(split, bad, "MQHRF", encoding, 1208)


@FUZZ
@given(raw=st.binary(max_size=300), encoding=st.sampled_from([LE, BE, 0]),
       fmt=st.sampled_from(["MQHRF2", "MQHRF"]),
       ccsid=st.sampled_from([1208, 819, 1200, 500]))
def test_fuzz_split_random_bytes(raw, encoding, fmt, ccsid):
    only_codec_errors(split, raw, fmt, encoding, ccsid)
    only_codec_errors(split, b"RFH \x02\x00\x00\x00" + raw, fmt, encoding, ccsid)
    only_codec_errors(split, b"RFH \x00\x00\x00\x02" + raw, fmt, encoding, ccsid)


@FUZZ
@given(data=st.data(), name=PART, items=folder_items())
def test_fuzz_parse_folder(data, name, items):
    text = render_folder(name, items)
    bad = data.draw(mutated(text.encode("utf-8"))).decode("utf-8", "replace")
    folder = only_codec_errors(parse_folder, bad)
    if folder is not None:
        assert isinstance(folder.name, str) and all(len(item) == 3 for item in folder.items)
    noise = st.text(alphabet="<>/&;#x'\"= ausrdt:-!?[]AC0123456789", max_size=60)
    only_codec_errors(parse_folder, data.draw(noise))


@FUZZ
@given(text=st.text(alphabet="ab \"'\0\t", max_size=30))
def test_fuzz_name_value_string(text):
    pairs = only_codec_errors(PR.parse_name_value_string, text)
    if pairs is not None:
        assert PR.parse_name_value_string(PR.render_name_value_string(pairs)) == pairs


# --------------------------------------------------------------------------------------------------
# MQDLH
# --------------------------------------------------------------------------------------------------


def test_mqdlh_layout_and_defaults():
    dlh = MQDLH()
    assert (dlh.Version, dlh.Reason, dlh.Encoding, dlh.CodedCharSetId, dlh.Format, dlh.PutApplType) == (
        1, C.MQRC_NONE, 0, C.MQCCSI_UNDEFINED, "", 0)
    dlh = MQDLH(Reason=C.MQRC_Q_FULL, DestQName="APP.IN", DestQMgrName="QM1", Encoding=LE,
                CodedCharSetId=1208, Format="MQSTR", PutApplType=C.MQAT_QMGR, PutApplName="qmlite",
                PutDate="20240102", PutTime="10203040")
    raw = dlh.pack(">")
    assert len(raw) == mqi.MQDLH_LENGTH_1 == 172
    assert raw[0:4] == b"DLH " and raw[4:8] == b"\0\0\0\1" and raw[8:12] == struct.pack(">i", 2053)
    assert raw[12:60] == b"APP.IN".ljust(48) and raw[60:108] == b"QM1".ljust(48)
    assert raw[108:116] == struct.pack(">ii", LE, 1208) and raw[116:124] == b"MQSTR   "
    assert raw[124:128] == struct.pack(">i", 7) and raw[128:156] == b"qmlite".ljust(28)
    assert raw[156:164] == b"20240102" and raw[164:172] == b"10203040"
    assert MQDLH.unpack(raw + b"data", 0, ">") == (dlh, 172)
    assert MQDLH.unpack(b"xx" + dlh.pack("<"), 2, "<") == (dlh, 174)
    assert dlh.pack("<") != raw
    view = to_json(dlh)
    assert view["struct"] == "MQDLH" and view["Reason_name"] == "MQRC_Q_FULL"
    assert view["PutApplType_name"] == "MQAT_QMGR"
    assert "MQDLH" in mqi.__all__


@pytest.mark.parametrize("mutate,detail", [
    (lambda raw: b"DLX " + raw[4:], "StrucId"),
    (lambda raw: raw[:171], "needs 172"),
    (lambda raw: raw[:6], "need at least 8"),
    (lambda raw: raw[:4] + struct.pack("<i", 2) + raw[8:], "Version"),
])
def test_mqdlh_unpack_errors(mutate, detail):
    raw = MQDLH(DestQName="Q").pack("<")
    err = rfh_error(MQDLH.unpack, mutate(raw), 0, "<")
    assert err.reason == C.MQRC_DLH_ERROR and detail in err.detail


def test_mqdlh_pack_errors():
    with pytest.raises(CodecError) as info:
        MQDLH(Version=2).pack()
    assert info.value.reason == C.MQRC_DLH_ERROR
    with pytest.raises(ValueError):
        MQDLH(DestQName="Q" * 49).pack()
    with pytest.raises(ValueError):
        MQDLH(PutDate="123456789").pack()


I32 = st.integers(-(2**31), 2**31 - 1)


@st.composite
def dlh(draw) -> MQDLH:
    def char(n):
        return st.text(st.characters(min_codepoint=0, max_codepoint=255), max_size=n).map(
            lambda s: s.rstrip(" \x00"))

    return MQDLH(1, draw(I32), draw(char(48)), draw(char(48)), draw(I32), draw(I32), draw(char(8)), draw(I32),
                 draw(char(28)), draw(char(8)), draw(char(8)))


@SETTINGS
@given(value=dlh(), order=st.sampled_from("<>"))
def test_mqdlh_round_trip(value, order):
    raw = value.pack(order)
    assert len(raw) == 172
    assert MQDLH.unpack(raw, 0, order) == (value, 172)


@FUZZ
@given(raw=st.binary(max_size=200), order=st.sampled_from("<>"))
def test_mqdlh_fuzz(raw, order):
    for data in (raw, b"DLH " + raw, b"DLH \x01\x00\x00\x00" + raw, b"DLH \x00\x00\x00\x01" + raw):
        try:
            dlh_value, end = MQDLH.unpack(data, 0, order)
        except CodecError as exc:
            assert exc.family == MQRC and exc.reason == C.MQRC_DLH_ERROR
        else:
            assert end == 172 and dlh_value.Version == 1
