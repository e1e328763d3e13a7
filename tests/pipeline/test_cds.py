"""``pipeline.cds``: the Spark driver's class-data-sharing archive is written once, mapped after, and a
missing, corrupt or stale one never fails a job (each job here is a fresh process, so a fresh JVM)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from qmlite.pcf import constants as C
from qmlite.pipeline import cds, routes
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.storage import definitionsblob
from tests.support.pcfkit import command, st

pytest.importorskip("pyspark")

ROWS = [{"id": "a", "topic": "price/fruit/apple", "body": "1.20", "timestamp": "2026-11-23T10:15:00Z"},
        {"id": "b", "topic": "price/veg/leek", "size": 10, "priority": 8, "timestamp": "2026-11-23T11:10:00Z"},
        {"id": "c", "topic": "news/today", "body": "nobody"}]

# A fresh process: a session of its own (so a JVM of its own, with the archive's options), the job, and
# the deliveries and the archives its JVM mapped printed as one JSON line.
CHILD = """
import json, os, sys
from qmlite.pipeline import route_job, spark
pubs, registry, out = sys.argv[1:4]
session = spark.session("local[1]", "qmlite-cds-test", shuffle_partitions=1)
jvm = [p for p in os.listdir("/proc") if p.isdigit() and
       open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1] == str(os.getpid())]
maps = "".join(open(f"/proc/{p}/maps").read() for p in jvm)
route_job.route(session, pubs, registry, out)
import pyarrow.parquet as pq
rows = pq.read_table(os.path.join(out, "deliveries")).to_pylist()
session.stop()
print(json.dumps({"deliveries": sorted((r["publication_id"], str(r["destination_queue"]), r["sub_name"], r["bytes"])
                                       for r in rows),
                  "mapped": sorted({line.split()[-1] for line in maps.splitlines() if line.endswith(".jsa")})}))
"""


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    where = tmp_path_factory.mktemp("cds")
    qm = QueueManager.open(where / "qm", synchronous="NORMAL")
    try:
        for name, topic, dest in (("ALL.PRICES", "price/#", "DEV.QUEUE.1"), ("FRUIT", "price/fruit/+", "DEV.QUEUE.2")):
            reply = qm.engine.execute(command(C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, name),
                                              st(C.MQCA_TOPIC_STRING, topic), st(C.MQCACF_DESTINATION, dest)))
            assert reply[-1].header.Reason == 0
        (where / "registry.snapshot").write_bytes(definitionsblob.dump(qm.registry))
        expected = sorted((d["publication_id"], d["destination_queue"], d["sub_name"], d["bytes"])
                          for d in routes.route_rows(((r, n) for n, r in enumerate(ROWS, 1)), qm.registry))
    finally:
        qm.shutdown()
    (where / "pubs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    assert len(expected) == 3  # apple twice, leek once, news nobody's
    return where, [list(e) for e in expected]


def _job(inputs, cache: pathlib.Path, out: str) -> dict:
    where, _ = inputs
    env = dict(os.environ, QMLITE_CACHE_DIR=str(cache), QMLITE_SPARK_CDS="1")
    done = subprocess.run([sys.executable, "-c", CHILD, str(where / "pubs.jsonl"), str(where / "registry.snapshot"),
                           str(where / out)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _archive(cache: pathlib.Path, monkeypatch) -> cds.Archive:
    from qmlite.pipeline import spark

    monkeypatch.setenv("QMLITE_CACHE_DIR", str(cache))
    monkeypatch.delenv("QMLITE_SPARK_CDS", raising=False)
    return cds.Archive(spark.JVM_OPTIONS)


def test_the_first_job_writes_the_archive_and_the_next_maps_it(inputs, tmp_path, monkeypatch):
    archive = _archive(tmp_path, monkeypatch)
    assert archive.final is not None and not archive.final.exists()
    first = _job(inputs, tmp_path, "out1")
    assert first["deliveries"] == inputs[1]
    assert str(archive.final) not in first["mapped"]
    assert archive.final.is_file() and archive.final.stat().st_size > 0  # renamed into place after the JVM exited
    assert not list(archive.final.parent.glob("*" + cds.PART))
    second = _job(inputs, tmp_path, "out2")
    assert second["deliveries"] == inputs[1]
    assert str(archive.final) in second["mapped"]


@pytest.mark.parametrize("state", ["corrupt", "stale"])
def test_a_corrupt_or_stale_archive_still_runs_the_job(inputs, tmp_path, monkeypatch, state):
    archive = _archive(tmp_path, monkeypatch)
    archive.final.parent.mkdir(parents=True, exist_ok=True)
    if state == "corrupt":
        archive.final.write_bytes(b"\x01" * 4096 + os.urandom(4096))
    else:  # a real archive of classes from another classpath: Spark's launcher jar alone, its Main run
        from pyspark.find_spark_home import _find_spark_home

        jar = next((pathlib.Path(_find_spark_home()) / "jars").glob("spark-launcher_*.jar"))
        subprocess.run(["java", f"-XX:ArchiveClassesAtExit={archive.final}", "-cp", str(jar),
                        "org.apache.spark.launcher.Main"], capture_output=True, timeout=120)  # fails: no arguments
        assert archive.final.stat().st_size > 0
    job = _job(inputs, tmp_path, f"out-{state}")
    assert job["deliveries"] == inputs[1]
    assert str(archive.final) not in job["mapped"]  # the JVM refused it and ran without


def test_the_options_name_the_archive_and_can_be_turned_off(tmp_path, monkeypatch):
    archive = _archive(tmp_path, monkeypatch)
    assert archive.part is not None and archive.part.name.endswith(f".{os.getpid()}{cds.PART}")
    assert f"-XX:ArchiveClassesAtExit={archive.part}" in archive.java_options()
    archive.final.write_bytes(b"x")
    again = _archive(tmp_path, monkeypatch)
    assert again.path == archive.final and f"-XX:SharedArchiveFile={archive.final}" in again.java_options()
    assert cds.Archive("-XX:+UseSerialGC").final != archive.final  # other JVM options, another archive
    monkeypatch.setenv("QMLITE_SPARK_CDS", "0")
    assert cds.Archive("-XX:+UseParallelGC").java_options() == ""


def test_a_new_jar_or_java_is_a_new_name(tmp_path):
    home, java = tmp_path / "spark", tmp_path / "java"
    (home / "jars").mkdir(parents=True)
    (home / "jars" / "a.jar").write_bytes(b"a")
    java.write_bytes(b"java")
    before = cds.key(home, java, "-X")
    (home / "jars" / "b.jar").write_bytes(b"b")
    assert cds.key(home, java, "-X") != before
    after_jar = cds.key(home, java, "-X")
    java.write_bytes(b"another java")
    assert cds.key(home, java, "-X") != after_jar


class _Proc:
    def __init__(self, returncode: int) -> None:
        self.stdin, self.returncode = None, returncode

    def wait(self, timeout=None) -> int:
        return self.returncode


def test_the_archive_is_renamed_only_after_a_clean_exit_and_dead_runs_parts_are_removed(tmp_path):
    part, final = tmp_path / f"k.{os.getpid()}{cds.PART}", tmp_path / ("k" + cds.SUFFIX)
    part.write_bytes(b"archive")
    cds._complete(_Proc(1), part, final)
    assert not part.exists() and not final.exists()  # a JVM that failed: its dump is not trusted
    part.write_bytes(b"archive")
    cds._complete(_Proc(0), part, final)
    assert final.read_bytes() == b"archive" and not part.exists()
    dead = tmp_path / f"k.{2 ** 22 + 12345}{cds.PART}"  # above Linux's largest pid: no such process
    mine = tmp_path / f"k.{os.getpid()}{cds.PART}"
    dead.write_bytes(b"half")
    mine.write_bytes(b"being written")
    cds._remove_dead_parts(tmp_path)
    assert not dead.exists() and mine.exists()
