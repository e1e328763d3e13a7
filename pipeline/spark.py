"""The Spark session the pipeline's jobs run in: local mode by default, any cluster through ``master``."""

from __future__ import annotations

import os
import pathlib
import sys


# The parts of qmlite an executor runs: routing and what it stands on (client/ and server/ stay home).
# qmlite.registry goes whole, with its subpackages: routing imports across them.
SHIPPED = ("qmlite", "qmlite.pcf", "qmlite.registry", "qmlite.pipeline")
RECURSIVE = ("qmlite.registry",)


def qmlite_zip(path: pathlib.Path) -> pathlib.Path:
    """qmlite's routing packages as one zip for ``SparkContext.addPyFile``, laid out as they import
    (``qmlite/registry/pubsub/routing.py``, ...) whatever the installation's directory names are."""
    import importlib
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name in SHIPPED:
            package = importlib.import_module(name)
            target = name.replace(".", "/")
            for directory in package.__path__:
                root = pathlib.Path(directory)
                sources = root.rglob("*.py") if name in RECURSIVE else root.glob("*.py")
                for source in sorted(sources):
                    z.write(source, f"{target}/{source.relative_to(root).as_posix()}")
    return path


# The throughput collector: a route job is one batch, and G1's pauses-first work cost 7-10% of a
# 10M-publication run here (docs/benchmarks.md, issue 10).  The optimizing compiler (C2) takes a method after ten
# times the usual calls and loop turns; C1 as usual.  A cold job's compilers took 11 CPU s of a 10M job's 72, most of
# it C2 on planning, Janino and serialization code run a few thousand times and never again; about 6.4 with this.  The
# rows' loops run millions of times and reach C2 within the first task (docs/decisions.md SK7).
JVM_OPTIONS = " ".join(["-XX:+UseParallelGC", "-XX:Tier4InvocationThreshold=50000",
                        "-XX:Tier4MinInvocationThreshold=6000", "-XX:Tier4CompileThreshold=150000",
                        "-XX:Tier4BackEdgeThreshold=400000"])
CONCURRENT_WRITERS = 16  # output files a write task keeps open (one per queue); beyond them it sorts


def session(master: str = "local[2]", app: str = "qmlite-pipeline", shuffle_partitions: int = 8,
            driver_memory: str = "2g"):
    # The executors' Python must be this one: it is the one that has qmlite installed.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    from . import cds

    archive = cds.Archive(JVM_OPTIONS)  # the driver's classes mapped from an archive (issue 35, pipeline/cds.py)
    launched = SparkContext._gateway is None  # this session starts the JVM (a test's second session does not)
    spark = (SparkSession.builder.master(master).appName(app)
             .config("spark.ui.enabled", "false")
             .config("spark.driver.memory", driver_memory)  # local mode: the executors live in the driver
             .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
             .config("spark.driver.bindAddress", "127.0.0.1")
             # blocks are fetched from here; the hostname may not resolve to us
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.sql.session.timeZone", "UTC")  # timestamps without a zone are UTC, as put_stamp's
             .config("spark.ui.showConsoleProgress", "false")  # pipeline/progress.py draws ours
             .config("spark.sql.execution.arrow.pyspark.enabled", "true")
             # A task writes each queue's deliveries to a file of its own, all open at once (up to this many, the
             # rest sorted as before) instead of sorting its rows by queue first; the open files' row groups share
             # at most a quarter of the heap, shrinking as more open (docs/decisions.md SK5).
             .config("spark.sql.maxConcurrentOutputFileWriters", str(CONCURRENT_WRITERS))
             .config("spark.hadoop.parquet.memory.pool.ratio", "0.25")
             # An aggregation's rows go straight to its hash map, without the generated first-level map in front:
             # that one holds 65,536 groups, and the traffic pass's (one per distinct key, 100k and more) overflow
             # it, so most rows were looked up twice (10M publications: 8.9 s for the pass, not 9.7;
             # docs/decisions.md SK6).
             .config("spark.sql.codegen.aggregate.map.twolevel.enabled", "false")
             .config("spark.driver.extraJavaOptions", " ".join([JVM_OPTIONS, archive.java_options()]).strip())
             .config("spark.executor.extraJavaOptions", JVM_OPTIONS)
             .getOrCreate())
    if launched:
        archive.finish_at_exit(SparkContext._gateway)
    if not master.startswith("local"):
        # A cluster's executors run the job's routing from this zip: the same rules, shipped with it.
        import tempfile

        spark.sparkContext.addPyFile(str(qmlite_zip(pathlib.Path(tempfile.mkdtemp()) / "qmlite.zip")))
    return spark
