"""Put segments into a pcap as one TCP conversation on port 1414 and ask tshark what it sees.

Wireshark's MQ dissector is an independent reading of the protocol, so our bytes passing through it
(no malformed frames, the expected ``mq.*`` fields) is evidence that real tools will read them too.
"""

from __future__ import annotations

import dataclasses
import pathlib
import shutil
import struct
import subprocess
import tempfile

SERVER_PORT = 1414
CLIENT_PORT = 50414
_CLIENT_IP = bytes([127, 0, 0, 2])
_SERVER_IP = bytes([127, 0, 0, 1])


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


class PcapWriter:
    """A TCP conversation, handshake included, so tshark reassembles segments across packets."""

    def __init__(self) -> None:
        self._packets: list[bytes] = []
        self._seq = {True: 1000, False: 5000}  # keyed by "from client"
        self._handshake()

    def _packet(self, from_client: bool, flags: int, payload: bytes = b"") -> None:
        src, dst = (_CLIENT_IP, _SERVER_IP) if from_client else (_SERVER_IP, _CLIENT_IP)
        sport, dport = (CLIENT_PORT, SERVER_PORT) if from_client else (SERVER_PORT, CLIENT_PORT)
        seq = self._seq[from_client]
        ack = self._seq[not from_client]
        tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0)
        total = 20 + len(tcp) + len(payload)
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 0, 0x4000, 64, 6, 0, src, dst)
        ip = ip[:10] + struct.pack("!H", _checksum(ip)) + ip[12:]
        eth = b"\x00\x00\x00\x00\x00\x02" + b"\x00\x00\x00\x00\x00\x01" + b"\x08\x00"
        self._packets.append(eth + ip + tcp + payload)
        advance = len(payload) + (1 if flags & 0x03 else 0)  # SYN and FIN take a sequence number
        self._seq[from_client] = (seq + advance) & 0xFFFFFFFF

    def _handshake(self) -> None:
        self._packet(True, 0x02)
        self._packet(False, 0x12)
        self._packet(True, 0x10)

    def send(self, payload: bytes, *, from_client: bool) -> None:
        """One TCP packet per call; a segment may be split over several calls or share one."""
        self._packet(from_client, 0x18, payload)

    def write(self, path: pathlib.Path) -> None:
        out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1)]
        for i, pkt in enumerate(self._packets):
            out.append(struct.pack("<IIII", 1_700_000_000 + i, 0, len(pkt), len(pkt)))
            out.append(pkt)
        path.write_bytes(b"".join(out))


@dataclasses.dataclass
class Dissection:
    frames: list[dict[str, list[str]]]  # one dict per MQ-carrying frame: field -> values
    malformed: list[int]  # frame numbers tshark flagged _ws.malformed
    expert: list[str]  # expert-info messages of warning level or above

    def values(self, field: str) -> list[str]:
        """Every value of ``field`` in frame order; MQ CHAR padding (trailing blanks) removed."""
        return [v.rstrip(" ") for frame in self.frames for v in frame.get(field, [])]


def dissect(writer: PcapWriter, fields: list[str]) -> Dissection:
    """Run tshark over the conversation; return the requested fields of every frame with MQ in it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "capture.pcap"
        writer.write(path)
        return dissect_file(path, SERVER_PORT, fields)


def dissect_file(path: pathlib.Path, port: int, fields: list[str]) -> Dissection:
    """tshark over a capture file, decoding TCP port ``port`` as MQ."""
    if shutil.which("tshark") is None:
        raise RuntimeError("tshark is required: ./scripts/test installs it (apt-get install -y tshark)")
    wanted = ["frame.number", "_ws.malformed", "_ws.expert.severity", "_ws.expert.message",
              "mq.tsh.type", *fields]
    cmd = ["tshark", "-n", "-r", str(path), "-d", f"tcp.port=={port},mq", "-T", "fields",
           "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=\x1f"]
    for f in dict.fromkeys(wanted):
        cmd += ["-e", f]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"tshark failed ({proc.returncode}): {proc.stderr.strip()}")
    names = list(dict.fromkeys(wanted))
    frames, malformed, expert = [], [], []
    for line in proc.stdout.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(names) - len(cols))
        row = {n: [v for v in c.split("\x1f") if v] for n, c in zip(names, cols)}
        number = int(row["frame.number"][0])
        if row["_ws.malformed"]:
            malformed.append(number)
        # Severity is a bit field: 0x00600000 warn, 0x00800000 error.  Notes and chats are not problems.
        for sev, msg in zip(row["_ws.expert.severity"], row["_ws.expert.message"]):
            if int(sev, 0) >= 0x00600000:
                expert.append(f"frame {number}: {msg}")
        if row["mq.tsh.type"]:
            frames.append(row)
    return Dissection(frames=frames, malformed=malformed, expert=expert)
