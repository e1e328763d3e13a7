"""``qmlite pipeline route``: the deliveries a queue manager would make for a set of publications, on Spark.

The registry (a data directory, read-only and safe while a server runs on it, or a snapshot file
written by ``registry.snapshot.dump``) is loaded once on the driver and broadcast as one snapshot
blob; each executor builds its routing registry from it once and routes its partitions with
``pipeline.routes`` -- ``registry.routing`` itself, never a second copy of the rules.  Its topic
index keeps a bounded result cache, so each distinct topic of a partition is matched once.

Output: ``OUT/deliveries`` (Parquet, partitioned by destination_queue) and ``OUT/summary.json``:
fan-out per subscription, queue and topic, publications nobody receives, and bytes and messages
per queue per hour (the depth a queue would reach if nobody consumed).
"""

from __future__ import annotations

import hashlib
import json
import pathlib

from qmlite.registry import snapshot
from qmlite.registry.state import Registry

from . import routes

_CACHE: dict[str, object] = {}  # per executor process: snapshot digest -> routing registry


def load_registry(source: str):
    path = pathlib.Path(source)
    if path.is_dir():
        return Registry.open_readonly(path)
    return snapshot.load(path.read_bytes())


def _registry_of(blob_id: str, blob: bytes):
    reg = _CACHE.get(blob_id)
    if reg is None:
        _CACHE.clear()  # one job's registry at a time per executor
        reg = _CACHE[blob_id] = snapshot.load(blob)
    return reg


def _schema():
    from pyspark.sql import types as T

    return T.StructType([
        T.StructField("publication_id", T.StringType()), T.StructField("sub_name", T.StringType()),
        T.StructField("sub_id", T.StringType()), T.StructField("destination_queue", T.StringType()),
        T.StructField("destination_qmgr", T.StringType()), T.StructField("correl_id", T.StringType()),
        T.StructField("priority", T.IntegerType()), T.StructField("persistence", T.IntegerType()),
        T.StructField("expiry", T.IntegerType()), T.StructField("bytes", T.LongType()),
        T.StructField("topic", T.StringType()), T.StructField("timestamp", T.DoubleType()),
    ])


def read_publications(spark, path: str):
    """An RDD of (row dict, row number): Parquet (a file or directory of them) or JSON lines."""
    p = pathlib.Path(path)
    parquet = p.suffix == ".parquet" or (p.is_dir() and any(p.glob("*.parquet")))
    if parquet:
        rows = spark.read.parquet(path).rdd.map(lambda r: r.asDict(recursive=True))
    else:
        rows = spark.sparkContext.textFile(path).filter(lambda line: line.strip()).map(json.loads)
    return rows.zipWithIndex()


def route(spark, publications: str, registry: str, out: str) -> dict:
    """Run the job; returns the summary (also written to OUT/summary.json)."""
    reg = load_registry(registry)
    dumped = snapshot.dump(reg)
    blob_id = hashlib.sha256(dumped).hexdigest()  # names this registry in the executors' cache
    blob = spark.sparkContext.broadcast(dumped)
    pubs = read_publications(spark, publications)

    def route_partition(rows):
        return (tuple(d[f] for f in routes.DELIVERY_FIELDS)
                for d in routes.route_rows(rows, _registry_of(blob_id, blob.value)))

    deliveries = spark.createDataFrame(pubs.mapPartitions(route_partition), _schema()).cache()
    target = pathlib.Path(out)
    deliveries.write.mode("overwrite").partitionBy("destination_queue").parquet(str(target / "deliveries"))
    summary = summarize(deliveries, pubs.count())
    target.mkdir(parents=True, exist_ok=True)
    (target / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True))
    deliveries.unpersist()
    blob.unpersist()
    return summary


def summarize(deliveries, publications: int) -> dict:
    from pyspark.sql import functions as F

    def counts(column: str) -> dict:
        return {r[column]: {"messages": r["messages"], "bytes": r["bytes"]}
                for r in deliveries.groupBy(column).agg(F.count("*").alias("messages"),
                                                        F.sum("bytes").alias("bytes")).collect()}

    received = deliveries.select("publication_id").distinct().count()
    hourly = deliveries.groupBy("destination_queue", F.floor(F.col("timestamp") / 3600).alias("hour")) \
        .agg(F.count("*").alias("messages"), F.sum("bytes").alias("bytes")).collect()
    per_hour: dict[str, dict[str, dict]] = {}
    for r in hourly:
        per_hour.setdefault(r["destination_queue"], {})[str(int(r["hour"]) * 3600)] = {
            "messages": r["messages"], "bytes": r["bytes"]}
    return {
        "publications": publications,
        "deliveries": deliveries.count(),
        "publications_not_received": publications - received,
        "per_subscription": counts("sub_name"),
        "per_queue": counts("destination_queue"),
        "per_topic": counts("topic"),
        "per_queue_per_hour": per_hour,
    }
