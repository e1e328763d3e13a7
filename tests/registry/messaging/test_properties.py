"""Message properties in the queue manager: split from an MQRFH2 at MQPUT, kept (across a restart when
persistent), given back at MQGET per MQGMO_PROPERTIES_* and the queue's PropertyControl."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import properties as PR
from qmlite.registry.messaging import properties
from qmlite.registry.errors import MQIError
from qmlite.registry.qmgr import QueueManager

Q = "DEV.QUEUE.1"


def _open(tmp_path, clock):
    return QueueManager.open(tmp_path / "qm", "QM1", clock=clock, synchronous="NORMAL")


def _rfh2(props: dict, body: bytes, *, extra=()) -> tuple[S.MQMD, bytes]:
    p = PR.Properties()
    for name, value in props.items():
        p.set(name, value)
    data, fmt = PR.join(p, body, C.MQFMT_STRING, 546, 1208, folders_extra=extra)
    return S.MQMD(Format=fmt, Encoding=546, CodedCharSetId=1208, Persistence=C.MQPER_PERSISTENT), data


def _put(qm, session, md, data):
    handle, _ = qm.open_object(session, S.MQOD(ObjectName=Q), C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
    echoed, _pmo, _reason = qm.put(session, handle.hobj, md, S.MQPMO(), data)
    return handle, echoed


def _get(qm, session, handle, options=0):
    got = qm.get(session, handle, S.MQMD(), S.MQGMO(Version=4, Options=C.MQGMO_NO_SYNCPOINT | options), 1 << 20)
    return got.md, got.data


def test_an_rfh2_put_is_kept_as_properties_and_the_echo_is_as_put(tmp_path, clock):
    qm = _open(tmp_path, clock)
    try:
        session = qm.connect("QM1", user="admin", admin=True)
        md, data = _rfh2({"Colour": "red", "Size": 3}, b"body")
        handle, echoed = _put(qm, session, md, data)
        assert echoed.Format == C.MQFMT_RF_HEADER_2  # the caller's MQMD comes back as it put it
        (msg,) = list(qm.registry.messages.contents(Q))
        assert msg.data == b"body" and msg.md.Format.rstrip() == "MQSTR"
        assert msg.props.values_for_selectors() == {"Colour": "red", "Size": 3}
    finally:
        qm.shutdown()


def test_properties_of_a_persistent_message_survive_a_restart(tmp_path, clock):
    qm = _open(tmp_path, clock)
    session = qm.connect("QM1", user="admin", admin=True)
    md, data = _rfh2({"Colour": "blue"}, b"kept", extra=["<psc><Command>Publish</Command></psc>"])
    _put(qm, session, md, data)
    qm.flush()
    qm.shutdown()
    qm = _open(tmp_path, clock)
    try:
        session = qm.connect("QM1", user="admin", admin=True)
        handle, _ = qm.open_object(session, S.MQOD(ObjectName=Q), C.MQOO_INPUT_AS_Q_DEF)
        out_md, out = _get(qm, session, handle)
        split = PR.split(out, out_md.Format, out_md.Encoding, out_md.CodedCharSetId)
        assert split.properties.values_for_selectors() == {"Colour": "blue"}
        assert split.folders == ["<psc><Command>Publish</Command></psc>"]  # not a property folder: kept
        assert split.body == b"kept" and split.fmt.rstrip() == "MQSTR"
    finally:
        qm.shutdown()


@pytest.mark.parametrize("names, options, control, rfh2", [
    (["Colour"], 0, C.MQPROP_COMPATIBILITY, True),  # a usr property: COMPAT gives them all
    (["mqps.Top"], 0, C.MQPROP_COMPATIBILITY, False),  # only the queue manager's: dropped
    (["mcd.Msd"], 0, C.MQPROP_COMPATIBILITY, True),
    (["mqps.Top"], 0, C.MQPROP_ALL, True),
    (["mqps.Top"], 0, C.MQPROP_FORCE_MQRFH2, True),
    (["Colour"], 0, C.MQPROP_NONE, False),
    (["Colour"], C.MQGMO_NO_PROPERTIES, C.MQPROP_ALL, False),
    (["mqps.Top"], C.MQGMO_PROPERTIES_FORCE_MQRFH2, C.MQPROP_NONE, True),
    (["mqps.Top"], C.MQGMO_PROPERTIES_IN_HANDLE, C.MQPROP_COMPATIBILITY, True),
    (["mqps.Top"], C.MQGMO_PROPERTIES_COMPATIBILITY, C.MQPROP_ALL, False),
])
def test_render_follows_gmo_options_then_property_control(names, options, control, rfh2):
    props = PR.Properties()
    for name in names:
        props.set(name, "v")
    md = S.MQMD(Format=C.MQFMT_STRING)
    out_md, out = properties.render(props, md, b"data", options, control)
    if rfh2:
        assert out_md.Format == C.MQFMT_RF_HEADER_2 and md.Format == C.MQFMT_STRING  # a copy, not the stored one
        split = PR.split(out, out_md.Format, out_md.Encoding, out_md.CodedCharSetId)
        assert sorted(split.properties.keys()) == sorted(names) and split.body == b"data"
    else:
        assert (out_md, out) == (md, b"data")


def test_a_chain_with_an_mqrfh_v1_is_kept_as_sent():
    inner = S.MQRFH(Format=C.MQFMT_STRING, NameValueString="MQPSCommand Publish").pack("<")
    data, fmt = PR.join(PR.Properties({"Colour": "red"}), inner + b"x", C.MQFMT_RF_HEADER_1, 546, 1208)
    md = S.MQMD(Format=fmt, Encoding=546)
    out_md, props, body = properties.split_message(md, data)
    assert (out_md, props, body) == (md, None, data)


def test_an_mqopen_selection_string_selects_what_mqget_returns(tmp_path, clock):
    qm = _open(tmp_path, clock)
    try:
        session = qm.connect("QM1", user="admin", admin=True)
        for colour, body in (("blue", b"first"), ("red", b"second"), ("red", b"third")):
            md, data = _rfh2({"Colour": colour}, body)
            _put(qm, session, md, data)
        od = S.MQOD(Version=C.MQOD_VERSION_4, ObjectName=Q, SelectionString=S.MQCHARV("Colour = 'red'"))
        handle, _ = qm.open_object(session, od, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE)
        def body(md, data):  # the usr property comes back in an MQRFH2 (PROPCTL COMPAT)
            return PR.split(data, md.Format, md.Encoding, md.CodedCharSetId).body

        browsed = qm.get(session, handle, S.MQMD(), S.MQGMO(Version=4, Options=C.MQGMO_BROWSE_FIRST), 1 << 20)
        assert body(browsed.md, browsed.data) == b"second"  # the blue one ahead of it is not selected
        assert body(*_get(qm, session, handle)) == b"second" and body(*_get(qm, session, handle)) == b"third"
        assert qm.get(session, handle, S.MQMD(), S.MQGMO(Version=4), 1 << 20) is None  # only blue is left
        bad = S.MQOD(Version=C.MQOD_VERSION_4, ObjectName=Q, SelectionString=S.MQCHARV("Colour = "))
        with pytest.raises(MQIError) as info:
            qm.open_object(session, bad, C.MQOO_INPUT_AS_Q_DEF)
        assert info.value.reason == C.MQRC_SELECTOR_SYNTAX_ERROR
    finally:
        qm.shutdown()


def _chain() -> bytes:
    """Two MQRFH2 headers, big-endian (Encoding 273): a psc folder and an application's own folder,
    then the same with an mcd folder (a property folder) -- what pymqi's RFH2 tests put."""
    psc = "<psc><Command>RegSub</Command><Topic>a/b</Topic></psc>"
    app = "<testFolder><testVar>testValue</testVar></testFolder>"
    mcd = "<mcd><Msd>xmlnsc</Msd></mcd>"
    second = PR.MQRFH2(Encoding=273, CodedCharSetId=1208, Format="MQSTR", NameValueCCSID=1208,
                      Folders=[psc, app, mcd]).pack(">", "latin-1")
    first = PR.MQRFH2(Encoding=273, CodedCharSetId=1208, Format="MQHRF2", NameValueCCSID=1208,
                     Folders=[psc, app]).pack(">", "latin-1")
    return first + second + b"<testData/>"


def test_an_rfh2_chain_with_other_folders_comes_back_as_sent(tmp_path, clock):
    qm = _open(tmp_path, clock)
    try:
        session = qm.connect("QM1", user="admin", admin=True)
        data = _chain()
        md = S.MQMD(Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208)
        handle, _ = _put(qm, session, md, data)
        (msg,) = list(qm.registry.messages.contents(Q))
        assert msg.props.values_for_selectors() == {"mcd.Msd": "xmlnsc"}  # read, for selectors and handles
        out_md, out = _get(qm, session, handle, C.MQGMO_BROWSE_FIRST)
        assert out == data and out_md.Format == C.MQFMT_RF_HEADER_2 and out_md.Encoding == 273
        out_md, out = _get(qm, session, handle, C.MQGMO_NO_PROPERTIES)
        split = PR.split(out, out_md.Format, out_md.Encoding, out_md.CodedCharSetId)
        assert not split.properties and split.body == b"<testData/>"
        assert [f.split(">")[0] for f in split.folders] == ["<psc", "<testFolder", "<psc", "<testFolder"]
    finally:
        qm.shutdown()
