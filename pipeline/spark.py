"""The Spark session the pipeline's jobs run in: local mode by default, any cluster through ``master``."""

from __future__ import annotations

import os
import sys


def session(master: str = "local[2]", app: str = "qmlite-pipeline", shuffle_partitions: int = 8):
    # The executors' Python must be this one: it is the one that has qmlite installed.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    return (SparkSession.builder.master(master).appName(app)
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.driver.host", "127.0.0.1")  # blocks are fetched from here; the hostname may not resolve to us
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.ui.showConsoleProgress", "false")  # pipeline/progress.py draws ours  # timestamps without a zone are UTC, as put_stamp's
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .getOrCreate())
