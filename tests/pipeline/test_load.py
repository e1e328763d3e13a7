"""pipeline.load: --replay and --load against a real qmlite running in this process (no Spark).

Each test defines its own queues and subscriptions (through PCF, with our client) on one server
per module, and looks at what arrived with MQGET / MQINQ."""

from __future__ import annotations

import argparse
import json
import socket

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from qmlite.client.errors import MQIError  # noqa: E402
from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from qmlite.pcf import constants as C  # noqa: E402
from qmlite.pcf import pcf as P  # noqa: E402
from qmlite.pcf import properties as PR  # noqa: E402
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD  # noqa: E402
from qmlite.pipeline import load  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("load")) as srv:
        yield srv


@pytest.fixture(scope="module")
def admin(server):
    qm = server.connect()
    yield qm
    qm.disc()


def _target(server) -> dict:
    return {"host": server.host, "port": server.port}


def define_queue(qm, name: str) -> None:
    qm.pcf(C.MQCMD_CREATE_Q, [P.CFST(C.MQCA_Q_NAME, name), P.CFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL)])


def define_sub(qm, name: str, topic: str, queue: str, *extra) -> None:
    define_queue(qm, queue)
    qm.pcf(C.MQCMD_CREATE_SUBSCRIPTION, [P.CFST(C.MQCACF_SUB_NAME, name), P.CFST(C.MQCA_TOPIC_STRING, topic),
                                         P.CFST(C.MQCACF_DESTINATION, queue), *extra])


def depth(qm, queue: str) -> int:
    hobj, _ = qm.open(MQOD(ObjectName=queue), C.MQOO_INQUIRE)
    try:
        ints, _ = qm.inq(hobj, [C.MQIA_CURRENT_Q_DEPTH], 1, 0)
    finally:
        qm.close(hobj)
    return ints[0]


def drain(qm, queue: str) -> list[tuple[MQMD, PR.Split]]:
    """Every message on ``queue`` (destructive), its properties forced into an MQRFH2 and split off."""
    hobj, _ = qm.open(MQOD(ObjectName=queue), C.MQOO_INPUT_EXCLUSIVE)
    out = []
    try:
        while True:
            gmo = MQGMO(Version=C.MQGMO_VERSION_2, MatchOptions=0,
                        Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT | C.MQGMO_PROPERTIES_FORCE_MQRFH2)
            try:
                md, _, data = qm.get(hobj, MQMD(), gmo, 1 << 20)
            except MQIError as exc:
                assert exc.reason == C.MQRC_NO_MSG_AVAILABLE, exc
                return out
            out.append((md, PR.split(data, md.Format, md.Encoding, md.CodedCharSetId)))
    finally:
        qm.close(hobj)


def write_jsonl(path, rows) -> str:
    path.write_text("".join(json.dumps(r) + "\n\n" for r in rows), encoding="utf-8")  # blank lines are skipped
    return str(path)


# --------------------------------------------------------------------------------------------------
# --replay
# --------------------------------------------------------------------------------------------------

def test_replay_publishes_through_the_online_router(server, admin, tmp_path):
    define_sub(admin, "RP.ALL", "rp/#", "RP.ALL")
    define_sub(admin, "RP.RED", "rp/#", "RP.RED", P.CFST(C.MQCACF_SUB_SELECTOR, "colour = 'red' AND n > 2"))
    path = write_jsonl(tmp_path / "pubs.jsonl", [
        {"id": "p1", "topic": "rp/a", "body": "hello", "properties": {"colour": "red", "n": 3}, "priority": 7},
        {"id": 2, "topic": "rp/b", "size": 10, "properties": {"colour": "red", "n": 2}},
        {"topic": "nobody/listens", "body": "lost"},
        {"topic": "rp/caf\u00e9", "body": "\u00fcn\u00ef", "persistence": 1},
    ])
    report = load.replay_publications(path, **_target(server), batch=3)
    assert report["ok"] and "error" not in report
    assert (report["publications"], report["no_subscribers"], report["commits"]) == (4, 1, 2)
    assert report["backed_out"] == 0 and report["truncated"] == 0

    everything = drain(admin, "RP.ALL")
    assert [s.body for _, s in everything] == [b"hello", b"." * 10, "\u00fcn\u00ef".encode()]
    first = everything[0][1].properties
    assert first["colour"].value == "red" and first["n"] == PR.Property("i8", 3)  # a JSON integer stays one
    assert [md.Persistence for md, _ in everything] == [C.MQPER_NOT_PERSISTENT] * 2 + [C.MQPER_PERSISTENT]
    red = drain(admin, "RP.RED")
    assert [(md.Priority, s.body) for md, s in red] == [(7, b"hello")]  # the selector saw n = 3 only


def test_replay_carries_the_pub_level(server, admin, tmp_path):
    define_sub(admin, "RP.LEVEL5", "lvl/#", "RP.LEVEL5", P.CFIN(C.MQIACF_SUB_LEVEL, 5))
    rows = [{"topic": "lvl/x", "body": "low", "pub_level": 4}, {"topic": "lvl/x", "body": "high"}]
    report = load.replay_publications(rows, **_target(server))
    assert (report["publications"], report["no_subscribers"]) == (2, 1)
    assert [s.body for _, s in drain(admin, "RP.LEVEL5")] == [b"high"]


def test_replay_reads_parquet_with_a_map_of_properties(server, admin, tmp_path):
    define_sub(admin, "RP.PQ", "pq/+", "RP.PQ", P.CFST(C.MQCACF_SUB_SELECTOR, "kind = 'x'"))
    table = pa.table({
        "id": [1, 2],
        "topic": ["pq/one", "pq/two"],
        "body": ["first", None],
        "size": [None, 3],
        "properties": pa.array([[("kind", "x")], [("kind", "y")]], type=pa.map_(pa.string(), pa.string())),
    })
    pq.write_table(table, tmp_path / "pubs.parquet")
    report = load.replay_publications(tmp_path / "pubs.parquet", **_target(server))
    assert report["ok"] and report["publications"] == 2
    assert [s.body for _, s in drain(admin, "RP.PQ")] == [b"first"]


def test_replay_stops_at_a_bad_row_and_backs_out_its_batch(server, admin, tmp_path):
    define_sub(admin, "RP.BAD", "bad/#", "RP.BAD")
    rows = [{"topic": "bad/1", "body": "a"}, {"topic": "bad/2", "body": "b"}, {"topic": "bad/3", "body": "c"},
            {"topic": "bad/4", "body": "d", "expiry": 0},  # MQRC_EXPIRY_ERROR
            {"topic": "bad/5", "body": "e"}]
    report = load.replay_publications(rows, **_target(server), batch=2)
    assert not report["ok"]
    assert (report["publications"], report["commits"], report["backed_out"]) == (2, 1, 1)
    assert report["error"]["row"] == 3 and report["error"]["reason"] == C.MQRC_EXPIRY_ERROR
    assert report["error"]["topic"] == "bad/4"
    assert [s.body for _, s in drain(admin, "RP.BAD")] == [b"a", b"b"]


def test_replay_reports_a_row_it_cannot_read(server, tmp_path):
    path = tmp_path / "pubs.jsonl"
    path.write_text('{"topic": "x/y", "body": "a"}\n{not json\n', encoding="utf-8")
    report = load.replay_publications(path, **_target(server))
    assert not report["ok"] and report["publications"] == 0 and report["backed_out"] == 1
    assert report["error"]["row"] == 1 and "not JSON" in report["error"]["detail"]


# --------------------------------------------------------------------------------------------------
# --load
# --------------------------------------------------------------------------------------------------

def _delivery(queue: str, correl: bytes, priority: int, size: int, **extra) -> dict:
    row = {"publication_id": f"pub-{priority}", "sub_name": "S", "sub_id": "00" * 24, "destination_queue": queue,
           "destination_qmgr": "ELSEWHERE", "correl_id": correl.hex(), "priority": priority, "persistence": 0,
           "expiry": -1, "bytes": size, "topic": "t", "timestamp": 0.0}
    row.update(extra)
    return row


def write_deliveries(root, rows) -> str:
    # As the route job writes them: Parquet partitioned by destination_queue (hive directories).
    pq.write_to_dataset(pa.Table.from_pylist(rows), str(root), partition_cols=["destination_queue"])
    return str(root)


def test_load_puts_each_delivery_on_its_queue(server, admin, tmp_path):
    define_queue(admin, "LD.A")
    define_queue(admin, "LD.B")
    correl = bytes(range(24))
    rows = [_delivery("LD.A", correl, 8, 5), _delivery("LD.A", bytes(24), 2, 0),
            _delivery("LD.B", b"\x01" * 24, 4, 300)]
    report = load.load_deliveries(write_deliveries(tmp_path / "deliveries", rows), **_target(server), batch=2)
    assert report["ok"] and report["puts"] == 3 and report["commits"] == 2
    assert report["queues"] == {"LD.A": 2, "LD.B": 1}
    assert (depth(admin, "LD.A"), depth(admin, "LD.B")) == (2, 1)
    got = drain(admin, "LD.A")  # priority order: 8 before 2
    assert [(md.CorrelId, md.Priority, md.Format.strip(), s.body) for md, s in got] == [
        (correl, 8, C.MQFMT_STRING.strip(), b"....."), (bytes(24), 2, C.MQFMT_STRING.strip(), b"")]
    [(md, split)] = drain(admin, "LD.B")
    assert md.CorrelId == b"\x01" * 24 and len(split.body) == 300


@pytest.mark.parametrize("queues", [
    {"LD/Q%1": "destination_queue=LD%2FQ%251"},  # Spark escapes '/' and '%' in a partition value
    {"123": "destination_queue=123", "007": "destination_queue=007"},  # names, not numbers
])
def test_load_reads_spark_partition_directories(server, admin, tmp_path, queues):
    for queue, directory in queues.items():
        define_queue(admin, queue)
        row = _delivery(queue, bytes(24), 5, 1)
        del row["destination_queue"]  # the directory holds it, as Spark writes it
        (tmp_path / "deliveries" / directory).mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist([row]), tmp_path / "deliveries" / directory / "part-00000.snappy.parquet")
    (tmp_path / "deliveries" / "_SUCCESS").write_bytes(b"")
    report = load.load_deliveries(tmp_path / "deliveries", **_target(server))
    assert report["ok"], report
    assert report["queues"] == {queue: 1 for queue in queues}
    assert all(depth(admin, queue) == 1 for queue in queues)


def test_load_cuts_an_oversized_body_and_counts_it(server, admin, monkeypatch):
    define_queue(admin, "LD.BIG")
    monkeypatch.setattr(load, "MAX_BODY", 16)
    report = load.load_deliveries([_delivery("LD.BIG", bytes(24), 1, 10**12)], **_target(server))
    assert report["ok"] and report["truncated"] == 1
    [(_, split)] = drain(admin, "LD.BIG")
    assert split.body == b"." * 16


def test_a_failing_put_stops_the_load_and_backs_out_its_batch(server, admin):
    define_queue(admin, "LD.F")
    rows = [_delivery("LD.F", bytes(24), 1, 1) for _ in range(4)] + [
        _delivery("NO.SUCH.QUEUE", bytes(24), 1, 1), _delivery("LD.F", bytes(24), 1, 1)]
    report = load.load_deliveries(rows, **_target(server), batch=3)
    assert not report["ok"]
    assert (report["puts"], report["commits"], report["backed_out"]) == (3, 1, 1)
    assert report["queues"] == {"LD.F": 3}
    error = report["error"]
    assert (error["row"], error["reason"], error["reason_name"]) == (4, C.MQRC_UNKNOWN_OBJECT_NAME,
                                                                     "MQRC_UNKNOWN_OBJECT_NAME")
    assert error["destination_queue"] == "NO.SUCH.QUEUE"
    assert depth(admin, "LD.F") == 3  # the first batch stays, the second is gone


def test_a_bad_row_is_reported_with_its_number(server, admin):
    define_queue(admin, "LD.ROW")
    rows = [_delivery("LD.ROW", bytes(24), 1, 1), _delivery("LD.ROW", bytes(24), 1, 1, correl_id="zz")]
    report = load.load_deliveries(rows, **_target(server))
    assert not report["ok"] and report["puts"] == 0 and report["backed_out"] == 1
    assert report["error"]["row"] == 1 and report["error"]["reason"] is None
    assert "correl_id" in report["error"]["detail"]
    assert depth(admin, "LD.ROW") == 0


def test_no_queue_manager_is_reported_not_raised():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))  # bound, not listening: nobody answers
        port = s.getsockname()[1]
        report = load.load_deliveries([_delivery("Q", bytes(24), 1, 1)], "127.0.0.1", port)
    assert not report["ok"] and report["puts"] == 0
    assert report["error"]["reason"] == C.MQRC_HOST_NOT_AVAILABLE


# --------------------------------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    parser.add_argument("--publications")
    load.add_arguments(parser)
    return parser


def test_run_loads_the_job_output_and_writes_its_report(server, admin, tmp_path):
    define_queue(admin, "LD.CLI")
    write_deliveries(tmp_path / "deliveries", [_delivery("LD.CLI", bytes(24), 3, 2)] * 3)
    args = _parser().parse_args(["--load", f"{server.host}:{server.port}", "--mq-batch", "2"])
    result = load.run(args, tmp_path)
    assert result["load"]["puts"] == 3 and result["load"]["commits"] == 2
    assert json.loads((tmp_path / "load.json").read_text())["queues"] == {"LD.CLI": 3}
    assert depth(admin, "LD.CLI") == 3


def test_run_replays_the_publications(server, admin, tmp_path):
    define_sub(admin, "RP.CLI", "cli/#", "RP.CLI")
    path = write_jsonl(tmp_path / "p.jsonl", [{"topic": "cli/x", "body": "b"}])
    args = _parser().parse_args(["--publications", path, "--replay", f"{server.host}({server.port})"])
    assert load.run(args, tmp_path)["replay"]["publications"] == 1
    assert json.loads((tmp_path / "replay.json").read_text())["ok"] is True
    assert depth(admin, "RP.CLI") == 1


def test_run_without_either_does_nothing(tmp_path):
    assert load.run(_parser().parse_args([]), tmp_path) == {}
    assert list(tmp_path.iterdir()) == []


def test_replay_needs_publications(tmp_path):
    with pytest.raises(ValueError, match="--publications"):
        load.run(_parser().parse_args(["--replay", "localhost:1414"]), tmp_path)


def test_load_and_replay_are_one_or_the_other(capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["--load", "h:1", "--replay", "h:1"])
    assert "not allowed with" in capsys.readouterr().err


@pytest.mark.parametrize("text, expected", [
    ("localhost:1414", ("localhost", 1414)), ("10.0.0.1(1415)", ("10.0.0.1", 1415)), ("[::1]:1416", ("::1", 1416))])
def test_addresses(text, expected):
    assert load.address(text) == expected


@pytest.mark.parametrize("text", ["localhost", ":1414", "h:0", "h:70000", "h:port", "h()"])
def test_bad_addresses(text):
    with pytest.raises(argparse.ArgumentTypeError):
        load.address(text)
