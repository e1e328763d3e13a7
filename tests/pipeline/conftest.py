"""One Spark session for every pipeline test (a JVM costs seconds and a few hundred MB)."""

from __future__ import annotations

import os

import pytest

# The tests' JVMs (this session's, and those of the `qmlite pipeline` processes they start) neither map nor
# write a class-data-sharing archive in the user's cache (pipeline/cds.py): tests/pipeline/test_cds.py
# turns it on, in a directory of its own, where it is what is tested.
os.environ["QMLITE_SPARK_CDS"] = "0"


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    from qmlite.pipeline.spark import session

    s = session("local[2]", "qmlite-tests", shuffle_partitions=2)
    yield s
    s.stop()
