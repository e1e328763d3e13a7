"""A deliberately dumb FAP peer for server tests: it sends exactly the segments a test builds and
returns exactly what the server answers, so the tests see the server's bytes, not a client's view."""

from __future__ import annotations

import contextlib
import pathlib
import ssl

import trio

from qmlite.pcf import calls, cipherspecs, fap, mqi
from qmlite.pcf import constants as C
from qmlite.pcf.framer import Framer, Reassembler
from qmlite.server import config
from qmlite.server.listener import running


@contextlib.asynccontextmanager
async def running_server(tmp_path: pathlib.Path, **overrides):
    environ = overrides.pop("environ", {})
    cfg = config.load(environ=environ, overrides={"host": "127.0.0.1", "port": 0, "data_dir": tmp_path, **overrides})
    async with running(cfg, synchronous="NORMAL") as server:
        yield server


class RawPeer:
    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.framer = Framer(max_segment_length=1 << 20)
        self.reassembler = Reassembler()
        self.pending: list[fap.Segment] = []

    @classmethod
    async def connect(cls, server) -> RawPeer:
        return cls(await trio.open_tcp_stream("127.0.0.1", server.port))

    async def send(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def receive(self) -> fap.Segment | None:
        """The next whole (reassembled) segment, or None when the server closed the socket."""
        while True:
            while self.pending:
                whole = self.reassembler.add(self.pending.pop(0))
                if whole is not None:
                    return whole
            data = await self.stream.receive_some(65536)
            if not data:
                return None
            self.pending.extend(self.framer.feed(data))

    async def closed(self) -> bool:
        """True once the server has closed its side (after draining whatever it still sent)."""
        while True:
            data = await self.stream.receive_some(65536)
            if not data:
                return True

    async def aclose(self) -> None:
        await self.stream.aclose()


def client_id(channel: str, *, fap_level: int = 13, sharecnv: int = 10, max_tr: int = 32748,
              max_msg: int = 104857600, hb: int = 300, cap3: int = 0x08) -> fap.InitialData:
    return fap.InitialData(FapLevel=fap_level, CapFlags1=0x26, MaxTransmissionSize=max_tr, MaxMessageSize=max_msg,
                           ChannelName=channel, CapFlags2=0x51, CCSID=1208, QMgrName="QM1", HeartbeatInterval=hb,
                           EFLLength=0, SharingConversations=sharecnv, CapFlags3=cap3, ProductId="MQMM09030000",
                           QMgrId="", PAL=[0] * 10)


async def handshake(peer: RawPeer, channel: str = "DEV.ADMIN.SVRCONN", user: str = "admin",
                    password: str = "passw0rd", **id_kwargs) -> fap.InitialData:
    """ID exchange (taking the server's values after an ERROR), UID, CAUT.  Returns the accepted ID."""
    mine = client_id(channel, **id_kwargs)
    struct_id, conv = fap.TSH, 0
    for _ in range(3):
        await peer.send(fap.encode_segment(fap.INITIAL_DATA, mine.pack(fap.BIG), struct_id=struct_id,
                                           conversation_id=conv, byte_order=1,
                                           control_flags1=fap.CF1_CONFIRM_REQUEST | fap.CF1_FIRST | fap.CF1_LAST))
        seg = await peer.receive()
        assert seg is not None and seg.header.SegmentType == fap.INITIAL_DATA, seg
        theirs = fap.decode_body(seg)
        if not seg.header.ControlFlags1 & fap.CF1_ERROR:
            break
        mine.FapLevel, mine.MaxTransmissionSize = theirs.FapLevel, theirs.MaxTransmissionSize
        mine.MaxMessageSize, mine.HeartbeatInterval = theirs.MaxMessageSize, theirs.HeartbeatInterval
        mine.SharingConversations, mine.CapFlags3 = theirs.SharingConversations, theirs.CapFlags3
        if theirs.SharingConversations:
            struct_id, conv = fap.TSHM, 1
    else:
        raise AssertionError("no agreement in three rounds")
    peer.multiplexed = theirs.SharingConversations > 0
    sid, conv = (fap.TSHM, 1) if peer.multiplexed else (fap.TSH, 0)
    peer.sid = sid
    await peer.send(fap.encode_segment(fap.USERID_DATA, fap.UserIdData(UserIdentifier=user).pack(fap.LITTLE),
                                       struct_id=sid, conversation_id=conv))
    if password is not None:
        caut = fap.ConAuthInfo(UserIdMaxLength=1024, PasswordMaxLength=1024, UserId=user, Password=password.encode())
        await peer.send(fap.encode_segment(fap.CONAUTH_INFO, caut.pack(fap.LITTLE), struct_id=sid,
                                           conversation_id=conv))
        status = await peer.receive()
        assert status.header.SegmentType == fap.STATUS_DATA
    return theirs


async def send_call(peer: RawPeer, segment_type: int, body: bytes = b"", *, hobj: int = 0, conv: int = 1) -> None:
    """Send an MQI request and nothing more (its reply is the caller's to read, or not)."""
    sid = getattr(peer, "sid", fap.TSHM)
    total = (36 if sid == fap.TSHM else 28) + 16 + len(body)
    api = fap.ApiHeader(CallLength=total, Hobj=hobj).pack(fap.LITTLE)
    await peer.send(fap.encode_segment(segment_type, api + body, struct_id=sid,
                                       conversation_id=conv if sid == fap.TSHM else 0))


async def mqi_call(peer: RawPeer, segment_type: int, body: bytes = b"", *, hobj: int = 0,
                   conv: int = 1) -> tuple[fap.ApiHeader, bytes]:
    await send_call(peer, segment_type, body, hobj=hobj, conv=conv)
    seg = await peer.receive()
    assert seg is not None, "server closed the connection"
    assert seg.header.SegmentType == segment_type | fap.REPLY, seg.header
    call = fap.decode_body(seg, first=True)
    return call.ApiHeader, (call.Call if call.Call is not None else call.Data)


def mqconn_body() -> bytes:
    return fap.MQConnBody(QMgrName="QM1", ApplName="rawfap", ApplType=C.MQAT_UNIX, Options=3,
                          Fcno=fap.Fcno(Version=2, CapabilityFlags=0)).pack(fap.LITTLE)


async def connect_mq(peer: RawPeer, conv: int = 1) -> fap.ApiHeader:
    api, _ = await mqi_call(peer, fap.MQCONN, mqconn_body(), conv=conv)
    return api


async def open_q(peer: RawPeer, name: str, options: int, *, dynamic: str = "AMQ.*", conv: int = 1):
    req = calls.MQOpenRequest(mqi.MQOD(Version=1, ObjectName=name, DynamicQName=dynamic), options)
    api, data = await mqi_call(peer, fap.MQOPEN, req.pack(fap.LITTLE), conv=conv)
    reply = calls.MQOpenReply.unpack(data, 0, fap.LITTLE)[0] if api.CompCode == 0 else None
    return api, reply


async def opened_queue(server, name: str = "DEV.QUEUE.1",
                       options: int = C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE) -> tuple[RawPeer, int]:
    """A new peer through the ID exchange and MQCONN, with ``name`` opened: the peer and its handle."""
    peer = await RawPeer.connect(server)
    await handshake(peer)
    await connect_mq(peer)
    api, _ = await open_q(peer, name, options)
    assert api.CompCode == 0
    return peer, api.Hobj


def id_segment(struct_id: str) -> bytes:
    """A whole first INITIAL_DATA as IBM's clients send it, in a TSH or a TSHM."""
    return fap.encode_segment(fap.INITIAL_DATA, client_id("DEV.ADMIN.SVRCONN").pack(fap.BIG), struct_id=struct_id,
                              conversation_id=1 if struct_id == fap.TSHM else 0, byte_order=1,
                              control_flags1=fap.CF1_CONFIRM_REQUEST | fap.CF1_FIRST | fap.CF1_LAST)


_QMGR_NAME_AT = 48  # the ID's QMgrName: CHAR[48] at offset 48 (docs/reference/fap.md section 6.3)


def id_naming(raw_name: bytes) -> bytes:
    """A first INITIAL_DATA (TSH, the server's own values, so accepted in one round) naming ``raw_name``
    byte for byte: what no client library would send (it strips or refuses such names)."""
    body = bytearray(client_id("DEV.ADMIN.SVRCONN", fap_level=12, max_msg=4194304, cap3=0).pack(fap.BIG))
    body[_QMGR_NAME_AT:_QMGR_NAME_AT + 48] = raw_name[:48].ljust(48, b" ")
    return fap.encode_segment(fap.INITIAL_DATA, bytes(body), struct_id=fap.TSH, byte_order=1,
                              control_flags1=fap.CF1_CONFIRM_REQUEST | fap.CF1_FIRST | fap.CF1_LAST)


def mqconn_naming(raw_name: bytes) -> bytes:
    """An MQCONN body whose QMgrName (its first 48 bytes) is ``raw_name`` byte for byte."""
    body = bytearray(fap.MQConnBody(QMgrName="X", ApplName="raw", ApplType=C.MQAT_UNIX, Options=3,
                                    Fcno=fap.Fcno(Version=2, CapabilityFlags=0)).pack(fap.LITTLE))
    body[0:48] = raw_name[:48].ljust(48, b" ")
    return bytes(body)


def client_hello(channel: str = "DEV.APP.SVRCONN") -> bytes:
    """The first flight of a TLS client naming ``channel`` by its SNI, as bytes (no socket)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(incoming, outgoing, server_hostname=cipherspecs.sni_for_channel(channel))
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        return outgoing.read()
    raise AssertionError("a TLS client finished its handshake with no server")
