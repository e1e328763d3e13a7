"""The server's real traffic, captured on the loopback interface with dumpcap and decoded by tshark.

A whole admin session (negotiation, UID, CAUT, MQCONN, a dynamic reply queue, a PCF command through
the command server, the reply, MQCLOSE, MQDISC) must decode with no malformed frame and no warning.
"""

from __future__ import annotations

import pathlib
import signal
import subprocess

import trio

from qmlite.pcf import calls, fap, mqi
from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from tests.support.rawfap import RawPeer, connect_mq, handshake, mqi_call, open_q, running_server
from tests.support.wire import dissect_file


async def _admin_session(server) -> None:
    peer = await RawPeer.connect(server)
    await handshake(peer)
    await connect_mq(peer)
    api, reply_q = await open_q(peer, "SYSTEM.DEFAULT.MODEL.QUEUE", C.MQOO_INPUT_EXCLUSIVE, dynamic="PYMQPCF.*")
    hobj = api.Hobj
    request = P.PCFMessage(P.CFH(Type=C.MQCFT_COMMAND_XR, Command=C.MQCMD_CREATE_SUBSCRIPTION), [
        P.CFST(C.MQCACF_SUB_NAME, "SUB.A"), P.CFST(C.MQCA_TOPIC_STRING, "price/fruit"),
        P.CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED), P.CFIN(C.MQIACF_REPLACE, C.MQRP_YES)])
    md = mqi.MQMD(Format="MQADMIN", MsgType=C.MQMT_REQUEST, ReplyToQ=reply_q.ObjDesc.ObjectName, Expiry=150)
    put1 = calls.MQPut1Request(mqi.MQOD(ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE"), md,
                               mqi.MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT), P.encode(request))
    api, data = await mqi_call(peer, fap.MQPUT1, put1.pack(fap.LITTLE), hobj=-1)
    msg_id = calls.MQPut1Reply.unpack(data, 0, fap.LITTLE)[0].MsgDesc.MsgId
    gmo = mqi.MQGMO(Version=2, Options=C.MQGMO_WAIT, WaitInterval=5000, MatchOptions=C.MQMO_MATCH_CORREL_ID)
    api, _ = await mqi_call(peer, fap.MQGET, calls.MQGetRequest(mqi.MQMD(CorrelId=msg_id), gmo, 4096).pack(fap.LITTLE),
                            hobj=hobj)
    assert api.CompCode == 0
    await mqi_call(peer, fap.MQCLOSE, calls.MQCloseRequest(0).pack(fap.LITTLE), hobj=hobj)
    await mqi_call(peer, fap.MQDISC)
    await peer.aclose()


class Capture:
    """tshark capturing the server's port on lo, synchronised by sentinel datagrams.

    Capture tools announce themselves before their filter is armed and stop before draining the
    kernel's buffer, so both ends are shown by events instead: UDP datagrams to a port in the filter
    are sent until the capture echoes one (-P prints every captured packet, in order).
    """

    def __init__(self, proc: trio.Process, sentinel, sport: int) -> None:
        self.proc, self.sentinel, self.sport = proc, sentinel, sport
        self.echo = b""

    @classmethod
    async def start(cls, port: int, path: pathlib.Path) -> Capture:
        sentinel = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
        await sentinel.bind(("127.0.0.1", 0))
        sport = sentinel.getsockname()[1]
        proc = await trio.lowlevel.open_process(
            ["tshark", "-n", "-l", "-P", "-i", "lo", "-f", f"tcp port {port} or udp port {sport}", "-w", str(path)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        capture = cls(proc, sentinel, sport)
        await capture.mark(b"ready")
        return capture

    async def mark(self, payload: bytes) -> None:
        """Return once the capture has recorded a datagram carrying ``payload`` (by its length)."""
        wanted = f"Len={len(payload)}".encode()
        for _ in range(200):
            await self.sentinel.sendto(payload, ("127.0.0.1", self.sport))
            with trio.move_on_after(0.25):
                while wanted not in self.echo:
                    chunk = await self.proc.stdout.receive_some(65536)
                    assert chunk, "the capture ended early"
                    self.echo += chunk
                self.echo = b""
                return
        raise AssertionError("the capture never saw the sentinel")

    async def stop(self) -> int:
        await self.mark(b"everything before this is on file")
        self.proc.send_signal(signal.SIGINT)
        async with self.proc.stdout:
            while await self.proc.stdout.receive_some(65536):
                pass
        self.sentinel.close()
        return await self.proc.wait()


async def test_live_loopback_capture_decodes_cleanly(tmp_path):
    capture = tmp_path / "live.pcapng"
    async with running_server(tmp_path / "data") as server:
        port = server.port
        cap = await Capture.start(port, capture)
        await _admin_session(server)
        assert await cap.stop() == 0
    d = dissect_file(capture, port, ["mq.api.reasoncode", "mqpcf.cfh.command", "mq.od.objname", "mq.id.faplevel"])
    assert d.malformed == [] and d.expert == []
    types = d.values("mq.tsh.type")
    for expected in ("0x01", "0x08", "0x0a", "0x81", "0x91", "0x83", "0x93", "0x87", "0x97", "0x85", "0x95",
                     "0x84", "0x94", "0x82", "0x92"):
        assert expected in types, (expected, types)
    assert set(d.values("mq.api.reasoncode")) == {"0"}
    assert d.values("mqpcf.cfh.command").count(str(C.MQCMD_CREATE_SUBSCRIPTION)) == 2  # request and response
