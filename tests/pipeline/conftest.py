"""One Spark session for every pipeline test (a JVM costs seconds and a few hundred MB)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    from qmlite.pipeline.spark import session

    s = session("local[2]", "qmlite-tests", shuffle_partitions=2)
    yield s
    s.stop()
