"""``qmlite registry export`` and ``qmlite registry import``: subscription definitions in and out of a
data directory, in bulk (issue 10).

Export reads the data directory read-only (safe while a server runs) and writes one row per durable
subscription, admin or API, with the definition attributes named as Create Subscription's parameters
(``EXPORT_FIELDS``).  SYSTEM.DEFAULT.SUB is left out: every queue manager has one, and importing it
would change the defaults of later definitions (alter it with Change Subscription instead).

Import is a Spark job.  Each row becomes a PCF Create Subscription and runs through the command
engine itself -- Create Subscription's own validation, never a second copy -- on the executors,
against a snapshot of the target whose writes go nowhere.  Names that occur twice in the file are
found with a shuffle.  Only when no row is bad does the driver open the data directory, run every
Create again against the real registry and commit once; a row that fails there (the data directory
changed since the snapshot) discards everything.  A bad row is never skipped: the result names every
one, with its row number (the line number for JSON lines, from 1) and reason code.

Import is offline: it refuses a data directory another process (a server) has open.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import logging
import math
import pathlib
import sqlite3
import sys
import urllib.parse
from collections.abc import Iterable, Iterator

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.objects import defaults
from qmlite.registry.storage import definitionsblob
from qmlite.registry.admin.commands import subscriptions as SUB
from qmlite.registry.admin.engine import Engine, Requester
from qmlite.registry.objects.ids import IdGenerator
from qmlite.registry.admin.params import CommandError, p_int, parse, strip
from qmlite.registry.storage.catalog import Registry
from qmlite.registry.storage.sqlite import FILENAME

# ---- the row format --------------------------------------------------------------------------------
# Column -> Create Subscription parameter: the snake_case names of the Subscription fields each sets.
COLUMNS = {"name": SUB.SUB_NAME, **{field: pid for pid, field in SUB.FIELD.items()}}
# Exported for people to read; on import they are checked, not applied: Create Subscription makes an
# administrative, durable subscription whatever the original was.
INFORMATIONAL = {"durable": SUB.DURABLE, "sub_type": SUB.SUB_TYPE}
_INFORMATIONAL_PARAMS = (p_int(SUB.DURABLE, C.MQSUB_DURABLE_YES),
                         p_int(SUB.SUB_TYPE, C.MQSUBTYPE_ADMIN, C.MQSUBTYPE_API))
EXPORT_FIELDS = ("name", "topic_object", "topic_string", "destination", "destination_qmgr", "destination_class",
                 "destination_correl_id", "expiry", "pub_accounting_token", "pub_appl_identity_data",
                 "pub_priority", "psprop", "selector", "sub_level", "sub_scope", "sub_user", "user_data",
                 "variable_user", "wildcard_schema", "request_only", "durable", "sub_type")
_KIND = {p.id: p.kind for p in SUB.CREATE_PARAMS}
_COLUMN_OF = {pid: column for column, pid in {**COLUMNS, **INFORMATIONAL}.items()}
_HEX_FIELDS = ("destination_correl_id", "pub_accounting_token")
_INT32 = range(-(2**31), 2**31)
_REQUESTER = Requester()  # "mqm", an administrator: what the command server runs a console's commands as
_WRONG_ID = {P.CFST: C.MQRCCF_CFST_PARM_ID_ERROR, P.CFIN: C.MQRCCF_CFIN_PARM_ID_ERROR,
             P.CFBS: C.MQRCCF_CFBS_PARM_ID_ERROR}


class RegistryInUse(RuntimeError):
    """The data directory is open in another process (a running server): import refuses to write."""


@dataclasses.dataclass(frozen=True, slots=True)
class BadRow:
    row: int  # from 1; the line number for JSON lines
    reason: int
    parameter: int | None = None
    detail: str = ""
    file: str = ""  # the file under the input directory; "" when the input is one file

    @property
    def reason_name(self) -> str:
        return C.describe("MQRCCF", self.reason) if self.reason >= 3000 else C.describe("MQRC", self.reason)

    @property
    def column(self) -> str | None:
        return _COLUMN_OF.get(self.parameter) if self.parameter is not None else None

    def __str__(self) -> str:
        where = f"row {self.row}" + (f" of {self.file}" if self.file else "")
        text = f"{where}: {self.reason_name} ({self.reason})"
        if self.parameter is not None:
            text += f" parameter {self.column or '?'} ({self.parameter})"
        return text + (f": {self.detail}" if self.detail else "")


@dataclasses.dataclass
class ImportResult:
    rows: int
    bad: list[BadRow]
    created: int = 0
    replaced: int = 0

    @property
    def ok(self) -> bool:
        return not self.bad

    def summary(self) -> dict:
        return {"rows": self.rows, "created": self.created, "replaced": self.replaced, "bad_rows": len(self.bad)}


# ---- export ----------------------------------------------------------------------------------------
def export_rows(reg: Registry) -> list[dict]:
    """Every durable subscription but SYSTEM.DEFAULT.SUB, by name, as rows of ``EXPORT_FIELDS``."""
    rows = []
    for name in sorted(reg.subs):
        sub = reg.subs[name]
        if name == defaults.DEFAULT_SUB or sub.durable != C.MQSUB_DURABLE_YES:
            continue  # a non-durable subscription belongs to its connection (and is never stored anyway)
        row = {field: getattr(sub, field) for field in EXPORT_FIELDS}
        row.update({field: row[field].hex() for field in _HEX_FIELDS})
        if sub.destination_correl_id == sub.sub_id:
            row["destination_correl_id"] = None  # generated: the imported subscription generates its own
        if sub.destination_class == C.MQDC_MANAGED:
            row["destination"] = None  # the queue manager makes a managed queue; Create refuses one given
        rows.append(row)
    return rows


def _parquet_schema():
    import pyarrow as pa

    ints = {"destination_class", "expiry", "pub_priority", "psprop", "sub_level", "sub_scope", "variable_user",
            "wildcard_schema", "request_only", "durable", "sub_type"}
    return pa.schema([(f, pa.int32() if f in ints else pa.string()) for f in EXPORT_FIELDS])


def export(data_dir, out_path, fmt: str = "jsonl") -> int:
    """Write the data directory's subscriptions to ``out_path``; returns how many."""
    if fmt not in ("jsonl", "parquet"):
        raise ValueError(f"unknown format {fmt!r} (jsonl or parquet)")
    rows = export_rows(Registry.open_readonly(pathlib.Path(data_dir)))
    out = pathlib.Path(out_path)
    partial = out.with_name(out.name + ".partial")  # a reader never sees half a file
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows, schema=_parquet_schema()), partial)
    else:
        with partial.open("w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    partial.replace(out)
    return len(rows)


# ---- a row as a Create Subscription --------------------------------------------------------------
def _plain(value):
    """A row value as JSON or Parquet gives it, made what a PCF structure carries; None for absent."""
    if isinstance(value, float):
        if math.isnan(value):
            return None  # how pandas writes a missing integer
        if value.is_integer():
            return int(value)
    return value


def _struct(pid: int | None, value):
    if isinstance(value, bool) or not isinstance(value, (int, str, bytes, bytearray)):
        raise CommandError(C.MQRCCF_STRUCTURE_TYPE_ERROR, parameter=pid,
                           detail=f"a {type(value).__name__} is no PCF value")
    if isinstance(value, int):
        if value not in _INT32:  # a PCF integer (MQLONG) has 32 bits
            raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=pid)
        return P.CFIN(pid, value)
    if isinstance(value, str) and _KIND.get(pid) == "bytes":
        try:
            value = bytes.fromhex(value)
        except ValueError:
            raise CommandError(C.MQRCCF_PARM_SYNTAX_ERROR, parameter=pid, detail="not hex") from None
    if isinstance(value, str):
        return P.CFST(pid, value, 0)
    return P.CFBS(pid, bytes(value))


def _command(params: list) -> P.PCFMessage:
    header = P.CFH(Type=C.MQCFT_COMMAND_XR, StrucLength=36, Version=3, Command=C.MQCMD_CREATE_SUBSCRIPTION,
                   MsgSeqNumber=1, Control=C.MQCFC_LAST, CompCode=0, Reason=0, ParameterCount=len(params))
    return P.PCFMessage(header, params)


def to_request(row: object, replace: bool = False) -> P.PCFMessage:
    """The Create Subscription a row stands for; CommandError for what no request could carry.

    The values are only put in PCF structures (a JSON string in a CFST, an integer in a CFIN, hex
    text for a byte string in a CFBS): whether they are right is for the engine to say.
    """
    if not isinstance(row, dict):
        raise CommandError(C.MQRCCF_STRUCTURE_TYPE_ERROR, detail="not an object of column -> value")
    params, informational = [], []
    for column, value in row.items():
        value = _plain(value)
        if value is None:
            continue
        pid = COLUMNS.get(column)
        if pid is not None:
            params.append(_struct(pid, value))
        elif column in INFORMATIONAL:
            informational.append(_struct(INFORMATIONAL[column], value))
        else:  # what the engine answers a parameter it does not know, by the structure it came in
            struct = _struct(None, value)
            raise CommandError(_WRONG_ID[type(struct)], detail=f"unknown column {column!r}")
    parse(_command(informational), _INFORMATIONAL_PARAMS)  # raises for a value Create could not give
    if replace:
        params.append(P.CFIN(SUB.REPLACE, C.MQRP_YES))
    return _command(params)


def _failure(responses: list[P.PCFMessage]) -> tuple[int, int | None] | None:
    """(reason, parameter) of a failed command's responses; None when it succeeded."""
    first = responses[0]
    if first.header.CompCode == C.MQCC_OK:
        return None
    parameter = next((p.value for p in first.parameters if p.parameter == C.MQIACF_PARAMETER_ID), None)
    return first.header.Reason, parameter


def _name(row: object) -> str | None:
    name = row.get("name") if isinstance(row, dict) else None
    return strip(name) if isinstance(name, str) and strip(name) else None


def run_row(engine: Engine, row: object, replace: bool) -> tuple[int, int | None, str] | None:
    """Create the subscription a row stands for; (reason, parameter, detail) when it cannot be."""
    try:
        request = to_request(row, replace)
    except CommandError as err:
        return err.reason, err.parameter, err.detail
    failed = _failure(engine.run_batch([(request, _REQUESTER)])[0])
    return None if failed is None else (*failed, "")


# ---- validation on the executors -----------------------------------------------------------------
class _NullStore:
    """The writes of a validation go nowhere: the snapshot registry is a scratch copy."""

    def put(self, obj) -> None:
        pass

    def delete(self, cls, key) -> None:
        pass

    def set_meta(self, key, value) -> None:
        pass

    def put_retained(self, *args) -> None:
        pass

    def delete_retained(self, topic) -> None:
        pass

    def delete_queue_messages(self, queue) -> None:
        pass

    def commit(self) -> None:
        pass

    def close(self) -> None:
        pass


def scratch_engine(blob: bytes) -> Engine:
    """An engine over a snapshot registry that never writes anything anywhere."""
    reg = definitionsblob.load(blob)
    reg.store = _NullStore()  # type: ignore[assignment]
    # A snapshot registry numbers ids from the current second, as the target may have in the second
    # the snapshot was taken: a SubId or managed queue name it issued again would replace one of the
    # target's.  No queue manager has started in 2106, so ids from then are new to the target.
    reg.ids = IdGenerator(reg.qmgr.name, 0xFFFFFFFF)
    return Engine(reg)


def validate_row(engine: Engine, row: object, replace: bool) -> tuple[int, int | None, str] | None:
    """``run_row``, then put the scratch registry back as it was, so that every row is checked
    against the target alone, whatever rows the same executor checked before."""
    reg = engine.registry
    name = _name(row)
    before = reg.subs.get(name) if name is not None else None
    failed = run_row(engine, row, replace)
    after = reg.subs.get(name) if name is not None else None
    if failed is None and after is not None and after is not before:
        if after.destination_class == C.MQDC_MANAGED and (before is None or before.destination != after.destination):
            reg.queues.pop(after.destination, None)  # the managed queue this Create made
        if before is None:
            reg.remove_sub(after)
        else:
            reg.put_sub(before)  # Replace kept the SubId, so this puts the old definition back
    return failed


_ENGINES: dict[str, Engine] = {}  # per executor process: snapshot digest -> scratch engine


def _scratch(blob_id: str, blob: bytes) -> Engine:
    engine = _ENGINES.get(blob_id)
    if engine is None:
        _ENGINES.clear()  # one target at a time per executor
        engine = _ENGINES[blob_id] = scratch_engine(blob)
    return engine


@contextlib.contextmanager
def quiet_engine():
    """The engine logs every command at info: a line per row of a million-row file says nothing, and
    on the command line it would bury the summary.  Restored afterwards; loggers are not cached
    meanwhile, so none keeps the quiet level."""
    import structlog

    old = structlog.get_config()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
                        cache_logger_on_first_use=False)
    try:
        yield
    finally:
        structlog.configure(wrapper_class=old["wrapper_class"],
                            cache_logger_on_first_use=old["cache_logger_on_first_use"])


# ---- reading the input -----------------------------------------------------------------------------
def _is_parquet(path: pathlib.Path) -> bool:
    return path.suffix == ".parquet" or (path.is_dir() and any(path.rglob("*.parquet")))


def _relative(uri: str, root: pathlib.Path) -> str:
    path = pathlib.Path(urllib.parse.unquote(urllib.parse.urlparse(uri).path))
    try:
        return str(path.relative_to(root.resolve()))
    except ValueError:
        return str(path)


def read_rows(spark, path, fmt: str | None = None):
    """An RDD of (file, row number from 1, row) -- row a dict, or the text of a line that is none.

    Parquet rows are numbered by Spark's own row index in their file; JSON lines by line number
    (blank lines count but carry no row), each file of a directory on its own.
    """
    root = pathlib.Path(path)
    single = root.is_file()
    if (fmt or ("parquet" if _is_parquet(root) else "jsonl")) == "parquet":
        from pyspark.sql import functions as F

        df = spark.read.option("mergeSchema", "true").parquet(str(root))
        cols = [F.col(f"`{c}`") for c in df.columns]
        rows = df.select(F.struct(*cols).alias("r"), F.col("_metadata.file_path").alias("f"),
                         F.col("_metadata.row_index").alias("i")).rdd
        root_path = str(root)
        return rows.map(lambda r: ("" if single else _relative(r["f"], pathlib.Path(root_path)), r["i"] + 1,
                                   r["r"].asDict(recursive=True)))
    files = [root] if single else sorted(p for p in root.rglob("*")
                                         if p.is_file() and not p.name.startswith(("_", ".")))
    sc = spark.sparkContext
    parts = [sc.textFile(str(f)).zipWithIndex()
             .filter(lambda t: t[0].strip())
             .map(lambda t, name=("" if single else str(f.relative_to(root))): (name, t[1] + 1, _json(t[0])))
             for f in files]
    return sc.union(parts) if parts else sc.emptyRDD()


def _json(line: str) -> object:
    try:
        return json.loads(line)
    except ValueError:
        return line  # reported as the bad row it is


def _duplicates(named) -> list[tuple[str, int, str, int]]:
    """(file, row, of file, of row) of every row whose name an earlier row of the input has."""
    def later(group):
        first, *rest = sorted(group[1])
        return [(*loc, *first) for loc in rest]

    return named.groupByKey().filter(lambda g: len(g[1]) > 1).flatMap(later).collect()


# ---- import ----------------------------------------------------------------------------------------
def check_offline(data_dir) -> None:
    """Refuse a data directory another connection has open: SQLite grants an exclusive lock only to
    a connection alone on the database (a server keeps its connection open while it runs)."""
    path = pathlib.Path(data_dir).resolve() / FILENAME
    try:
        db = sqlite3.connect(path.as_uri() + "?mode=rw", uri=True, timeout=0.2, isolation_level=None)
    except sqlite3.OperationalError as exc:
        raise RegistryInUse(f"cannot open {path}: {exc}") from None
    try:
        db.execute("PRAGMA locking_mode=EXCLUSIVE")
        db.execute("BEGIN EXCLUSIVE")
        db.execute("ROLLBACK")
    except sqlite3.OperationalError:
        raise RegistryInUse(f"{data_dir} is in use (is a server running on it?); import is offline") from None
    finally:
        db.close()


def apply_rows(data_dir, qmgr_name: str, rows: Iterable[tuple[str, int, object]], replace: bool) -> ImportResult:
    """Create every row's subscription in the data directory, committed once, or none of them.

    Rows were validated against a snapshot; one can still fail here if the directory changed since.
    Then every failure is reported and the registry closes without committing (Store.close drops
    what is pending), so no definition changes.  (Opening records the id epoch, as every start of
    the queue manager does.)  The offline check and the opening are two steps: a server started
    between them is not detected, hence "import is offline" is also a rule for people.
    """
    check_offline(data_dir)
    reg = Registry.open(pathlib.Path(data_dir), qmgr_name)
    try:
        engine = Engine(reg)
        result = ImportResult(0, [])
        with quiet_engine():
            for file, row_no, row in rows:
                result.rows += 1
                existed = _name(row) in reg.subs
                failed = run_row(engine, row, replace)
                if failed is not None:
                    result.bad.append(BadRow(row_no, *failed, file=file))
                elif existed:
                    result.replaced += 1
                else:
                    result.created += 1
        if result.ok:
            reg.commit()
        else:
            result.created = result.replaced = 0
        return result
    finally:
        reg.close()


def import_(spark, path, data_dir, *, replace: bool = False, fmt: str | None = None) -> ImportResult:
    """Validate every row of ``path`` on Spark, then apply them all to ``data_dir`` in one commit, or
    change nothing and list every bad row."""
    data_dir = pathlib.Path(data_dir)
    if not pathlib.Path(path).exists():
        raise FileNotFoundError(f"{path} does not exist")
    target = Registry.open_readonly(data_dir)
    check_offline(data_dir)  # before the Spark job, not after it
    dumped = definitionsblob.dump(target)
    blob_id = hashlib.sha256(dumped).hexdigest()
    blob = spark.sparkContext.broadcast(dumped)
    rows = read_rows(spark, str(path), fmt).cache()
    try:
        def check(part: Iterator) -> Iterator:
            engine = _scratch(blob_id, blob.value)
            with quiet_engine():
                for file, row_no, row in part:
                    failed = validate_row(engine, row, replace)
                    if failed is not None:
                        yield file, row_no, *failed

        bad = {(f, r): BadRow(r, reason, parameter, detail, f)
               for f, r, reason, parameter, detail in rows.mapPartitions(check).collect()}
        named = rows.flatMap(lambda t: [(_name(t[2]), (t[0], t[1]))] if _name(t[2]) else [])
        for f, r, first_file, first_row in _duplicates(named):
            # A row that is bad for its own reason keeps that reason; one that is not is bad all the same.
            of = f"row {first_row}" + (f" of {first_file}" if first_file else "")
            bad.setdefault((f, r), BadRow(r, C.MQRCCF_SUB_ALREADY_EXISTS, SUB.SUB_NAME, f"the name of {of} too", f))
        count = rows.count()
        if bad:
            return ImportResult(count, sorted(bad.values(), key=lambda b: (b.file, b.row)))
        if count == 0:
            return ImportResult(0, [])
        return apply_rows(data_dir, target.qmgr.name, rows.toLocalIterator(), replace)
    finally:
        rows.unpersist()
        blob.unpersist()


# ---- the command line --------------------------------------------------------------------------------
def _export_command(args: argparse.Namespace) -> int:
    from qmlite.registry.storage.sqlite import StoreError

    try:
        count = export(args.data_dir, args.out, args.format)
    except (StoreError, OSError, ImportError) as exc:
        print(f"qmlite: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"subscriptions": count, "format": args.format, "out": str(args.out)}))
    return 0


def _import_command(args: argparse.Namespace) -> int:
    from qmlite.registry.storage.sqlite import StoreError

    try:  # what can be wrong before a JVM is started is reported before one is
        if not pathlib.Path(args.path).exists():
            raise FileNotFoundError(f"{args.path} does not exist")
        Registry.open_readonly(args.data_dir)
        check_offline(args.data_dir)
        from pyspark.sql import SparkSession

        from . import spark as spark_session
    except ImportError as exc:  # pragma: no cover - depends on the installation
        print(f"qmlite: import needs the spark extra (pip install '.[spark]' in qmlite's repository): {exc}",
              file=sys.stderr)
        return 2
    except (StoreError, RegistryInUse, OSError) as exc:
        print(f"qmlite: {exc}", file=sys.stderr)
        return 2
    # A session already running in this process (a notebook, a test) is used and left running.
    ours = SparkSession.getActiveSession() is None
    session = spark_session.session(args.master)
    try:
        result = import_(session, args.path, args.data_dir, replace=args.replace, fmt=args.format)
    except (StoreError, RegistryInUse, OSError) as exc:
        print(f"qmlite: {exc}", file=sys.stderr)
        return 2
    finally:
        if ours:
            session.stop()
    if not result.ok:
        for bad in result.bad:
            print(str(bad), file=sys.stderr)
        print(f"qmlite: {len(result.bad)} bad rows of {result.rows}; nothing was imported", file=sys.stderr)
        return 2
    print(json.dumps(result.summary()))
    return 0


def add_parser(subparsers) -> argparse.ArgumentParser:
    """``qmlite registry export|import``: add to the ``qmlite`` command's subparsers."""
    registry = subparsers.add_parser("registry", help="subscription definitions in and out of a data directory")
    commands = registry.add_subparsers(dest="registry_command", required=True)
    exp = commands.add_parser("export", help="write every durable subscription (read-only; a server may run)")
    exp.add_argument("--data-dir", required=True, type=pathlib.Path, help="the data directory to read")
    exp.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl")
    exp.add_argument("--out", required=True, type=pathlib.Path, help="the file to write")
    exp.set_defaults(func=_export_command)
    imp = commands.add_parser("import", help="create the subscriptions of a file: all of them, or none "
                                             "(a Spark job; no server may run on the data directory)")
    imp.add_argument("path", help="JSON lines or Parquet (a file or a directory of them)")
    imp.add_argument("--data-dir", required=True, type=pathlib.Path, help="the data directory to change")
    imp.add_argument("--replace", action="store_true", help="replace subscriptions that exist (Replace YES)")
    imp.add_argument("--format", choices=["jsonl", "parquet"], help="default: from the name (.parquet) or contents")
    imp.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    imp.set_defaults(func=_import_command)
    return registry
