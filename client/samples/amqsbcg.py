"""amqsbcg / amqsbcgc: browse every message on a queue and dump it -- the MQMD field by field, the
message properties, a dead-letter header, then the data in hex and characters (IBM's AMQSBCG0, as
IBM MQ 9.4 prints it: its summary and MQDLH block included).

``amqsbcg QName [QMgrName [PropOption]]``; PropOption 0 properties as the queue says, 1 in a message
handle (printed in the ``Message properties`` block), 2 none, 3 in an MQRFH2, 4 compatibility.  Each
dump line holds 16 bytes: the offset, eight groups of two bytes in hex, and the bytes as characters
('.' for those that do not print).  Under a UTF-8 locale (LC_ALL, LC_CTYPE or LANG) multi-byte
characters are kept whole and the columns are as far apart as IBM's under that locale (its MB_CUR_MAX).
Nothing is removed from the queue.
"""

from __future__ import annotations

import os
import sys
from typing import Optional

from qmlite.pcf import constants as C
from qmlite.pcf import properties as PR
from qmlite.pcf.mqi import MQDLH, MQGMO, MQMD, MQOD

from ..errors import MQIError
from . import common

BUFFER = 65536
CHARS_PER_LINE = 16
PROPS_AS_Q_DEF, PROPS_IN_MSG_HANDLE, PROPS_NONE, PROPS_IN_MQRFH2, PROPS_COMPATIBILITY, PROPS_LAST = range(6)
_PROP_GMO = {PROPS_IN_MSG_HANDLE: C.MQGMO_PROPERTIES_FORCE_MQRFH2, PROPS_IN_MQRFH2: C.MQGMO_PROPERTIES_FORCE_MQRFH2,
             PROPS_NONE: C.MQGMO_NO_PROPERTIES, PROPS_COMPATIBILITY: C.MQGMO_PROPERTIES_COMPATIBILITY}
_DLH_LENGTH = 172  # MQDLH_LENGTH_1


def _usage(prog: str) -> None:
    common.write(f"\n  Usage: {prog} QName [ QMgrName ] [ PropOption ]\n")


def main(args: list[str], client: bool, prog: str = "") -> int:
    prog = prog or os.path.basename(sys.argv[0]) or "amqsbcg"
    common.write("\nAMQSBCG0 - starts here\n**********************\n ")
    if not args:
        common.say("Required parameter missing - queue name")
        _usage(prog)
        common.write("\n")
        return 4
    option = PROPS_AS_Q_DEF
    if len(args) > 2:
        option = common.atoi(args[2])
        if not PROPS_AS_Q_DEF <= option < PROPS_LAST:
            common.say(f'PropOption "{option}" invalid - specify {PROPS_AS_Q_DEF}-{PROPS_LAST - 1}')
            _usage(prog)
            common.write("\n")
            return 4
    user, password = common.sample_credentials()
    queue = args[0][:C.MQ_Q_NAME_LENGTH]
    try:
        with_client = client or os.environ.get("MQ_CONNECT_TYPE", "").strip().upper() == "CLIENT"
        connect = common.connect_client if with_client else common.connect_local
        qm = connect(args[1][:C.MQ_Q_MGR_NAME_LENGTH] if len(args) > 1 else "",
                     appl_name="amqsbcg" + ("c" if client else ""), user=user, password=password)
    except MQIError as exc:
        common.write(f"\n MQCONNX failed with CompCode:{exc.comp}, Reason:{exc.reason}\n")
        return exc.comp
    browser = Browser(qm, option)
    code = browser.run(queue)
    if browser.count:
        common.write(f"\n\n****   Summary      ****\n {browser.count} messages browsed.\n"
                f" Smallest message {browser.smallest} bytes.\n Largest message {browser.largest} bytes.\n"
                f" Average message {browser.total // browser.count} bytes.\n")
    if browser.handle_made:
        common.write("\n MQDLTMH")
    if browser.hobj is not None:
        common.write("\n MQCLOSE")
        try:
            qm.close(browser.hobj)
        except MQIError as exc:
            common.write(f"\n  failed with CompCode:{exc.comp}, Reason:{exc.reason}")
    common.write("\n MQDISC")
    try:
        qm.disc()
    except MQIError as exc:
        common.write(f"\n  failed with CompCode:{exc.comp}, Reason:{exc.reason}")
    common.write("\n")
    return code


class Browser:
    """The MQOPEN and MQGET loop, with the counts the summary prints."""

    def __init__(self, qm, option: int) -> None:
        self.qm = qm
        self.option = option
        self.hobj: Optional[int] = None
        self.handle_made = False  # PropOption 1's MQCRTMH (reported; the properties come in an MQRFH2)
        self.count = self.total = 0
        self.smallest = self.largest = 0
        self.mbcsmax = common.mb_cur_max()
        self.lines_printed = 0

    def run(self, queue: str) -> int:
        common.write(f"\n MQOPEN - '{queue}'")
        try:
            self.hobj, _ = self.qm.open(MQOD(ObjectName=queue), C.MQOO_BROWSE)
        except MQIError as exc:
            common.write(f"\n MQOPEN failed with CompCode:{exc.comp}, Reason:{exc.reason}")
            return exc.comp
        if self.option == PROPS_IN_MSG_HANDLE:
            common.write("\n MQCRTMH")
            self.handle_made = True
        common.write("\n ")
        gmo = MQGMO(Version=C.MQGMO_VERSION_4 if self.option == PROPS_IN_MSG_HANDLE else C.MQGMO_VERSION_2,
                    MatchOptions=C.MQMO_NONE,
                    Options=C.MQGMO_NO_WAIT | C.MQGMO_ACCEPT_TRUNCATED_MSG | C.MQGMO_BROWSE_NEXT
                    | _PROP_GMO.get(self.option, 0))
        number = 0
        while True:
            number += 1
            if number == 1:
                self.lines_printed = 29
            else:
                common.write("\n ")
                self.lines_printed = 22
            comp, reason = C.MQCC_OK, C.MQRC_NONE
            try:
                md, _gmo, data = self.qm.get(self.hobj, MQMD(Version=C.MQMD_VERSION_2), gmo, BUFFER)
                length = len(data)
            except MQIError as exc:
                comp, reason = exc.comp, exc.reason
                md, data = exc.md, exc.data or b""
                length = exc.data_length if exc.data_length is not None else len(data)
            if comp == C.MQCC_FAILED:
                if reason != C.MQRC_NO_MSG_AVAILABLE:
                    common.write(f"\n MQGET {number}, failed with CompCode:{comp} Reason:{reason}")
                    return comp
                common.write("\n \n \n No more messages ")
                return C.MQCC_OK
            common.write(f"\n \n MQGET of message number {number}, CompCode:{comp} Reason:{reason}")
            md = md.copy()
            md.Version = C.MQMD_VERSION_2  # the caller's structure: MQGET fills it, it keeps its version
            self._count(length)
            props = None
            if self.option == PROPS_IN_MSG_HANDLE:
                md, data, length, props = _to_handle(md, data, length)
            common.write(format_md(md))
            if props is not None:
                common.write(format_properties(props))
            offset = 0
            if md.Format == C.MQFMT_DEAD_LETTER_HEADER.rstrip():
                dlh = format_dlh(data, length)
                if dlh:
                    common.write(dlh)
                    offset = _DLH_LENGTH
                    length -= offset
            common.write("\n \n****   Message      ****\n ")
            to_print = min(length, BUFFER - offset)
            common.write(f"\n length - {to_print} of {length} bytes\n ")
            self.lines_printed = dump(data[offset:offset + to_print], self.mbcsmax, self.lines_printed)

    def _count(self, length: int) -> None:
        self.count += 1
        if self.count == 1:
            self.smallest = self.largest = length
        self.smallest, self.largest = min(self.smallest, length), max(self.largest, length)
        self.total += length


def _to_handle(md: MQMD, data: bytes, length: int):
    """PropOption 1: the properties came in an MQRFH2 (qmlite's client keeps no message handles); take
    them off, and describe the body in the MQMD, as a get into a message handle returns it."""
    try:
        split = PR.split(data, md.Format, md.Encoding, md.CodedCharSetId)
    except Exception:  # a malformed header: show the message as it came
        return md, data, length, PR.Properties()
    body = md.copy()
    body.Format, body.Encoding, body.CodedCharSetId = split.fmt.rstrip(), split.encoding, split.ccsid
    return body, split.body, length - (len(data) - len(split.body)), split.properties


def format_md(md: MQMD) -> str:
    def pad(text: str, width: int) -> str:
        return text.ljust(width)[:width]

    def hexs(raw: bytes) -> str:
        return raw.hex().upper()

    return ("\n****Message descriptor****\n"
            f"\n  StrucId  : 'MD  '  Version : {md.Version}"
            f"\n  Report   : {md.Report}  MsgType : {md.MsgType}"
            f"\n  Expiry   : {md.Expiry}  Feedback : {md.Feedback}"
            f"\n  Encoding : {md.Encoding}  CodedCharSetId : {md.CodedCharSetId}"
            f"\n  Format : '{pad(md.Format, C.MQ_FORMAT_LENGTH)}'"
            f"\n  Priority : {md.Priority}  Persistence : {md.Persistence}"
            f"\n  MsgId : X'{hexs(md.MsgId)}'"
            f"\n  CorrelId : X'{hexs(md.CorrelId)}'"
            f"\n  BackoutCount : {md.BackoutCount}"
            f"\n  ReplyToQ       : '{pad(md.ReplyToQ, C.MQ_Q_NAME_LENGTH)}'"
            f"\n  ReplyToQMgr    : '{pad(md.ReplyToQMgr, C.MQ_Q_MGR_NAME_LENGTH)}'"
            "\n  ** Identity Context"
            f"\n  UserIdentifier : '{pad(md.UserIdentifier, C.MQ_USER_ID_LENGTH)}'"
            f"\n  AccountingToken : \n   X'{hexs(md.AccountingToken)}'"
            f"\n  ApplIdentityData : '{pad(md.ApplIdentityData, C.MQ_APPL_IDENTITY_DATA_LENGTH)}'"
            "\n  ** Origin Context"
            f"\n  PutApplType    : '{md.PutApplType}'"
            f"\n  PutApplName    : '{pad(md.PutApplName, C.MQ_PUT_APPL_NAME_LENGTH)}'"
            f"\n  PutDate  : '{pad(md.PutDate, C.MQ_PUT_DATE_LENGTH)}'"
            f"    PutTime  : '{pad(md.PutTime, C.MQ_PUT_TIME_LENGTH)}'"
            f"\n  ApplOriginData : '{pad(md.ApplOriginData, C.MQ_APPL_ORIGIN_DATA_LENGTH)}'\n"
            f"\n  GroupId : X'{hexs(md.GroupId)}'"
            f"\n  MsgSeqNumber   : '{md.MsgSeqNumber}'"
            f"\n  Offset         : '{md.Offset}'"
            f"\n  MsgFlags       : '{md.MsgFlags}'"
            f"\n  OriginalLength : '{md.OriginalLength}'")


def format_properties(props) -> str:
    out = ["\n \n****Message properties****\n"]
    if not len(props):
        out.append("\n  None\n")
    for name, prop in props.items():
        out.append(f"\n  {name} : {property_text(prop.type, prop.value)}")
    return "".join(out)


def property_text(kind: str, value) -> str:
    """A property value as AMQSBCG0 prints it (MQINQMP's type decides the format)."""
    if kind == PR.BOOLEAN:
        return "TRUE" if value else "FALSE"
    if kind == PR.BYTES:
        return "X'" + bytes(value).hex().upper() + "'"
    if kind == PR.FLOAT32:
        return format(float(value), ".12g")
    if kind == PR.FLOAT64:
        return format(float(value), ".18g")
    if kind == PR.INT8:
        return str(int(value) & 0xFF)
    if kind in (PR.INT16, PR.INT32, PR.INT64):
        return str(int(value))
    if kind == PR.NULL:
        return "NULL"
    if kind == PR.STRING:
        return f"'{value}'"
    return "<unrecognized data type>\n"


def format_dlh(data: bytes, length: int) -> str:
    """The ``Dead Letter Header`` block, or "" when the data does not start with a plausible MQDLH."""
    if length < _DLH_LENGTH or data[:4] != b"DLH ":
        return ""
    order = "<" if int.from_bytes(data[4:8], "little") == 1 else ">"
    try:
        dlh, _ = MQDLH.unpack(data, 0, order)
    except Exception:
        return ""
    name = C.name_of("MQRC", dlh.Reason) or C.name_of("MQFB", dlh.Reason) or "UNKNOWN RC"
    return ("\n\n****Dead Letter Header****\n"
            f"\n  StrucId  : 'DLH '  Version : {dlh.Version}"
            f"\n  Reason   : {dlh.Reason} [{name}]"
            f"\n  DestQName      : '{dlh.DestQName.ljust(C.MQ_Q_NAME_LENGTH)}'"
            f"\n  DestQMgrName   : '{dlh.DestQMgrName.ljust(C.MQ_Q_MGR_NAME_LENGTH)}'"
            f"\n  Encoding : {dlh.Encoding}  CodedCharSetId : {dlh.CodedCharSetId}"
            f"\n  Format : '{dlh.Format.ljust(C.MQ_FORMAT_LENGTH)}'"
            f"\n  PutApplType    : '{dlh.PutApplType}'"
            f"\n  PutApplName    : '{dlh.PutApplName.ljust(C.MQ_PUT_APPL_NAME_LENGTH)}'"
            f"\n  PutDate  : '{dlh.PutDate.ljust(C.MQ_PUT_DATE_LENGTH)}'"
            f"    PutTime  : '{dlh.PutTime.ljust(C.MQ_PUT_TIME_LENGTH)}'")


# ---- the dump ------------------------------------------------------------------------------------
def mblen(data: bytes, at: int, mbcsmax: int) -> int:
    """C's ``mblen`` in the locale: the length of the character at ``at`` (1 for a byte that does not
    start a valid one)."""
    if mbcsmax == 1:
        return 1
    lead = data[at]
    size = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 1
    if size == 1:
        return 1
    try:
        data[at:at + size].decode("utf-8")
    except UnicodeDecodeError:
        return 1
    return size if at + size <= len(data) else 1


def dump(data: bytes, mbcsmax: int, lines_printed: int) -> int:
    """Print ``data`` as AMQSBCG0's hex and character lines; returns the page's line count."""
    out = bytearray()
    ch = overrun = 0
    length = len(data)
    while True:
        n = 0
        text = bytearray()
        out += b"\n%08X: " % ch
        while overrun > 0:  # the columns an earlier line's multi-byte character took
            out += b"  "
            text += b" "
            n += 1
            if overrun % 2:
                out += b" "
            overrun -= 1
        while n < CHARS_PER_LINE and ch < length:
            size = mblen(data, ch, mbcsmax)
            if size > 1:
                for _ in range(size):
                    if n % 2 == 0 and n < CHARS_PER_LINE:
                        out += b" "
                    out += b"%02X" % data[ch]
                    text.append(data[ch])
                    n += 1
                    ch += 1
            else:
                if n % 2 == 0:
                    out += b" "
                byte = data[ch]
                out += b"%02X" % byte
                text.append(byte if 0x20 <= byte < 0x7F else 0x2E)
                n += 1
                ch += 1
        if n > CHARS_PER_LINE:
            overrun = n - CHARS_PER_LINE
        while n < CHARS_PER_LINE:
            if n % 2 == 0:
                out += b" "
            out += b"  "
            text += b" "
            n += 1
        out += b" " * max((mbcsmax - overrun - 1) * 2, 0)
        out += b" '" + bytes(text) + b"'"
        lines_printed += 1
        if lines_printed >= 60:
            lines_printed = 0
            out += b"\n "
        if ch >= length:
            break
    common.write(bytes(out))
    return lines_printed


local, client = common.entry_points(main)
