"""Publications out of a ``qmlite decode`` capture: MQPUT1 to a topic, MQPUT on an opened topic handle."""

from __future__ import annotations

import json

from qmlite.pcf import calls, decode, fap, mqi
from qmlite.pcf import constants as C
from qmlite.pcf import properties as PR
from qmlite.pipeline import capture

LE = fap.LITTLE


def _segment(kind: int, body: bytes, *, hobj: int = 0, request: int = 1, comp: int = 0) -> bytes:
    api = fap.ApiHeader(CallLength=fap.TSHM_LENGTH + 16 + len(body), CompCode=comp, Hobj=hobj).pack(LE)
    return fap.encode_segment(kind, api + body, struct_id=fap.TSHM, conversation_id=1, request_id=request)


def capture_bytes() -> bytes:
    topic_od = mqi.MQOD(Version=4, ObjectType=C.MQOT_TOPIC, ObjectName="SPORTS",
                        ObjectString=mqi.MQCHARV("football"))
    rfh2, fmt = PR.join(PR.Properties({"Team": "Reds"}), b"2-1", C.MQFMT_STRING, 546, 1208)
    return b"".join([
        _segment(fap.MQPUT1, calls.MQPut1Request(
            mqi.MQOD(Version=4, ObjectType=C.MQOT_TOPIC, ObjectString=mqi.MQCHARV("prices/apples")),
            mqi.MQMD(Format=C.MQFMT_STRING, Priority=7, Persistence=1), mqi.MQPMO(Version=3, PubLevel=4),
            b"1.20").pack(LE), hobj=-1, request=1),
        _segment(fap.MQOPEN, calls.MQOpenRequest(topic_od, C.MQOO_OUTPUT).pack(LE), request=2),
        _segment(fap.MQOPEN | fap.REPLY, calls.MQOpenReply(topic_od, C.MQOO_OUTPUT).pack(LE), hobj=6, request=2),
        _segment(fap.MQPUT, calls.MQPutRequest(mqi.MQMD(Format=fmt, Encoding=546, CodedCharSetId=1208),
                                               mqi.MQPMO(), rfh2).pack(LE), hobj=6, request=3),
        _segment(fap.MQPUT, calls.MQPutRequest(mqi.MQMD(Format=C.MQFMT_STRING), mqi.MQPMO(), b"x").pack(LE),
                 hobj=8, request=4),  # a handle nobody opened on a topic: a queue put, not a publication
        _segment(fap.MQCLOSE, calls.MQCloseRequest(0).pack(LE), hobj=6, request=5),
        _segment(fap.MQPUT, calls.MQPutRequest(mqi.MQMD(Format=C.MQFMT_STRING), mqi.MQPMO(), b"late").pack(LE),
                 hobj=6, request=6),  # after MQCLOSE the handle is not the topic's any more
    ])


def decoded_lines() -> list[str]:
    return [json.dumps(obj, default=str) for obj in decode.decode_objects(capture_bytes(), "fap")]


def test_publications_of_a_capture():
    lines = decoded_lines()
    assert capture.is_decoded_capture(lines[0]) and not capture.is_decoded_capture('{"topic": "t"}')
    rows = list(capture.publications((json.loads(line) for line in lines), {"SPORTS": "sport"}))
    assert [(r["topic"], r["size"], r["priority"], r["persistence"], r["pub_level"]) for r in rows] == [
        ("prices/apples", 4, 7, 1, 4), ("sport/football", 3, -1, C.MQPER_PERSISTENCE_AS_Q_DEF, 9)]
    assert rows[1]["properties"] == {"Team": "Reds"}
    assert len({r["id"] for r in rows}) == 2


def test_the_route_job_reads_a_capture(spark, tmp_path, clock):
    from qmlite.pipeline import route_job
    from qmlite.registry.qmgr import QueueManager
    from tests.support.pcfkit import command, st

    qm = QueueManager.open(tmp_path / "qm", clock=clock, synchronous="NORMAL")
    try:
        for name, topic, selector in (("ALL", "#", ""), ("REDS", "sport/#", "Team = 'Reds'")):
            params = [st(C.MQCACF_SUB_NAME, name), st(C.MQCA_TOPIC_STRING, topic),
                      st(C.MQCACF_DESTINATION, "DEV.QUEUE.1")]
            if selector:
                params.append(st(C.MQCACF_SUB_SELECTOR, selector))
            assert qm.engine.execute(command(C.MQCMD_CREATE_SUBSCRIPTION, *params))[-1].header.Reason == 0
        assert qm.engine.execute(command(C.MQCMD_CREATE_TOPIC, st(C.MQCA_TOPIC_NAME, "SPORTS"),
                                         st(C.MQCA_TOPIC_STRING, "sport")))[-1].header.Reason == 0
    finally:
        qm.shutdown()
    (tmp_path / "capture.jsonl").write_text("\n".join(decoded_lines()) + "\n")
    summary = route_job.route(spark, str(tmp_path / "capture.jsonl"), str(tmp_path / "qm"), str(tmp_path / "out"))
    assert summary["publications"] == 2 and summary["deliveries"] == 3  # ALL twice, REDS once
    assert summary["per_subscription"]["REDS"] == {"messages": 1, "bytes": 3}
    assert (tmp_path / "out" / "publications-from-capture.jsonl").exists()


def test_the_zip_shipped_to_a_cluster_holds_routing_and_what_it_imports(tmp_path):
    import subprocess
    import sys
    import zipfile

    from qmlite.pipeline.spark import qmlite_zip

    path = qmlite_zip(tmp_path / "qmlite.zip")
    names = set(zipfile.ZipFile(path).namelist())
    assert {"qmlite/__init__.py", "qmlite/registry/pubsub/routing.py", "qmlite/pcf/properties.py",
            "qmlite/pipeline/routes.py", "qmlite/registry/admin/commands/subscriptions.py"} <= names
    assert not any(n.startswith(("qmlite/server/", "qmlite/client/")) for n in names)
    # importable from the zip alone (third-party dependencies from the environment, not qmlite)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "import qmlite.registry.pubsub.routing as r, qmlite.pipeline.routes; print(r.__file__)")
    out = subprocess.run([sys.executable, "-I", "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "qmlite.zip" in out.stdout
