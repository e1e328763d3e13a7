"""``pipeline.registry_io``: export, the import job on the shared Spark session, and the command line."""

from __future__ import annotations

import argparse
import json
import pathlib

import pyarrow.parquet as pq
import pytest

from qmlite.pcf import constants as C
from qmlite.pipeline import registry_io as rio
from qmlite.registry.storage import definitionsblob
from qmlite.registry.admin.engine import Engine
from qmlite.registry.objects.definitions import Subscription
from qmlite.registry.storage.catalog import Registry
from tests.support.pcfkit import bs, command, i, st

pytest.importorskip("pyspark")

CREATE = C.MQCMD_CREATE_SUBSCRIPTION
NAME, TOPIC, DEST = C.MQCACF_SUB_NAME, C.MQCA_TOPIC_STRING, C.MQCACF_DESTINATION
CORREL, TOKEN = bs(C.MQBACF_DESTINATION_CORREL_ID, b"\x01" * 24), bs(C.MQBACF_ACCOUNTING_TOKEN, b"\x02" * 32)


def define(engine, name, *params):
    out = engine.execute(command(CREATE, st(NAME, name), *params))
    assert out[0].header.CompCode == C.MQCC_OK, out[0].header.Reason


def fresh(path: pathlib.Path) -> pathlib.Path:
    Registry.open(path, synchronous="NORMAL").close()
    return path


@pytest.fixture
def source(tmp_path):
    """A data directory with subscriptions of every kind export must carry (open, as under a server)."""
    reg = Registry.open(tmp_path / "source", synchronous="NORMAL")
    engine = Engine(reg)
    define(engine, "PRICES.ALL", st(TOPIC, "price/#"), st(DEST, "DEV.QUEUE.1"))
    define(engine, "RED.FRUIT", st(TOPIC, "price/fruit/*"), st(DEST, "DEV.QUEUE.2"),
           st(C.MQCACF_SUB_SELECTOR, "Colour = 'red'"), st(C.MQCACF_SUB_USER_DATA, "hello"), CORREL, TOKEN,
           st(C.MQCACF_APPL_IDENTITY_DATA, "ident"), i(C.MQIACF_PUB_PRIORITY, 7),
           i(C.MQIACF_PUBSUB_PROPERTIES, C.MQPSPROP_RFH2), i(C.MQIACF_SUB_LEVEL, 3),
           i(C.MQIACF_SUBSCRIPTION_SCOPE, C.MQTSCOPE_QMGR), i(C.MQIACF_VARIABLE_USER_ID, C.MQVU_FIXED_USER),
           i(C.MQIACF_WILDCARD_SCHEMA, C.MQWS_CHAR), i(C.MQIACF_REQUEST_ONLY, C.MQRU_PUBLISH_ON_REQUEST),
           i(C.MQIACF_EXPIRY, 360_000), st(C.MQCACF_SUB_USER_ID, "alice"))
    define(engine, "DEV.NEWS", st(C.MQCA_TOPIC_NAME, "DEV.BASE.TOPIC"), st(TOPIC, "news"), st(DEST, "DEV.QUEUE.3"))
    define(engine, "REMOTE", st(TOPIC, "r/x"), st(DEST, "FAR.Q"), st(C.MQCACF_DESTINATION_Q_MGR, "QM2"))
    define(engine, "MANAGED.ONE", st(TOPIC, "m/+"), i(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED))
    api_id = reg.ids.sub_id()  # a durable subscription an application made with MQSUB, as it is stored
    reg.put_sub(Subscription("APP.DURABLE", api_id, topic_string="app/t", resolved_topic="app/t",
                             destination="DEV.QUEUE.1", destination_correl_id=api_id,
                             sub_type=C.MQSUBTYPE_API, sub_user="app"))
    reg.commit()
    yield tmp_path / "source"
    reg.close()


def stored(data_dir: pathlib.Path) -> tuple[bytes, bytes]:
    """What a data directory holds: its database file and write-ahead log (-shm is SQLite's index)."""
    wal = data_dir / "qmlite.db-wal"
    return (data_dir / "qmlite.db").read_bytes(), wal.read_bytes() if wal.exists() else b""


def write_jsonl(path: pathlib.Path, lines: list) -> pathlib.Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


# ---- export ----------------------------------------------------------------------------------------
def test_export_writes_every_durable_subscription_but_the_default_one(source, tmp_path):
    assert rio.export(source, tmp_path / "subs.jsonl", "jsonl") == 6  # while the registry is open
    rows = {r["name"]: r for r in map(json.loads, (tmp_path / "subs.jsonl").read_text().splitlines())}
    assert sorted(rows) == ["APP.DURABLE", "DEV.NEWS", "MANAGED.ONE", "PRICES.ALL", "RED.FRUIT", "REMOTE"]
    assert all(list(r) == list(rio.EXPORT_FIELDS) for r in rows.values())
    red = rows["RED.FRUIT"]
    assert (red["selector"], red["destination_correl_id"], red["pub_accounting_token"], red["sub_level"],
            red["wildcard_schema"], red["expiry"], red["sub_user"]) == (
        "Colour = 'red'", "01" * 24, "02" * 32, 3, C.MQWS_CHAR, 360_000, "alice")
    assert rows["PRICES.ALL"]["destination_correl_id"] is None  # generated from the SubId
    assert rows["MANAGED.ONE"]["destination"] is None and rows["MANAGED.ONE"]["destination_class"] == C.MQDC_MANAGED
    assert (rows["APP.DURABLE"]["sub_type"], rows["PRICES.ALL"]["sub_type"]) == (C.MQSUBTYPE_API, C.MQSUBTYPE_ADMIN)
    assert rows["REMOTE"]["destination_qmgr"] == "QM2"
    assert rio.export(source, tmp_path / "subs.parquet", "parquet") == 6
    assert pq.read_table(tmp_path / "subs.parquet").to_pylist() == sorted(rows.values(), key=lambda r: r["name"])


# ---- import ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_export_import_round_trip(spark, source, tmp_path, fmt):
    exported = tmp_path / f"subs.{fmt}"
    rio.export(source, exported, fmt)
    target = fresh(tmp_path / "target")
    result = rio.import_(spark, exported, target)
    assert result.ok, [str(b) for b in result.bad]
    assert (result.rows, result.created, result.replaced) == (6, 6, 0)
    # The same definitions; the application's subscription comes back administrative, as Create makes it.
    expected = [dict(r, sub_type=C.MQSUBTYPE_ADMIN) for r in rio.export_rows(Registry.open_readonly(source))]
    reg = Registry.open_readonly(target)
    assert rio.export_rows(reg) == expected
    managed = reg.subs["MANAGED.ONE"]
    assert managed.destination.startswith("SYSTEM.MANAGED.DURABLE.") and managed.destination in reg.queues
    assert reg.subs["RED.FRUIT"].destination_correl_id == b"\x01" * 24
    assert reg.subs["PRICES.ALL"].destination_correl_id == reg.subs["PRICES.ALL"].sub_id


@pytest.fixture
def target(tmp_path):
    reg = Registry.open(tmp_path / "target", synchronous="NORMAL")
    define(Engine(reg), "EXISTING", st(TOPIC, "e/x"), st(DEST, "DEV.QUEUE.1"))
    reg.close()
    return tmp_path / "target"


def row(name, topic="t/1", dest="DEV.QUEUE.1", **more):
    return {"name": name, "topic_string": topic, "destination": dest, **more}


BAD_FILE = [
    row("DUP", "d/1"),  # 1
    row("GOOD", "g/1", "DEV.QUEUE.2", selector="Colour = 'red'"),  # 2
    row("BAD.SELECTOR", selector="Colour = = 'red'"),  # 3
    "",  # 4: a blank line is no row, but it is a line
    row("NO.QUEUE", dest="NO.SUCH.QUEUE"),  # 5
    {"name": "NO.TOPIC", "destination": "DEV.QUEUE.1"},  # 6
    row("EXISTING", "e/x"),  # 7
    row("ODD", colour="red"),  # 8
    "{not json",  # 9
    row("EXPIRY.TEXT", expiry="soon"),  # 10
    row("ZERO.EXPIRY", expiry=0),  # 11
    row("DUP ", "d/2"),  # 12: the same name (PCF strings lose trailing blanks), in another partition
]
BAD_ROWS = [  # (row, reason, parameter) of every bad row of BAD_FILE
    (3, C.MQRC_SELECTOR_SYNTAX_ERROR, C.MQCACF_SUB_SELECTOR),
    (5, C.MQRC_UNKNOWN_OBJECT_NAME, C.MQCACF_DESTINATION),
    (6, C.MQRCCF_PARM_MISSING, C.MQCA_TOPIC_STRING),
    (7, C.MQRCCF_SUB_ALREADY_EXISTS, None),
    (8, C.MQRCCF_CFST_PARM_ID_ERROR, None),
    (9, C.MQRCCF_STRUCTURE_TYPE_ERROR, None),
    (10, C.MQRCCF_CFST_PARM_ID_ERROR, C.MQIACF_EXPIRY),
    (11, C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_EXPIRY),
    (12, C.MQRCCF_SUB_ALREADY_EXISTS, C.MQCACF_SUB_NAME),
]


def test_an_import_with_bad_rows_changes_nothing_and_names_every_bad_row(spark, target, tmp_path):
    before = stored(target)
    result = rio.import_(spark, write_jsonl(tmp_path / "bad.jsonl", BAD_FILE), target)
    assert not result.ok
    assert [(b.row, b.reason, b.parameter) for b in result.bad] == BAD_ROWS
    assert (result.rows, result.created) == (11, 0)
    assert str(result.bad[0]) == "row 3: MQRC_SELECTOR_SYNTAX_ERROR (2459) parameter selector (3160)"
    assert str(result.bad[-1]) == ("row 12: MQRCCF_SUB_ALREADY_EXISTS (3311) parameter name (3152):"
                                   " the name of row 1 too")
    assert "unknown column 'colour'" in str(result.bad[4])
    assert stored(target) == before  # not one byte: the data directory was only read
    assert sorted(Registry.open_readonly(target).subs) == ["EXISTING", "SYSTEM.DEFAULT.SUB"]


def test_bad_rows_of_a_parquet_directory_are_named_by_file_and_row(spark, target, tmp_path):
    import pyarrow as pa

    folder = tmp_path / "in"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist([row("A"), row("B", dest="NOPE")]), folder / "part-0.parquet")
    pq.write_table(pa.Table.from_pylist([row("C"), row("A", "t/2")]), folder / "part-1.parquet")
    result = rio.import_(spark, folder, target)
    assert [(b.file, b.row, b.reason) for b in result.bad] == [
        ("part-0.parquet", 2, C.MQRC_UNKNOWN_OBJECT_NAME), ("part-1.parquet", 2, C.MQRCCF_SUB_ALREADY_EXISTS)]
    assert str(result.bad[1]).endswith("the name of row 1 of part-0.parquet too")
    assert "A" not in Registry.open_readonly(target).subs


def test_replace_alters_an_existing_subscription_as_create_with_replace_does(spark, target, tmp_path):
    old_id = Registry.open_readonly(target).subs["EXISTING"].sub_id
    path = write_jsonl(tmp_path / "r.jsonl", [row("EXISTING", "e/x", user_data="new"), row("NEW")])
    result = rio.import_(spark, path, target, replace=True)
    assert result.ok and (result.created, result.replaced) == (1, 1)
    reg = Registry.open_readonly(target)
    assert (reg.subs["EXISTING"].user_data, reg.subs["EXISTING"].sub_id) == ("new", old_id)
    # What cannot be altered still cannot be with Replace: the whole file is refused.
    path = write_jsonl(tmp_path / "r2.jsonl", [row("EXISTING", "e/other"), row("NEWER")])
    result = rio.import_(spark, path, target, replace=True)
    assert [(b.row, b.reason) for b in result.bad] == [(1, C.MQRC_TOPIC_NOT_ALTERABLE)]
    assert "NEWER" not in Registry.open_readonly(target).subs


def test_import_refuses_a_data_directory_in_use(spark, target, tmp_path):
    path = write_jsonl(tmp_path / "ok.jsonl", [row("NEW")])
    server = Registry.open(target, synchronous="NORMAL")  # what a running server holds
    try:
        with pytest.raises(rio.RegistryInUse):
            rio.import_(spark, path, target)
    finally:
        server.close()
    rio.check_offline(target)  # free again once closed
    assert "NEW" not in Registry.open_readonly(target).subs


def test_a_row_failing_at_apply_time_discards_every_other(target):
    """The data directory may change between the snapshot and the apply: then nothing is committed."""
    result = rio.apply_rows(target, "QM1", [("", 1, row("FIRST")), ("", 2, row("EXISTING", "e/x"))], False)
    assert [(b.row, b.reason) for b in result.bad] == [(2, C.MQRCCF_SUB_ALREADY_EXISTS)]
    assert (result.created, result.replaced) == (0, 0)
    assert "FIRST" not in Registry.open_readonly(target).subs


def test_validation_leaves_the_scratch_registry_as_it_found_it(target):
    engine = rio.scratch_engine(definitionsblob.dump(Registry.open_readonly(target)))
    reg = engine.registry
    queues, subs = set(reg.queues), dict(reg.subs)
    managed = {"name": "M", "topic_string": "m/1", "destination_class": C.MQDC_MANAGED}
    for _ in range(2):  # the second time would be SUB_ALREADY_EXISTS had the first stayed
        assert rio.validate_row(engine, managed, False) is None
    assert rio.validate_row(engine, row("EXISTING", "e/x", user_data="x"), True) is None
    assert (set(reg.queues), reg.subs) == (queues, subs)
    assert reg.subs["EXISTING"].user_data == ""


def test_rows_no_request_can_carry_are_bad_with_a_reason():
    bad = {"hex": row("H", destination_correl_id="zz"), "bool": row("B", expiry=True),
           "list": row("L", selector=["a"]), "durable": row("D", durable=C.MQSUB_DURABLE_NO),
           "proxy": row("P", sub_type=C.MQSUBTYPE_PROXY), "big": row("G", expiry=2**40), "text": "x"}
    reasons = {}
    for key, value in bad.items():
        with pytest.raises(rio.CommandError) as err:
            rio.to_request(value)
        reasons[key] = (err.value.reason, err.value.parameter)
    assert reasons == {
        "hex": (C.MQRCCF_PARM_SYNTAX_ERROR, C.MQBACF_DESTINATION_CORREL_ID),
        "bool": (C.MQRCCF_STRUCTURE_TYPE_ERROR, C.MQIACF_EXPIRY),
        "list": (C.MQRCCF_STRUCTURE_TYPE_ERROR, C.MQCACF_SUB_SELECTOR),
        "durable": (C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_DURABLE_SUBSCRIPTION),
        "proxy": (C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_SUB_TYPE),
        "big": (C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_EXPIRY),
        "text": (C.MQRCCF_STRUCTURE_TYPE_ERROR, None),
    }
    # Nulls are absent values, and a whole float is the integer Parquet written by pandas meant.
    request = rio.to_request(row("N", expiry=36000.0, selector=None, user_data=float("nan")), replace=True)
    assert [(p.parameter, p.value) for p in request.parameters][-2:] == [
        (C.MQIACF_EXPIRY, 36000), (C.MQIACF_REPLACE, C.MQRP_YES)]


# ---- the command line (in this process: one JVM for the suite) --------------------------------------
def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="qmlite")
    rio.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def summary_line(capsys) -> dict:
    """Standard output: the one-line JSON summary and nothing else (no engine log line per row)."""
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1, out
    return json.loads(out[0])


def test_the_command_line_exports_and_imports(spark, source, target, tmp_path, capsys):
    out = tmp_path / "subs.parquet"
    assert run(["registry", "export", "--data-dir", str(source), "--format", "parquet", "--out", str(out)]) == 0
    assert summary_line(capsys) == {
        "subscriptions": 6, "format": "parquet", "out": str(out)}
    assert run(["registry", "import", str(out), "--data-dir", str(tmp_path / "new")]) == 2  # no such data dir
    assert "does not exist" in capsys.readouterr().err
    clean = fresh(tmp_path / "clean")
    assert run(["registry", "import", str(out), "--data-dir", str(clean), "--master", "local[2]"]) == 0
    assert summary_line(capsys) == {
        "rows": 6, "created": 6, "replaced": 0, "bad_rows": 0}
    assert len(Registry.open_readonly(clean).subs) == 7

    before = stored(target)
    bad = write_jsonl(tmp_path / "bad.jsonl", BAD_FILE)
    assert run(["registry", "import", str(bad), "--data-dir", str(target)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if line.startswith("row ")] == [str(b) for b in rio.import_(spark, bad, target).bad]
    assert "row 5: MQRC_UNKNOWN_OBJECT_NAME (2085) parameter destination (3154)" in err
    assert err[-1] == "qmlite: 9 bad rows of 11; nothing was imported"
    assert stored(target) == before
    assert spark.range(3).count() == 3  # the command used the running session and left it running


def test_the_command_line_refuses_a_missing_data_directory_for_export(tmp_path, capsys):
    assert run(["registry", "export", "--data-dir", str(tmp_path / "none"), "--out", str(tmp_path / "x")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
