"""``--load HOST:PORT`` and ``--replay HOST:PORT``: a route job's input or output, onto a running qmlite.

* :func:`load_deliveries` MQPUTs each computed delivery (``OUT/deliveries``, Parquet) to its
  destination queue, with the delivery's CorrelId, Priority, Persistence and Expiry and a filler body
  of its size: the queues end up as deep as the job said they would, without the router.
* :func:`replay_publications` MQPUTs each publication (JSON lines or Parquet, issue 10's interface)
  to its topic, properties in an MQRFH2 and its PubLevel in the MQPMO, so that the online router does
  the work -- the way to compare the job's summary with what the queue manager really does.

Both go through qmlite's own client, under syncpoint, with an MQCMIT every ``batch`` puts.  The first
failure -- a put the queue manager refuses (unknown queue, queue full, bad Expiry, ...) or a row that
cannot be read -- stops the run: the open unit of work is backed out and the report says which row
failed and why, and how much had already been committed (earlier batches stay).  Nothing is retried
or skipped, so what the report counts is exactly what is on the queue manager.  Failing to connect is
reported the same way, with nothing done.

Rows are read in file order; only the destination queue name is used (``destination_qmgr`` names the
queue manager the registry came from, which need not be the one loaded).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Optional, Union

from qmlite.client.errors import MQIError
from qmlite.pcf import constants as C
from qmlite.pcf import properties as PR
from qmlite.pcf.mqi import MQCHARV, MQMD, MQOD, MQPMO
from qmlite.registry.pubsub import routing

from . import routes

DEFAULT_CHANNEL = "DEV.ADMIN.SVRCONN"
DEFAULT_USER = "admin"
DEFAULT_PASSWORD = "passw0rd"  # the developer container's default; MQ_ADMIN_PASSWORD overrides it on the CLI
DEFAULT_BATCH = 500
MAX_BODY = 4 * 1024 * 1024  # the client's default MaxMsgLength: a larger size is cut to this, and counted
UTF8 = 1208
_FILLER = b"."  # a body of a given size; Format MQSTR, so printable
_READ_BATCH = 4096  # rows pyarrow hands over at a time

DELIVERY_COLUMNS = ("publication_id", "destination_queue", "correl_id", "priority", "persistence", "expiry", "bytes")


class RowError(ValueError):
    """A row that cannot be put (its number and why)."""


# --------------------------------------------------------------------------------------------------
# reading rows
# --------------------------------------------------------------------------------------------------

def _is_parquet(path: Path) -> bool:
    return path.suffix == ".parquet" or (path.is_dir() and any(path.rglob("*.parquet")))


def _parquet_rows(path: Path, columns: Optional[Iterable[str]] = None, partitioned_by: Optional[str] = None
                  ) -> Iterator[dict]:
    import pyarrow as pa
    import pyarrow.dataset as ds

    partitioning = None
    if partitioned_by is not None:
        # Spark's ``col=value`` directories; the value is always a string (a queue named 123 stays "123").
        partitioning = ds.partitioning(pa.schema([(partitioned_by, pa.string())]), flavor="hive")
    dataset = ds.dataset(str(path), format="parquet", partitioning=partitioning)
    wanted = None if columns is None else [c for c in columns if c in dataset.schema.names]
    for batch in dataset.to_batches(columns=wanted, batch_size=_READ_BATCH):
        yield from batch.to_pylist()


def _json_lines(path: Path) -> Iterator[dict]:
    files = [path] if not path.is_dir() else sorted(
        f for f in path.iterdir() if f.is_file() and not f.name.startswith((".", "_")))
    number = 0  # counts non-blank lines across the files, as the route job numbers its rows
    for file in files:
        with open(file, encoding="utf-8") as lines:
            for line in lines:
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as exc:
                    raise RowError(f"row {number}: not JSON ({exc})") from None
                if not isinstance(row, dict):
                    raise RowError(f"row {number}: not a JSON object")
                yield row
                number += 1


def read_publications(path: Union[str, Path]) -> Iterator[dict]:
    """Publication rows from Parquet (a file or a directory of them) or JSON lines (a file or a
    directory of them), in file order."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(path)
    return _parquet_rows(path) if _is_parquet(path) else _json_lines(path)


def read_deliveries(path: Union[str, Path]) -> Iterator[dict]:
    """Delivery rows from the route job's ``OUT/deliveries`` (partitioned by destination_queue) or any
    Parquet file or directory with those columns."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(path)
    return _parquet_rows(path, DELIVERY_COLUMNS, partitioned_by="destination_queue" if path.is_dir() else None)


# --------------------------------------------------------------------------------------------------
# the unit of work
# --------------------------------------------------------------------------------------------------

class _Batches:
    """Puts under syncpoint, an MQCMIT every ``size``.  Each put brings its tallies (Counter keys);
    they count only once committed, so the report never claims what a backout took away."""

    def __init__(self, qm, size: int) -> None:
        self.qm = qm
        self.size = size
        self.pending: list[tuple] = []
        self.done: Counter = Counter()
        self.commits = 0

    def added(self, *tallies) -> None:
        self.pending.append(tallies)
        if len(self.pending) >= self.size:
            self.commit()

    def commit(self) -> None:
        if not self.pending:
            return
        self.qm.cmit()
        for tallies in self.pending:
            self.done.update(tallies)
        self.commits += 1
        self.pending.clear()

    def back(self) -> int:
        """Back out the open unit of work; returns how many puts it held."""
        count = len(self.pending)
        self.pending.clear()
        try:
            self.qm.back()
        except MQIError:
            pass  # the connection is gone: the queue manager backs the work out itself
        return count


def _error(exc: BaseException, row: Optional[int], **where) -> dict:
    out: dict = {"row": row, **where}
    if isinstance(exc, MQIError):
        out.update(reason=exc.reason, reason_name=exc.reason_name, detail=str(exc))
    else:
        out.update(reason=None, reason_name=None, detail=str(exc))
    return out


def _connect(host: str, port: int, channel: str, user: Optional[str], password: Optional[str], qmgr: str):
    from qmlite.client.sync import QueueManager

    return QueueManager.connect(host, port, channel, qmgr, user=user, password=password)


def _run(rows: Iterable[dict], put, host: str, port: int, *, channel: str, user: Optional[str],
         password: Optional[str], batch: int, qmgr: str) -> tuple[dict, Counter]:
    """Connect, ``put(qm, number, row, handles)`` each row (it returns the row's tallies), commit every
    ``batch``; the common part of the report and the committed tallies."""
    if batch < 1:
        raise ValueError(f"batch must be at least 1, not {batch}")
    started = time.monotonic()
    report: dict = {"ok": True, "commits": 0, "backed_out": 0}
    try:
        qm = _connect(host, port, channel, user, password, qmgr)
    except MQIError as exc:
        report.update(ok=False, error=_error(exc, None, target=f"{host}:{port}"),
                      seconds=round(time.monotonic() - started, 3))
        return report, Counter()
    uow = _Batches(qm, batch)
    handles: dict[str, int] = {}
    rows = iter(rows)
    number = 0  # the row being read or put: a reading error names the row it could not read
    row: dict = {}
    try:
        try:
            for row in rows:
                uow.added(*put(qm, number, row, handles))
                number += 1
                row = {}
            uow.commit()
        except (MQIError, RowError) as exc:
            report["backed_out"] = uow.back()
            report.update(ok=False, error=_error(exc, number, **_where(row)))
        except BaseException:
            uow.back()  # never let MQDISC (which commits) keep half a batch of an interrupted run
            raise
    finally:
        for hobj in handles.values():
            try:
                qm.close(hobj)
            except MQIError:
                pass
        try:
            qm.disc()
        except MQIError:
            pass  # everything that counts is committed or backed out already
    report["commits"] = uow.commits
    report["seconds"] = round(time.monotonic() - started, 3)
    return report, uow.done


def _where(row: dict) -> dict:
    """What names a failing row in the report, besides its number."""
    keys = ("publication_id", "destination_queue") if "destination_queue" in row else ("id", "topic")
    return {k: row[k] for k in keys if row.get(k) is not None}


def _filler(size: int) -> bytes:
    return _FILLER * size


def _size(value, number: int, what: str) -> tuple[int, bool]:
    """(bytes to send, whether it was cut to MAX_BODY) of an untrusted size."""
    try:
        size = int(value or 0)
    except (TypeError, ValueError):
        raise RowError(f"row {number}: {what} {value!r} is not a number") from None
    if size < 0:
        raise RowError(f"row {number}: {what} {size} is negative")
    return min(size, MAX_BODY), size > MAX_BODY


def _int(row: dict, name: str, default: int, number: int) -> int:
    try:
        return routes.int_field(row, name, default)
    except (TypeError, ValueError):
        raise RowError(f"row {number}: {name} {row.get(name)!r} is not an integer") from None


# --------------------------------------------------------------------------------------------------
# --load: the deliveries
# --------------------------------------------------------------------------------------------------

_LOAD_PMO = C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID | C.MQPMO_FAIL_IF_QUIESCING


def _correl_id(value, number: int) -> bytes:
    if not value:
        return bytes(24)
    try:
        raw = bytes.fromhex(str(value))
    except ValueError:
        raise RowError(f"row {number}: correl_id {value!r} is not hex") from None
    if len(raw) > 24:
        raise RowError(f"row {number}: correl_id is {len(raw)} bytes, more than 24")
    return raw.ljust(24, b"\0")


def _put_delivery(qm, number: int, row: dict, handles: dict[str, int]) -> tuple:
    queue = row.get("destination_queue")
    if not isinstance(queue, str) or not queue:
        raise RowError(f"row {number}: no destination_queue")
    size, cut = _size(row.get("bytes"), number, "bytes")
    md = MQMD(Format=C.MQFMT_STRING, CorrelId=_correl_id(row.get("correl_id"), number),
              Priority=_int(row, "priority", C.MQPRI_PRIORITY_AS_Q_DEF, number),
              Persistence=_int(row, "persistence", C.MQPER_PERSISTENCE_AS_Q_DEF, number),
              Expiry=_int(row, "expiry", C.MQEI_UNLIMITED, number))
    hobj = handles.get(queue)
    if hobj is None:
        # One handle per queue for the whole run: an MQOPEN per put would double the round trips.
        hobj, _ = qm.open(MQOD(ObjectName=queue), C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING)
        handles[queue] = hobj
    qm.put(hobj, md, MQPMO(Options=_LOAD_PMO), _filler(size))
    return ("puts", ("queue", queue), "truncated") if cut else ("puts", ("queue", queue))


def load_deliveries(deliveries: Union[str, Path, Iterable[dict]], host: str, port: int, *,
                    channel: str = DEFAULT_CHANNEL, user: Optional[str] = DEFAULT_USER,
                    password: Optional[str] = DEFAULT_PASSWORD, batch: int = DEFAULT_BATCH, qmgr: str = "") -> dict:
    """Put each delivery (a Parquet file or directory, e.g. ``OUT/deliveries``, or delivery dicts) on
    its destination queue.  Returns ``{"ok", "puts", "commits", "queues": {queue: puts}, "truncated",
    "backed_out", "seconds"}`` plus ``"error"`` (row, reason, reason_name, detail, ...) when it stopped."""
    rows = read_deliveries(deliveries) if isinstance(deliveries, (str, os.PathLike)) else deliveries
    report, done = _run(rows, _put_delivery, host, port, channel=channel, user=user, password=password,
                        batch=batch, qmgr=qmgr)
    report["puts"] = done["puts"]
    report["queues"] = dict(sorted((key[1], n) for key, n in done.items() if isinstance(key, tuple)))
    report["truncated"] = done["truncated"]
    return report


# --------------------------------------------------------------------------------------------------
# --replay: the publications
# --------------------------------------------------------------------------------------------------

# WARN_IF_NO_SUBS_MATCHED: the queue manager says which publications nobody received, the figure the
# job's summary calls publications_not_received.
_REPLAY_PMO = C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID | C.MQPMO_FAIL_IF_QUIESCING | C.MQPMO_WARN_IF_NO_SUBS_MATCHED


def _publication(row: dict, number: int) -> tuple[str, MQMD, MQPMO, bytes, bool]:
    topic = row.get("topic")
    if not isinstance(topic, str) or not topic:
        raise RowError(f"row {number}: no topic")
    body = row.get("body")
    if body is not None:
        data, cut = str(body).encode("utf-8"), False
    else:
        size, cut = _size(row.get("size"), number, "size")
        data = _filler(size)
    value = row.get("properties")
    if isinstance(value, list):
        try:
            value = dict(value)  # a Parquet map column comes out of pyarrow as (name, value) pairs
        except (TypeError, ValueError):
            raise RowError(f"row {number}: properties must be an object of name -> value") from None
    try:
        props = routes.properties_of(value, number)  # the job's reading, types included
    except routes.PublicationError as exc:
        raise RowError(str(exc)) from None
    try:
        data, fmt = PR.join(props, data, C.MQFMT_STRING, C.MQENC_NATIVE, UTF8)
    except ValueError as exc:
        raise RowError(f"row {number}: properties: {exc}") from None
    md = MQMD(Format=fmt, CodedCharSetId=UTF8,
              Priority=_int(row, "priority", C.MQPRI_PRIORITY_AS_Q_DEF, number),
              Persistence=_int(row, "persistence", C.MQPER_PERSISTENCE_AS_Q_DEF, number),
              Expiry=_int(row, "expiry", C.MQEI_UNLIMITED, number))
    pmo = MQPMO(Version=C.MQPMO_VERSION_3, Options=_REPLAY_PMO,
                PubLevel=_int(row, "pub_level", routing.DEFAULT_PUB_LEVEL, number))
    return topic, md, pmo, data, cut


def _put_publication(qm, number: int, row: dict, handles: dict[str, int]) -> tuple:
    topic, md, pmo, data, cut = _publication(row, number)
    # MQPUT1, not a handle per topic: traffic has as many topics as a queue manager has handles to give.
    od = MQOD(Version=C.MQOD_VERSION_4, ObjectType=C.MQOT_TOPIC, ObjectString=MQCHARV(topic, VSCCSID=UTF8))
    tallies = ["publications"] + (["truncated"] if cut else [])
    try:
        qm.put1(od, md, pmo, data)
    except MQIError as exc:
        if exc.comp != C.MQCC_WARNING or exc.reason != C.MQRC_NO_SUBS_MATCHED:
            raise
        tallies.append("no_subscribers")  # put and kept in the unit of work; a warning, not a failure
    return tuple(tallies)


def replay_publications(publications: Union[str, Path, Iterable[dict]], host: str, port: int, *,
                        channel: str = DEFAULT_CHANNEL, user: Optional[str] = DEFAULT_USER,
                        password: Optional[str] = DEFAULT_PASSWORD, batch: int = DEFAULT_BATCH,
                        qmgr: str = "") -> dict:
    """Publish each publication row (JSON lines or Parquet, a file or directory, or row dicts) to its
    topic.  Returns ``{"ok", "publications", "no_subscribers", "commits", "truncated", "backed_out",
    "seconds"}`` plus ``"error"`` when it stopped."""
    rows = read_publications(publications) if isinstance(publications, (str, os.PathLike)) else publications
    report, done = _run(rows, _put_publication, host, port, channel=channel, user=user, password=password,
                        batch=batch, qmgr=qmgr)
    report["publications"] = done["publications"]
    report["no_subscribers"] = done["no_subscribers"]
    report["truncated"] = done["truncated"]
    return report


# --------------------------------------------------------------------------------------------------
# the command line (qmlite/cli.py wires these into ``qmlite pipeline route``)
# --------------------------------------------------------------------------------------------------

def address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (also ``[v6]:PORT`` and MQ's ``HOST(PORT)``) -> (host, port); argparse's type."""
    text = text.strip()
    if text.endswith(")") and "(" in text:
        host, _, port = text[:-1].partition("(")
    else:
        host, sep, port = text.rpartition(":")
        if not sep:
            raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
    try:
        number = int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: port {port!r} is not a number") from None
    if not host or not 0 < number < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT")
    return host, number


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--load HOST:PORT`` / ``--replay HOST:PORT`` (one or the other) and the connection options."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--load", metavar="HOST:PORT", type=address,
                       help="put the computed deliveries on the queue manager at HOST:PORT (under syncpoint)")
    group.add_argument("--replay", metavar="HOST:PORT", type=address,
                       help="publish the publications to the queue manager at HOST:PORT, so that it routes them")
    parser.add_argument("--mq-channel", default=DEFAULT_CHANNEL, help=f"SVRCONN channel (default {DEFAULT_CHANNEL})")
    parser.add_argument("--mq-user", default=DEFAULT_USER, help=f"user id (default {DEFAULT_USER})")
    parser.add_argument("--mq-password", default=None,
                        help="password (default: $MQ_ADMIN_PASSWORD, else the developer default)")
    parser.add_argument("--mq-batch", type=_positive, default=DEFAULT_BATCH,
                        help=f"puts per MQCMIT (default {DEFAULT_BATCH})")


def run(args: argparse.Namespace, out_dir: Union[str, Path]) -> dict:
    """Do what ``--load`` / ``--replay`` asked, after the job wrote ``out_dir``.  Returns
    ``{"load": report}`` or ``{"replay": report}`` ({} when neither was given), each also written to
    ``out_dir/load.json`` or ``out_dir/replay.json``."""
    out = Path(out_dir)
    password = args.mq_password if args.mq_password is not None else os.environ.get("MQ_ADMIN_PASSWORD",
                                                                                     DEFAULT_PASSWORD)
    options = dict(channel=args.mq_channel, user=args.mq_user, password=password, batch=args.mq_batch)
    result = {}
    if getattr(args, "load", None):
        result["load"] = load_deliveries(out / "deliveries", *args.load, **options)
    if getattr(args, "replay", None):
        publications = getattr(args, "publications", None)
        if not publications:
            raise ValueError("--replay needs --publications")
        result["replay"] = replay_publications(publications, *args.replay, **options)
    for name, report in result.items():
        (out / f"{name}.json").write_text(json.dumps(report, indent=2, sort_keys=True))
    return result
