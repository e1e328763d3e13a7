"""What IBM's samples share: connecting (locally or as a client), MQSAMP_USER_ID, input, output.

Connecting (docs/decisions.md SM1, SM2):

* **client** (``amqsputc`` ...): the channel comes from where IBM's client looks -- MQSERVER
  (``CHANNEL/TCP/host(port)``), the client configuration file, MQCCDTURL, MQCHLLIB/MQCHLTAB, the
  default CCDT -- by the same rules ``ibmmqc`` follows (``ibmmqc/resolve.py``); each channel's
  connection list is tried in order.  No user id is sent unless MQSAMP_USER_ID is set.
* **local** (``amqsput`` ...): IBM's binds to a queue manager on the same machine with the operating
  system user's full authority.  qmlite has no bindings mode: the local samples connect to the server
  on this machine -- 127.0.0.1 (``QMLITE_HOST``), port 1414 (``QMLITE_PORT``) -- on DEV.ADMIN.SVRCONN as
  ``admin`` with the container's admin password (MQ_ADMIN_PASSWORD, else ``/run/secrets/mqAdminPassword``
  or QMLITE_SECRETS_DIR, else ``passw0rd``), unless MQSAMP_USER_ID names another user.  With
  ``MQ_CONNECT_TYPE=CLIENT`` they connect as the client samples do, as IBM's do.

A failed connect prints IBM's line (``MQCONNX ended with reason code 2059``) and ends the process with
the reason as its exit status (IBM's ``exit(CReason)``; the system keeps its low 8 bits).

Output is written as bytes (message data is printed as it came, as IBM's ``printf("%s")`` does) and
flushed after each line, so a script or test reading a waiting sample's output sees each line at once.
"""

from __future__ import annotations

import os
import sys
from typing import Iterator, NoReturn, Optional

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQMD, MQPMO
from qmlite.keys import credentials

from ..errors import MQIError

LOCAL_CHANNEL = "DEV.ADMIN.SVRCONN"
LOCAL_USER = credentials.ADMIN_USER
DEFAULT_PORT = 1414
# A connect that fails with one of these tries the next address, then the next channel (ibmmqc's rule).
_TRY_NEXT = frozenset({C.MQRC_HOST_NOT_AVAILABLE, C.MQRC_CONNECTION_BROKEN, C.MQRC_Q_MGR_NOT_AVAILABLE})


# ---- output --------------------------------------------------------------------------------------
def write(data: bytes | str) -> None:
    """Write text (UTF-8) or bytes to standard output, as they are, and flush."""
    out = sys.stdout.buffer
    out.write(data.encode("utf-8", "replace") if isinstance(data, str) else data)
    out.flush()


def say(text: str = "") -> None:
    """One line, as IBM's ``printf("...\\n")``."""
    write(text + "\n")


def c_string(data: bytes) -> bytes:
    """What ``printf("%s", buffer)`` prints of a message buffer: up to its first NUL."""
    end = data.find(b"\0")
    return data if end < 0 else data[:end]


def atoi(text: str) -> int:
    """C's ``atoi``: optional blanks and sign, then digits; 0 when there are none."""
    s = text.lstrip()
    sign, digits = 1, ""
    if s[:1] in "+-" and s:
        sign, s = (-1 if s[0] == "-" else 1), s[1:]
    for ch in s:
        if not ch.isdigit():
            break
        digits += ch
    return sign * int(digits) if digits else 0


def mb_cur_max(environ=None) -> int:
    """MB_CUR_MAX of the locale IBM's ``setlocale(LC_ALL, "")`` would take: 6 for UTF-8 (glibc), else 1.
    Read from LC_ALL, LC_CTYPE, LANG rather than from Python's own locale, which Python coerces from C to
    C.UTF-8 at start-up (PEP 538: LC_CTYPE=C.UTF-8 with no LC_ALL and a C or absent LANG is that)."""
    env = os.environ if environ is None else environ
    lang = env.get("LANG", "")
    if not env.get("LC_ALL") and env.get("LC_CTYPE") == "C.UTF-8" and lang in ("", "C", "POSIX"):
        return 1
    name = (env.get("LC_ALL") or env.get("LC_CTYPE") or lang).lower().replace("-", "")
    return 6 if ".utf8" in name else 1


def client_ccsid(environ=None) -> int:
    """The CCSID IBM's client takes from the locale for text it sends (MQCCSI_Q_MGR in an MQMD it puts):
    1208 under a UTF-8 locale, else 819 (ISO 8859-1)."""
    return 1208 if mb_cur_max(environ) > 1 else 819


# ---- input ---------------------------------------------------------------------------------------
def fgets(size: int) -> Optional[bytes]:
    """One ``fgets(buffer, size, stdin)``: at most ``size - 1`` bytes, up to and with the newline; None
    at the end of input.  A longer line comes back in pieces, as IBM's samples read it."""
    line = sys.stdin.buffer.readline(size - 1)
    return line or None


def put_lines(qm, hobj: int, pmo_options: int, size: int) -> None:
    """amqsput's and amqspub's loop: each line of :func:`input_lines` one MQSTR message, until a put fails
    (its reason printed as IBM's).  The MQMD is not written back by qmlite's put, so each put gets a new
    MsgId without amqsput0.c's reset of it."""
    md = MQMD(Format=C.MQFMT_STRING, CodedCharSetId=client_ccsid())
    pmo = MQPMO(Options=pmo_options)
    for line in input_lines(size):
        try:
            qm.put(hobj, md, pmo, line)
        except MQIError as exc:
            say(f"MQPUT ended with reason code {exc.reason}")
            if exc.comp == C.MQCC_FAILED:
                return


def input_lines(size: int) -> Iterator[bytes]:
    """The messages amqsput and amqspub send: each line without its newline, until an empty line or
    the end of input."""
    while True:
        line = fgets(size)
        if line is None:
            return
        if line.endswith(b"\n"):
            line = line[:-1]
        if not line:
            return
        yield line


# ---- MQSAMP_USER_ID ------------------------------------------------------------------------------
def sample_credentials() -> tuple[Optional[str], Optional[str]]:
    """IBM's setup_mqsamp_user_id: when MQSAMP_USER_ID is set, prompt ``Enter password: `` and read the
    password from standard input's next line (not echoed on a terminal)."""
    user = os.environ.get("MQSAMP_USER_ID")
    if user is None:
        return None, None
    write("Enter password: ")
    if sys.stdin.isatty():
        import getpass

        password = getpass.getpass("")
    else:
        line = sys.stdin.buffer.readline(C.MQ_CSP_PASSWORD_LENGTH)
        password = line.rstrip(b"\n").decode("utf-8", "replace")
    return user, password


# ---- connecting ----------------------------------------------------------------------------------
def connect(qmgr_name: str, *, client: bool, appl_name: str, verb: str = "MQCONNX",
            user: Optional[str] = None, password: Optional[str] = None):
    """Connect as the sample does (see the module docstring); on failure print ``<verb> ended with reason
    code N`` and exit with N."""
    try:
        if client or os.environ.get("MQ_CONNECT_TYPE", "").strip().upper() == "CLIENT":
            return connect_client(qmgr_name, appl_name=appl_name, user=user, password=password)
        return connect_local(qmgr_name, appl_name=appl_name, user=user, password=password)
    except MQIError as exc:
        say(f"{verb} ended with reason code {exc.reason}")
        raise SystemExit(exc.reason) from None


def local_address() -> tuple[str, int]:
    host = os.environ.get("QMLITE_HOST", "").strip() or "127.0.0.1"
    port_text = os.environ.get("QMLITE_PORT", "").strip()
    port = int(port_text) if port_text.isdigit() else DEFAULT_PORT
    return host, port


def connect_local(qmgr_name: str, *, appl_name: str, user: Optional[str] = None, password: Optional[str] = None):
    from ..sync import QueueManager

    host, port = local_address()
    if user is None:
        user, password = LOCAL_USER, credentials.admin_password()
    try:
        return QueueManager.connect(host, port, LOCAL_CHANNEL, qmgr_name, user=user, password=password,
                                    appl_name=appl_name)
    except MQIError as exc:
        if exc.reason == C.MQRC_HOST_NOT_AVAILABLE:
            # nothing listens: for a local application the queue manager is not running (IBM: 2059)
            raise MQIError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, exc.detail) from None
        raise


def connect_client(qmgr_name: str, *, appl_name: str, user: Optional[str] = None, password: Optional[str] = None):
    from ibmmqc import resolve

    from ..sync import QueueManager

    try:
        plan = resolve.plan(qmgr_name, None, None)
    except resolve.PlanError as exc:
        raise MQIError(C.MQCC_FAILED, exc.reason, exc.detail) from None
    reason = C.MQRC_HOST_NOT_AVAILABLE
    for channel in plan.channels:
        tls = _tls(channel, plan.config) if channel.cipher_spec else None
        for host, port in channel.connections:
            try:
                return QueueManager.connect(
                    host, port, channel.name, plan.send_name, user=user, password=password, appl_name=appl_name,
                    sharing_conversations=channel.sharing_conversations,
                    heartbeat_interval=channel.heartbeat_interval, max_message_length=channel.max_message_length,
                    tls=tls)
            except MQIError as exc:
                if exc.reason not in _TRY_NEXT:
                    raise
                reason = exc.reason
            except OSError:
                continue
        plan.demote(channel)
    raise MQIError(C.MQCC_FAILED, reason, "no channel answered")


def _tls(channel, config):
    """A CCDT channel with a CipherSpec: the key repository from MQSSLKEYR or the SSL stanza."""
    from .. import tls

    ssl = config.ssl
    try:
        return tls.client_tls(channel=channel.name, cipher_spec=channel.cipher_spec,
                              key_repository=os.environ.get("MQSSLKEYR") or ssl.key_repository or "",
                              password=os.environ.get("MQKEYRPWD") or ssl.key_repository_password or None,
                              cert_label=(channel.certificate_label or os.environ.get("MQCERTLABL")
                                          or ssl.certificate_label or None),
                              peer_name=channel.peer_name, outbound_sni=ssl.outbound_sni or "CHANNEL")
    except tls.TLSSetupError as exc:
        raise MQIError(C.MQCC_FAILED, exc.reason, str(exc)) from None


def disconnect(qm) -> None:
    """MQDISC, printing IBM's line when it fails."""
    try:
        qm.disc()
    except MQIError as exc:
        say(f"MQDISC ended with reason code {exc.reason}")


def close(qm, hobj: int, options: int = C.MQCO_NONE, label: str = "MQCLOSE") -> None:
    try:
        qm.close(hobj, options)
    except MQIError as exc:
        say(f"{label} ended with reason code {exc.reason}")


def connect_sample(args: list[str], client: bool, program: str, *, verb: str = "MQCONNX"):
    """The connect of the samples that take ``QName [QMgrName ...]``: MQSAMP_USER_ID (for MQCONNX's
    samples, as IBM's call setup_mqsamp_user_id), then :func:`connect` to ``args[1]``."""
    user, password = sample_credentials() if verb == "MQCONNX" else (None, None)
    qmgr = args[1][:C.MQ_Q_MGR_NAME_LENGTH] if len(args) > 1 else ""
    return connect(qmgr, client=client, appl_name=program + ("c" if client else ""), verb=verb,
                   user=user, password=password)


def started(name: str, args: list[str], missing: str) -> bool:
    """The sample's first line; False, after IBM's line for it, when the first argument is missing (the
    sample then exits 99)."""
    say(f"Sample {name} start")
    if args:
        return True
    say(f"Required parameter missing - {missing}")
    return False


def option(args: list[str], at: int, label: str, default: int) -> int:
    """Options given as ``args[at]`` (C's atoi; printed as ``label N``, as IBM's samples print them), else
    ``default``."""
    if len(args) <= at:
        return default
    value = atoi(args[at])
    say(f"{label} {value}")
    return value


def close_as_asked(qm, hobj: int, args: list[str], at: int) -> None:
    """amqsput's and amqsget's MQCLOSE: the options from ``args[at]`` when given, else none."""
    close(qm, hobj, option(args, at, "close options are", C.MQCO_NONE))


def end(qm, name: str) -> int:
    """MQDISC and the sample's last line."""
    disconnect(qm)
    say(f"Sample {name} end")
    return 0


def entry_points(main):
    """The two console scripts of a sample: ``local`` (amqsput) and ``client`` (amqsputc)."""
    def local(argv: Optional[list[str]] = None) -> None:
        run(main, argv, client=False)

    def client(argv: Optional[list[str]] = None) -> None:
        run(main, argv, client=True)

    return local, client


def run(main, argv: Optional[list[str]], client: bool) -> NoReturn:
    """A console script's body: ``main(args, client)`` gives the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        status = main(args, client)
    except KeyboardInterrupt:
        status = 130
    except BrokenPipeError:
        status = 1
    sys.exit(status)

