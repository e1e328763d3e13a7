"""``qmlite pipeline route``: the deliveries a queue manager would make for a set of publications, on Spark.

The registry (a data directory, read-only and safe while a server runs on it, or a snapshot file
written by ``registry.storage.definitionsblob.dump``) is loaded once on the driver; where the executors route, it
is broadcast as one snapshot blob and each executor builds its routing registry from it once.
Routing is ``registry.pubsub.routing`` itself (through ``pipeline.routes``), never a second copy of the
rules, used in two ways:

* Traffic repeats topics, and for most topics a delivery depends only on the publication's topic,
  PubLevel, Priority, Persistence and Expiry (its *key*).  The distinct keys are routed once each
  (in Python: on the driver up to ``DRIVER_KEYS`` of them, else on the executors), and the
  publications are joined to their keys' deliveries in the JVM, so most rows never reach Python.
* A key whose topic any subscription with a selector or an expiry matches depends on each
  publication (its properties, its time): those publications are routed one by one.

Output: ``OUT/deliveries`` (Parquet, partitioned by destination_queue) and ``OUT/summary.json``:
fan-out per subscription, queue and topic, publications nobody receives, selector hit rates, and
bytes and messages per queue per hour (the depth a queue would reach if nobody consumed).
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import pathlib
import uuid

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQMD
from qmlite.registry.pubsub import routing
from qmlite.registry.storage import definitionsblob
from qmlite.registry.storage.catalog import Registry

from . import capture, forked, routes

KEY = ("topic", "pub_level", "priority", "persistence", "expiry")
_CACHE: dict[str, object] = {}  # per executor process: snapshot digest -> routing registry


def load_registry(source: str):
    path = pathlib.Path(source)
    if path.is_dir():
        return Registry.open_readonly(path)
    return definitionsblob.load(path.read_bytes())


def _registry_of(blob_id: str, blob: bytes):
    reg = _CACHE.get(blob_id)
    if reg is None:
        _CACHE.clear()  # one job's registry at a time per executor
        reg = _CACHE[blob_id] = definitionsblob.load(blob)
    return reg


# ---- schemas -------------------------------------------------------------------------------------
def _delivery_schema():
    from pyspark.sql import types as T

    return T.StructType([
        T.StructField("publication_id", T.StringType()), T.StructField("sub_name", T.StringType()),
        T.StructField("sub_id", T.StringType()), T.StructField("destination_queue", T.StringType()),
        T.StructField("destination_qmgr", T.StringType()), T.StructField("correl_id", T.StringType()),
        T.StructField("priority", T.IntegerType()), T.StructField("persistence", T.IntegerType()),
        T.StructField("expiry", T.IntegerType()), T.StructField("bytes", T.LongType()),
        T.StructField("topic", T.StringType()), T.StructField("timestamp", T.DoubleType()),
    ])


def _routed_key_schema():
    from pyspark.sql import types as T

    return T.StructType([
        T.StructField("topic", T.StringType()), T.StructField("pub_level", T.IntegerType()),
        T.StructField("priority", T.IntegerType()), T.StructField("persistence", T.IntegerType()),
        T.StructField("expiry", T.IntegerType()),
        T.StructField("kind", T.StringType()),  # "copy", "each" (route per publication), "selector"
        T.StructField("sub_name", T.StringType()), T.StructField("sub_id", T.StringType()),
        T.StructField("destination_queue", T.StringType()), T.StructField("destination_qmgr", T.StringType()),
        T.StructField("correl_id", T.StringType()), T.StructField("out_priority", T.IntegerType()),
        T.StructField("out_persistence", T.IntegerType()), T.StructField("out_expiry", T.IntegerType()),
        T.StructField("header_bytes", T.LongType()),
    ])


_JSON_SCHEMA = ("id string, topic string, body string, size long, properties string, priority int, "
                "persistence int, expiry int, pub_level int, timestamp string")


# ---- reading publications ------------------------------------------------------------------------
def read_publications(spark, path: str, numbered: bool | None = None):
    """Publications as a DataFrame with the row interface's columns, properties as JSON text, a
    ``row`` number, ``size`` in bytes (the body's UTF-8 length when there is a body) and
    ``timestamp`` in epoch seconds.

    ``numbered``: whether some rows lack an id and so need their row number (a pass over the input
    of its own); None finds out first.  False leaves a missing id null, for a job that scans the
    input anyway and counts the ids there before it decides (``route``)."""
    from pyspark.sql import functions as F

    p = pathlib.Path(path)
    if p.suffix == ".parquet" or (p.is_dir() and any(p.glob("*.parquet"))):
        df = spark.read.parquet(path)
        cols = set(df.columns)

        def col(name, cast=None):
            c = F.col(name) if name in cols else F.lit(None)
            return c.cast(cast) if cast else c
        if "properties" not in cols:
            props = F.lit(None)
        elif df.schema["properties"].dataType.simpleString() == "string":
            props = F.col("properties")  # JSON text already
        else:  # a map or struct column: its JSON text, which routes.py reads
            props = F.to_json(F.col("properties"))
        df = df.select(col("id", "string").alias("id"), col("topic", "string").alias("topic"),
                       col("body", "string").alias("body"), col("size", "long").alias("size"),
                       props.cast("string").alias("properties"), col("priority", "int").alias("priority"),
                       col("persistence", "int").alias("persistence"), col("expiry", "int").alias("expiry"),
                       col("pub_level", "int").alias("pub_level"), col("timestamp", "string").alias("ts"))
    else:
        # Spark's JSON reader with a schema: one parse per line, in the JVM.  A field declared a string
        # keeps a JSON object's text (properties) and an integer's digits (id).
        df = spark.read.json(path, schema=_JSON_SCHEMA, mode="PERMISSIVE").withColumnRenamed("timestamp", "ts")
    if numbered is None:
        numbered = bool(df.filter(F.col("id").isNull()).limit(1).count())
    if numbered:
        indexed = _numbered(spark, df)  # some rows need their row number as their id
        ident = F.coalesce(F.col("id"), F.col("row").cast("string"))
    else:  # every row has its id (or the caller counts them): no numbering pass
        indexed = df.withColumn("row", F.monotonically_increasing_id())
        ident = F.col("id")
    return indexed.select(
        ident.alias("id"), "row", "topic", "body",
        F.coalesce(F.octet_length("body").cast("long"), F.col("size").cast("long"),
                   F.lit(0).cast("long")).alias("size"),
        "properties",
        F.coalesce(F.col("priority").cast("int"), F.lit(C.MQPRI_PRIORITY_AS_Q_DEF)).alias("priority"),
        F.coalesce(F.col("persistence").cast("int"), F.lit(C.MQPER_PERSISTENCE_AS_Q_DEF)).alias("persistence"),
        F.coalesce(F.col("expiry").cast("int"), F.lit(C.MQEI_UNLIMITED)).alias("expiry"),
        F.coalesce(F.col("pub_level").cast("int"), F.lit(routing.DEFAULT_PUB_LEVEL)).alias("pub_level"),
        F.col("ts"), F.to_timestamp(_utc_stripped(spark, F.col("ts"))).cast("double").alias("timestamp"))


def _utc_stripped(spark, ts):
    """``ts`` without a final "Z" where the session's zone is UTC (pipeline/spark.py sets it): the same instant,
    but Spark resolves a zone written in the string with two regular expressions compiled again for every row
    (``SparkDateTimeUtils.getZoneId``), about 2.5% of a 10M job's executor time (docs/decisions.md SK5)."""
    from pyspark.sql import functions as F

    if spark.conf.get("spark.sql.session.timeZone") != "UTC":
        return ts
    return F.when(ts.endswith("Z"), ts.substr(F.lit(1), F.length(ts) - 1)).otherwise(ts)


def _numbered(spark, df):
    """``df`` with a ``row`` column: each row's number in file order, from 1 (the id of a publication
    without one, issue 10's interface; ``registry import`` counts rows from 1 too), computed in the JVM.
    monotonically_increasing_id is the partition index << 33 plus the row's place in its partition, so one small pass
    counting each partition's rows gives every partition its first row number."""
    from pyspark.sql import functions as F

    df = df.withColumn("_mid", F.monotonically_increasing_id())
    counts = sorted((r["p"], r["n"]) for r in df.groupBy(F.shiftright("_mid", 33).alias("p"))
                    .agg(F.count("*").alias("n")).collect())
    firsts, total = [], 0
    for part, n in counts:
        firsts.append((part, total))
        total += n
    offsets = F.broadcast(spark.createDataFrame(firsts or [(0, 0)], "p long, first long"))
    return df.join(offsets, F.shiftright("_mid", 33) == offsets["p"]) \
        .withColumn("row", F.col("first") + F.col("_mid").bitwiseAND(F.lit((1 << 33) - 1)) + 1) \
        .drop("_mid", "p", "first")


# ---- routing on the executors --------------------------------------------------------------------
def _depends_on_each(reg, topic: str) -> list:
    """The subscriptions on ``topic`` whose deliveries depend on each publication: a selector reads
    its properties and MQMD, an expiry its time."""
    by_id = reg.subs_by_id
    return [s for s in (by_id[k] for k in reg.routes.match(topic)) if s.selector or s.expiry >= 0]


def route_keys(reg, keys):
    """Rows of the routed-key table for each (topic, pub_level, priority, persistence, expiry)."""
    for topic, level, priority, persistence, expiry in keys:
        if topic is None:
            continue
        special = _depends_on_each(reg, topic)
        if special:
            yield (topic, level, priority, persistence, expiry, "each") + (None,) * 10
            for sub in special:
                if sub.selector:
                    yield (topic, level, priority, persistence, expiry, "selector", sub.name) + (None,) * 8
            continue
        md = MQMD(Format=C.MQFMT_STRING, Priority=priority, Persistence=persistence, Expiry=expiry)
        pub = routing.publication(reg, topic, md, b"", level)
        subs = routing.receivers(reg, pub)
        for copy in routing.deliveries(reg, pub, subs, 0.0, routes.no_msg_id) if subs else ():
            yield (topic, level, priority, persistence, expiry, "copy", copy.sub.name, copy.sub.sub_id.hex(),
                   copy.queue, copy.qmgr or reg.qmgr.name, copy.md.CorrelId.hex(),
                   routing.delivered_priority(reg, copy), copy.md.Persistence, copy.md.Expiry, len(copy.data))


def _arrow_mapper(blob_id, blob, fn, schema_fn):
    def run(batches):
        reg = _registry_of(blob_id, blob.value)
        schema = schema_fn()
        arrow = _arrow_schema(schema)
        for batch in batches:
            rows = list(fn(reg, batch))
            if rows:
                yield _record_batch(rows, arrow)
    return run


def _record_batch(rows: list[tuple], arrow):
    """Rows as one Arrow batch, built column-wise (no dict per row)."""
    import pyarrow as pa

    columns = list(zip(*rows))
    return pa.RecordBatch.from_arrays([pa.array(c, type=arrow.field(i).type) for i, c in enumerate(columns)],
                                      schema=arrow)


def _arrow_schema(schema):
    import pyarrow as pa

    kinds = {"StringType()": pa.string(), "IntegerType()": pa.int32(), "LongType()": pa.int64(),
             "DoubleType()": pa.float64()}
    return pa.schema([(f.name, kinds[repr(f.dataType)]) for f in schema.fields])


def _keys_of_batch(reg, batch):
    return route_keys(reg, zip(*(batch.column(k).to_pylist() for k in KEY)))


_ROW_COLUMNS = ("id", "row", "topic", "body", "size", "properties", "priority", "persistence", "expiry",
                "pub_level", "ts")


def _each_of_batch(reg, batch):
    cols = [batch.column(name).to_pylist() for name in _ROW_COLUMNS]
    rows = []
    for values in zip(*cols):
        row = dict(zip(_ROW_COLUMNS, values))
        if row["body"] is not None:
            row.pop("size")
        row["timestamp"] = row.pop("ts")
        rows.append((row, row.pop("row")))
    for d in routes.route_rows(rows, reg):
        yield tuple(d[f] for f in routes.DELIVERY_FIELDS)


# ---- the job -------------------------------------------------------------------------------------
BROADCAST_LIMIT = 256 << 20  # a snapshot larger than this is split by topic prefix instead of broadcast
SHARED = "_shared"  # the group of the subscriptions whose first level is a wildcard


def prefix_groups(reg) -> dict[str, list]:
    """Subscriptions by the literal first level of their topic string; those that can match any first
    level (a wildcard there, or the character scheme) are in SHARED and in every group, so a group
    holds every subscription a topic with that first level could match."""
    groups: dict[str, list] = {SHARED: []}
    for sub in reg.subs.values():
        first = sub.resolved_topic.split("/")[0]
        if sub.wildcard_schema == C.MQWS_CHAR or first in ("#", "+"):
            groups[SHARED].append(sub)
        else:
            groups.setdefault(first, []).append(sub)
    shared = groups[SHARED]
    return {first: subs + shared if first != SHARED else subs for first, subs in groups.items()}


class _Groups:
    """Per-prefix snapshots shipped as files (SparkContext.addFile): an executor loads only the groups
    its rows need, and a few at a time, where a broadcast would hold the whole set in every one."""

    def __init__(self, spark, reg) -> None:
        import tempfile

        self._dir = tempfile.TemporaryDirectory(prefix="qmlite-groups-")
        run = uuid.uuid4().hex[:12]  # SparkContext.addFile refuses a name twice: one set of names per job
        names = {}
        for first, subs in prefix_groups(reg).items():
            blob = definitionsblob.dump(reg, subs)
            name = f"qmlite-{run}-{hashlib.sha256(blob).hexdigest()[:24]}.snapshot"
            path = pathlib.Path(self._dir.name) / name
            if not path.exists():
                path.write_bytes(blob)
                spark.sparkContext.addFile(str(path))
            names[first] = name
        self.shared = names.pop(SHARED)
        self.mapping = spark.createDataFrame(sorted(names.items()) or [("", self.shared)], "first string, grp string")

    def tag(self, df):
        """``df`` with the ``grp`` its topics route in, and its rows gathered by group."""
        from pyspark.sql import functions as F

        tagged = df.withColumn("first", F.substring_index("topic", "/", 1)) \
            .join(F.broadcast(self.mapping), "first", "left") \
            .withColumn("grp", F.coalesce(F.col("grp"), F.lit(self.shared))).drop("first")
        return tagged.repartition("grp")

    def release(self) -> None:
        self._dir.cleanup()


def _group_registry(name: str):
    reg = _CACHE.get(name)
    if reg is None:
        from pyspark import SparkFiles

        if len(_CACHE) >= 4:
            _CACHE.clear()  # a few groups at a time: the point is not to hold them all
        reg = _CACHE[name] = definitionsblob.load(pathlib.Path(SparkFiles.get(name)).read_bytes())
    return reg


def _group_mapper(fn, schema_fn):
    def run(batches):
        import pyarrow.compute as pc

        arrow = _arrow_schema(schema_fn())
        for batch in batches:
            for name in pc.unique(batch.column("grp")).to_pylist():
                part = batch.filter(pc.equal(batch.column("grp"), name))
                rows = list(fn(_group_registry(name), part))
                if rows:
                    yield _record_batch(rows, arrow)
    return run


# Distinct keys up to this many are routed on the driver, which holds the registry already (about
# 20 us a key: 100k keys in 2 s): no Python worker, no broadcast of the snapshot, no Spark stage for
# them, which is most of what a cold JVM paid for them (issue 24, docs/benchmarks.md).  More keys
# than this are routed on the executors, in parallel.
DRIVER_KEYS = 500_000


class Routed:
    """The deliveries of a set of publications against one registry, as DataFrames; ``release()``
    frees what they cache.  ``keys``: the distinct keys, as a DataFrame or an Arrow table (a table of
    at most ``DRIVER_KEYS`` rows is routed on the driver); None takes them from ``pubs``.  Where the
    executors route, the registry is broadcast while its snapshot is at most ``limit`` bytes, else
    split by the literal first level of the topic strings (``prefix_groups``)."""

    def __init__(self, spark, pubs, reg, limit: int = BROADCAST_LIMIT, *, cache: bool = True,
                 keys=None) -> None:
        from pyspark.sql import functions as F

        self._spark, self._reg, self._limit = spark, reg, limit
        self._blob = self._groups = self._mappers = None
        self.routed = None  # the routed keys as an Arrow table, when the driver routed them
        if keys is not None and not hasattr(keys, "mapInArrow") and keys.num_rows <= DRIVER_KEYS:
            self.routed = route_keys_table(reg, keys, _driver_cores(spark))
            self.keys = spark.createDataFrame(self.routed, schema=_routed_key_schema())
            has_each = _kinds(self.routed, "each").num_rows > 0
        else:
            if keys is None:
                keys = pubs.select(*KEY).distinct()
            elif hasattr(keys, "mapInArrow"):
                keys = keys.select(*KEY)  # distinct already
            else:
                keys = spark.createDataFrame(keys.select(list(KEY)), schema=_key_schema())
            keys_mapper, _, tag = self._executors()
            self.keys = tag(keys).mapInArrow(keys_mapper, _routed_key_schema()).cache()
            has_each = bool(self.keys.filter(F.col("kind") == "each").limit(1).count())
        copies = F.broadcast(self.keys.filter(F.col("kind") == "copy"))
        plain = pubs.join(copies, list(KEY)).select(
            F.col("id").alias("publication_id"), "sub_name", "sub_id", "destination_queue", "destination_qmgr",
            "correl_id", F.col("out_priority").alias("priority"), F.col("out_persistence").alias("persistence"),
            F.col("out_expiry").alias("expiry"), (F.col("size") + F.col("header_bytes")).alias("bytes"), "topic",
            "timestamp")
        self.has_each = has_each
        if has_each:
            _, each_mapper, tag = self._executors()
            each_keys = self.keys.filter(F.col("kind") == "each").select(*KEY)
            each = tag(pubs.join(F.broadcast(each_keys), list(KEY), "left_semi").select(*_ROW_COLUMNS)) \
                .mapInArrow(each_mapper, _delivery_schema())
        else:  # no topic needs routing one by one: no pass over the input for it
            each = spark.createDataFrame([], _delivery_schema())
        self.plain, self.each = plain, each  # routed by key, and one by one
        self.deliveries = plain.unionByName(each) if has_each else plain
        if cache:
            self.deliveries = self.deliveries.cache()
        self._pubs = pubs

    def _executors(self):
        """(keys mapper, each mapper, tag) for routing on the executors; the registry is shipped to
        them on first use only (a job whose keys the driver routed, none one by one, ships nothing)."""
        if self._mappers is None:
            dumped = definitionsblob.dump(self._reg)
            if len(dumped) <= self._limit:
                blob_id = hashlib.sha256(dumped).hexdigest()  # names this registry in the executors' cache
                self._blob = blob = self._spark.sparkContext.broadcast(dumped)
                self._mappers = (_arrow_mapper(blob_id, blob, _keys_of_batch, _routed_key_schema),
                                 _arrow_mapper(blob_id, blob, _each_of_batch, _delivery_schema), lambda df: df)
            else:
                self._groups = groups = _Groups(self._spark, self._reg)
                self._mappers = (_group_mapper(_keys_of_batch, _routed_key_schema),
                                 _group_mapper(_each_of_batch, _delivery_schema), groups.tag)
        return self._mappers

    def routed_keys(self):
        """The routed-key table as Arrow (on the driver already, or collected: one row per key and copy)."""
        if self.routed is None:
            self.routed = self.keys.toArrow().cast(_arrow_schema(_routed_key_schema()))
        return self.routed

    def release(self) -> None:
        self.deliveries.unpersist()
        self.keys.unpersist()
        if self._blob is not None:
            self._blob.unpersist()
        if self._groups is not None:
            self._groups.release()


def _driver_cores(spark) -> int:
    """The cores the driver may route with while the executors wait for its keys: the master's (local[N]: N), at most
    the driver machine's."""
    return max(1, min(spark.sparkContext.defaultParallelism, forked.usable_cores()))


def _kinds(routed, kind: str):
    import pyarrow.compute as pc

    return routed.filter(pc.equal(routed["kind"], kind))


def _key_schema():
    from pyspark.sql import types as T

    return T.StructType([T.StructField("topic", T.StringType()), T.StructField("pub_level", T.IntegerType()),
                         T.StructField("priority", T.IntegerType()), T.StructField("persistence", T.IntegerType()),
                         T.StructField("expiry", T.IntegerType())])


def route_keys_table(reg, keys, processes: int = 1):
    """``route_keys`` over an Arrow table of distinct keys, on the driver: the routed-key table in Arrow.
    ``processes``: how many of the driver's cores may route at once (pipeline/forked.py)."""
    import pyarrow as pa

    arrow = _arrow_schema(_routed_key_schema())

    def share(part) -> list:
        # Each share is made an Arrow table where it is routed: a forked child's columns are built on its own core
        # and come back as Arrow buffers, not as rows the driver unpickles and builds columns of alone
        # (100k keys: 0.3-0.5 s of one core less between the two passes, docs/decisions.md SK8).
        rows = list(route_keys(reg, part))
        return [pa.Table.from_batches([_record_batch(rows, arrow)], schema=arrow)] if rows else []

    tables = forked.split_map(share, list(zip(*(keys.column(k).to_pylist() for k in KEY))), processes)
    return pa.concat_tables(tables) if tables else pa.Table.from_batches([], schema=arrow)


def _literal(path: str) -> str:
    """A path Spark reads as it is: Hadoop takes ``[]{}*?`` in a read path as a glob (``out-local[2]``)."""
    return "".join("\\" + c if c in "[]{}*?\\" else c for c in path)


def from_capture(publications: str, registry_of, out: pathlib.Path) -> str:
    """A ``qmlite decode`` capture becomes publication rows (pipeline/capture.py), written beside the
    output as ``publications-from-capture.jsonl``; any other input is returned as it is.
    ``registry_of()``: the registry whose topic objects name the capture's topics (asked only for a
    capture, so the caller may still be loading it)."""
    path = pathlib.Path(publications)
    if not path.is_file() or path.suffix == ".parquet":
        return publications
    with open(path, encoding="utf-8") as f:
        first = f.readline()
        if not capture.is_decoded_capture(first):
            return publications
        f.seek(0)
        out.mkdir(parents=True, exist_ok=True)
        rows = out / "publications-from-capture.jsonl"
        names = {t.name: t.topic_string for t in registry_of().topics.values()}
        with open(rows, "w", encoding="utf-8") as w:
            objects = (json.loads(line) for line in f if line.strip())
            for row in capture.publications(objects, names):
                w.write(json.dumps(row) + "\n")
    return str(rows)


# Columns with a value per publication get no dictionary: Parquet builds one per column chunk and
# then throws it away when it overflows (10M deliveries: 20.6-30.0 s -> 17.8-19.9 s, docs/benchmarks.md).
# Nor do the subscription's strings and the topic (a value per subscription): their dictionaries fit,
# but looking up every value in them cost more CPU than writing the values plainly (10M deliveries:
# 111-113 -> 92-93 CPU s for the whole cold job; the files twice the size, docs/decisions.md SK3).
_WRITE_OPTIONS = {f"parquet.enable.dictionary#{column}": "false"
                  for column in ("publication_id", "timestamp", "sub_id", "correl_id", "sub_name", "topic")}
# Nor min/max statistics for the strings: the writer copies a string each time it becomes a column's new minimum
# or maximum, and a publication's id (increasing) does nearly every row -- 4.6% of a 10M job's executor samples
# (docs/decisions.md SK5).  The timestamp, the queue manager and the numbers keep theirs, which a reader can prune by.
_WRITE_OPTIONS.update({f"parquet.column.statistics.enabled#{column}": "false"
                       for column in ("publication_id", "sub_id", "correl_id", "sub_name", "topic")})


def even_split_bytes(size: int, largest: int, cores: int) -> int:
    """The split size that reads a file of ``size`` bytes in whole waves of equal tasks on ``cores`` cores, none larger
    than ``largest`` (Spark's ``spark.sql.files.maxPartitionBytes``).

    Spark cuts a file larger than ``largest`` times the cores into splits of ``largest`` and a smaller remainder: 1 GB
    at 128 MB is seven tasks of 128 MB and one of 110, so on two cores the last wave's short task leaves its core idle
    while the other finishes (0.6 core-seconds of a 38-second job's write pass).  As many splits as Spark would make,
    rounded up to whole waves and made equal, end every wave together (docs/decisions.md SK8)."""
    waves = -(-size // (largest * cores))
    return max(1, -(-size // (waves * cores))) if waves > 1 else largest


def _even_splits(spark, publications: str) -> str | None:
    """Sets the session's split size for a local single-file input (``even_split_bytes``); returns the value to put
    back, None when nothing was changed (a directory, a remote path, an input that fits one wave)."""
    path = pathlib.Path(publications)
    if not path.is_file():
        return None
    try:  # the session's value in bytes, as Spark reads it ("128MB", "134217728b" ...)
        largest = spark._jsparkSession.sessionState().conf().filesMaxPartitionBytes()
    except AttributeError:  # no JVM session here (Spark Connect): Spark's own splits
        return None
    split = even_split_bytes(path.stat().st_size, largest, spark.sparkContext.defaultParallelism)
    if split >= largest:
        return None
    before = spark.conf.get("spark.sql.files.maxPartitionBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(split))
    return before


def route(spark, publications: str, registry, out: str, *, limit: int = BROADCAST_LIMIT) -> dict:
    """Run the job; returns the summary (also written to OUT/summary.json).  ``registry``: a data
    directory or snapshot file (``load_registry``), or a registry already loaded from one.

    The input is read twice and never cached: once to count the traffic per key, which gives the
    keys to route and most of the summary (a key's deliveries are its copies times its count), and
    once by the write of the deliveries.  The deliveries themselves are only read back for what
    needs each one's time, the depth per queue per hour (two columns of the Parquet).  Measured
    against caching the input and summarising the deliveries: docs/benchmarks.md."""
    restore = _even_splits(spark, publications)
    try:
        return _route(spark, publications, registry, out, limit)
    finally:
        if restore is not None:
            spark.conf.set("spark.sql.files.maxPartitionBytes", restore)


def _route(spark, publications: str, registry, out: str, limit: int) -> dict:
    import pyarrow.compute as pc
    from pyspark.sql import functions as F

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as background:
        # The registry loads (Python, on the driver) while the JVM counts the traffic: the driver
        # only waits for that job, so the load costs the job no time of its own (about 0.6 s for 100k
        # subscriptions).  Given a registry already loaded (the command line's, read to check it
        # before a JVM starts), nothing is loaded again.
        loading = background.submit(load_registry, registry) if isinstance(registry, (str, os.PathLike)) else None
        source = from_capture(publications, (loading.result if loading else lambda: registry), pathlib.Path(out))
        pubs = read_publications(spark, source, numbered=False)
        traffic = pubs.groupBy(*KEY).agg(F.count("*").alias("n"), F.sum("size").alias("size_sum"),
                                         F.count("id").alias("ids"))
        table = traffic.toArrow()  # one row per key: small, the keys to route and the summary's main input
        reg = loading.result() if loading else registry
    publications_read = pc.sum(table["n"]).as_py() or 0
    ids = pc.sum(table["ids"]).as_py() or 0
    untopical = pc.fill_null(pc.equal(table["topic"], ""), True)
    without_topic = pc.sum(pc.filter(table["n"], untopical)).as_py() or 0
    if ids < publications_read:  # some rows have no id: they take their row number
        pubs = read_publications(spark, source, numbered=True)
    routed = Routed(spark, pubs, reg, limit, cache=False, keys=table)
    each = routed.each.cache() if routed.has_each else None  # written and summarised: routed once
    try:
        target = pathlib.Path(out)
        written = str(target / "deliveries")
        (routed.plain.unionByName(each) if each is not None else routed.plain) \
            .write.options(**_WRITE_OPTIONS).mode("overwrite").partitionBy("destination_queue").parquet(written)
        deliveries = spark.read.schema(_delivery_schema()).parquet(_literal(written))  # queue names stay strings
        lines: dict[str, str] = {}  # the summary's entries, encoded while the hours' job runs
        summary = summarize(table, routed.routed_keys(), each, deliveries, publications_read, lines)
        # Rows without a topic cannot be published: counted, not silently among the unreceived.
        summary["publications_without_topic"] = without_topic
        target.mkdir(parents=True, exist_ok=True)
        (target / "summary.json").write_text(summary_text(summary, lines))
    finally:
        if each is not None:
            each.unpersist()
        routed.release()
    return summary


def summary_text(summary: dict, lines: dict[str, str] | None = None) -> str:
    """``summary.json``: keys sorted, two-space indents, and each entry of a per-name table (per topic,
    subscription, queue: 100k entries and more) on a line of its own.

    ``json.dumps(indent=2)`` encodes in Python, not C: 1.6 s for 100k topics in the job.  A table whose
    entries are all objects of numbers under plain names is encoded here with two calls of the C
    encoder: its names each by the C encoder's own string function (a split of their list on '", "'
    would cut a name ending in an escaped quote), its entries as one list, split where its items meet --
    '}, {' occurs only there (no brace in a plain name or a number).  Any other value is indented as
    ``json.dumps`` would.

    ``lines``: entries encoded already (``summary_line``), by key, used as they are."""
    lines = lines or {}
    entries = [lines[key] if key in lines else summary_line(key, summary[key]) for key in sorted(summary)]
    return "{\n" + ",\n".join(entries) + "\n}" if entries else "{}"


def summary_line(key: str, value) -> str:
    """One entry of ``summary_text``: its line (a per-name table's lines), without the comma before the next."""
    encode = _ENCODE
    if isinstance(value, dict) and value and all(isinstance(name, str) for name in value) and all(
            isinstance(v, dict) and all(isinstance(k, str) and k.isidentifier() and type(n) in (int, float)
                                        for k, n in v.items())
            for v in value.values()):
        names = sorted(value)
        quoted = map(json.encoder.encode_basestring_ascii, names)  # as the encoder writes them
        entries = encode([value[n] for n in names])[2:-2].split("}, {")
        body = ",\n    ".join(f"{n}: {{{e}}}" for n, e in zip(quoted, entries))
        return f"  {encode(key)}: {{\n    {body}\n  }}"
    inner = json.dumps(value, indent=2, sort_keys=True).replace("\n", "\n  ")
    return f"  {encode(key)}: {inner}"


_ENCODE = json.JSONEncoder(sort_keys=True).encode


def summarize(traffic, routed, each, deliveries, publications: int, lines: dict[str, str] | None = None) -> dict:
    """The summary from the traffic per key (``traffic``: an Arrow table of KEY, n, size_sum), the
    routed keys (``routed``: Arrow, ``Routed.routed_keys()``), the deliveries routed one by one
    (``each``, a DataFrame; None when no key needed it) and, for the hours, all the deliveries as
    written.  The tables per key are small (one row per distinct key, or per key and
    subscription): they are aggregated on the driver with Arrow, in one Spark job each rather than one
    per figure.  ``lines``: given, it is filled with ``summary_line`` of each entry but the hours', encoded while
    the hours' job runs (0.5 s for 100k topics and subscriptions, docs/decisions.md SK6)."""
    from pyspark.sql import functions as F

    hours = deliveries.groupBy("destination_queue", F.floor(F.col("timestamp") / 3600).alias("hour")) \
        .agg(F.count("*").alias("messages"), F.sum("bytes").alias("bytes"))
    sc = deliveries.sparkSession.sparkContext
    group = f"qmlite-hours-{uuid.uuid4().hex}"

    def collect_hours():
        sc.setJobGroup(group, "route: messages per queue per hour", interruptOnCancel=True)  # this thread's jobs
        return hours.collect()

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as background:
        # The one Spark job over every delivery runs while the driver sums the small tables in Arrow.
        hourly = background.submit(collect_hours)
        try:
            summary = _summary_of_keys(traffic, routed, each, publications)
            if lines is not None:
                lines.update((key, summary_line(key, value)) for key, value in summary.items())
            rows = hourly.result()
        except BaseException:
            # Not left running: leaving the block waits for the thread, and so for its job.
            sc.cancelJobGroup(group)
            raise
        per_hour: dict[str, dict[str, dict]] = {}
        for r in rows:
            hour = "unknown" if r["hour"] is None else str(int(r["hour"]) * 3600)
            per_hour.setdefault(r["destination_queue"], {})[hour] = {"messages": r["messages"], "bytes": r["bytes"]}
    summary["per_queue_per_hour"] = per_hour
    return summary


def _summary_of_keys(traffic, routed, each, publications: int) -> dict:
    """``summarize`` less the hours: everything the tables per key give."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark.sql import functions as F

    key = list(KEY)
    routed = routed.select(list(KEY) + ["kind", "sub_name", "destination_queue", "header_bytes"])
    copies = routed.filter(pc.equal(routed["kind"], "copy"))
    by_key = traffic.join(copies, keys=key, join_type="inner")
    by_key = pa.table({
        "sub_name": by_key["sub_name"], "destination_queue": by_key["destination_queue"], "topic": by_key["topic"],
        "messages": by_key["n"],
        "bytes": pc.add(by_key["size_sum"], pc.multiply(by_key["n"], by_key["header_bytes"]))})
    if each is not None:
        one_by_one = each.groupBy("sub_name", "destination_queue", "topic").agg(
            F.count("*").alias("messages"), F.sum("bytes").alias("bytes")).toArrow()
        contributions = pa.concat_tables([by_key, one_by_one.cast(by_key.schema)])
    else:
        contributions = by_key

    def counts(column: str) -> dict:
        table = contributions.group_by(column).aggregate([("messages", "sum"), ("bytes", "sum")]).to_pydict()
        return {k: {"messages": m, "bytes": b}
                for k, m, b in zip(table[column], table["messages_sum"], table["bytes_sum"])}

    per_sub = counts("sub_name")
    per_queue = counts("destination_queue")
    per_topic = counts("topic")
    received_by_key = traffic.join(copies.select(key).group_by(key).aggregate([]), keys=key, join_type="left semi")
    received = (pc.sum(received_by_key["n"]).as_py() or 0) + \
        (each.select("publication_id").distinct().count() if each is not None else 0)
    candidates = routed.filter(pc.equal(routed["kind"], "selector")).select(key + ["sub_name"])
    offered = traffic.join(candidates, keys=key, join_type="inner").group_by("sub_name").aggregate([("n", "sum")])
    selectors = {}
    for name, n in sorted(zip(offered["sub_name"].to_pylist(), offered["n_sum"].to_pylist())):
        hits = per_sub.get(name, {}).get("messages", 0)
        selectors[name] = {"publications_on_topic": n, "selected": hits, "hit_rate": round(hits / n, 6) if n else 0.0}
    return {
        "publications": publications,
        "deliveries": sum(v["messages"] for v in per_queue.values()),
        "publications_not_received": publications - received,
        "per_subscription": per_sub,
        "per_queue": per_queue,
        "per_topic": per_topic,
        "selector_hit_rates": selectors,
    }


_COMPARED = ("destination_queue", "destination_qmgr", "correl_id", "priority", "persistence", "expiry", "bytes")


def diff(spark, publications: str, before: str, after: str, out: str) -> dict:
    """``qmlite pipeline diff``: the deliveries a change of the subscription set adds, removes or changes.

    Both registries route the same publications; a delivery is identified by (publication, subscription
    name).  ``OUT/diff`` (Parquet) has one row per difference with ``change`` = added, removed or
    changed and the before/after values; ``OUT/diff.json`` the counts, per subscription too."""
    from pyspark.sql import functions as F

    first = load_registry(before)
    pubs = read_publications(spark, from_capture(publications, lambda: first, pathlib.Path(out))).cache()
    a = Routed(spark, pubs, first)
    b = Routed(spark, pubs, load_registry(after))
    try:
        ident = ["publication_id", "sub_name"]
        left = a.deliveries.select(*ident, *(F.col(c).alias(f"before_{c}") for c in _COMPARED))
        right = b.deliveries.select(*ident, *(F.col(c).alias(f"after_{c}") for c in _COMPARED))
        joined = left.join(right, ident, "full_outer")
        differs = F.lit(False)
        for c in _COMPARED:
            differs = differs | ~F.col(f"before_{c}").eqNullSafe(F.col(f"after_{c}"))
        change = (F.when(F.col("before_destination_queue").isNull(), "added")
                  .when(F.col("after_destination_queue").isNull(), "removed")
                  .when(differs, "changed"))
        changes = joined.withColumn("change", change).filter(F.col("change").isNotNull()).cache()
        target = pathlib.Path(out)
        changes.write.mode("overwrite").parquet(str(target / "diff"))
        counts = {r["change"]: r["count"] for r in changes.groupBy("change").count().collect()}
        per_sub: dict[str, dict[str, int]] = {}
        for r in changes.groupBy("sub_name", "change").count().collect():
            per_sub.setdefault(r["sub_name"], {})[r["change"]] = r["count"]
        result = {"publications": pubs.count(),
                  **{k: counts.get(k, 0) for k in ("added", "removed", "changed")},
                  "per_subscription": per_sub}
        target.mkdir(parents=True, exist_ok=True)
        (target / "diff.json").write_text(json.dumps(result, indent=2, sort_keys=True))
        changes.unpersist()
    finally:
        a.release()
        b.release()
        pubs.unpersist()
    return result
