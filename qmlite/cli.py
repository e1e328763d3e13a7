"""The ``qmlite`` command: ``serve`` runs the queue manager, ``decode`` explains MQ bytes, ``runmqsc``,
``dspmq`` and ``setmqaut`` administer it as IBM's control commands do (qmlite/control.py)."""

from __future__ import annotations

import argparse
import gc
import json
import pathlib
import sys


def _serve(args: argparse.Namespace) -> int:
    from qmlite.server import app, config

    try:
        cfg = config.load(
            config_file=args.config,
            overrides={"host": args.host, "port": args.port, "data_dir": args.data_dir,
                       **_qmgr_overrides(args),
                       "publish_exit": args.publish_exit, "monitor_interval": args.monitor_interval,
                       "http_port": args.http_port, "http_host": args.http_host, "tls_cert": args.tls_cert,
                       "mqtt_port": args.mqtt_port,
                       "tls_key": args.tls_key, "mqsc_files": args.mqsc, "mqsc_dir": args.mqsc_dir,
                       "mqsc_strict": args.strict or None, "pki_dir": args.pki_dir, "clock": args.clock,
                       "max_connections": args.max_connections, "opening_timeout": args.opening_timeout,
                       "http_max_body": args.http_max_body, "error_log_size": args.error_log_size},
        )
    except config.ConfigError as exc:
        print(f"qmlite: {exc}", file=sys.stderr)
        return 2
    return app.run(cfg, log_json=args.log_json, log_level=args.log_level)


def _qmgr_overrides(args: argparse.Namespace) -> dict:
    """``--qmgr QM1 --qmgr QM2``: the first is the default queue manager, the others are hosted beside it;
    ``--create-on-connect PATTERN`` creates a queue manager when an MQCONN names one (docs/multiqm.md)."""
    names = args.qmgr or []
    return {"qmgr_name": names[0] if names else None, "qmgrs": tuple(names[1:]) or None,
            "create_on_connect": args.create_on_connect, "max_qmgrs": args.max_qmgrs,
            "create_rate": args.create_rate}
def _tls_init(args: argparse.Namespace) -> int:
    from qmlite.keys import testpki as pki

    made = pki.init(args.dir, qmgr=args.qmgr, user=args.user, password=args.password,
                    extra_labels=tuple(args.label))
    print(json.dumps({"ca": str(made.ca_crt), "qmgr_key_repository": made.qmgr_stem, "qmgr_label": made.qmgr_label,
                      "client_key_repository": made.client_stem, "client_label": made.client_label,
                      "pki_dir": str(made.pki_dir), "qmgr_dn": made.qmgr_dn, "client_dn": made.client_dn,
                      "extra_labels": {k: str(v[0]) for k, v in made.extra.items()}}, indent=2))
    return 0


def _decode(args: argparse.Namespace) -> int:
    from qmlite.pcf import decode

    if args.file == "-":
        raw = sys.stdin.buffer.read()
    else:
        try:
            raw = pathlib.Path(args.file).read_bytes()
        except OSError as exc:
            print(f"qmlite: {exc}", file=sys.stderr)
            return 2
    if args.hex:
        try:
            raw = decode.parse_hex(raw.decode("ascii", "replace"))
        except ValueError as exc:
            print(f"qmlite: not hex: {exc}", file=sys.stderr)
            return 2
    ok = True
    for obj in decode.decode_objects(raw, kind=args.kind):
        print(json.dumps(obj, ensure_ascii=False))
        ok = ok and not decode.has_error(obj)
    return 0 if ok else 1


def _pipeline_route(args: argparse.Namespace) -> int:
    try:
        from qmlite.pipeline import route_job, spark
    except ImportError as exc:  # pragma: no cover - depends on the installation
        print(f"qmlite: the pipeline needs the spark extra (pip install '.[spark]' in qmlite's repository): {exc}",
              file=sys.stderr)
        return 2
    from qmlite.pipeline.routes import PublicationError
    from qmlite.registry.storage.definitionsblob import SnapshotError
    from qmlite.registry.storage.sqlite import StoreError

    try:  # what can be wrong before a JVM is started is reported before one is
        registry = route_job.load_registry(args.registry)  # the job routes with this one: loaded once
        if not pathlib.Path(args.publications).exists():
            raise OSError(f"{args.publications} does not exist")
    except (SnapshotError, StoreError, OSError) as exc:
        print(f"qmlite: {exc}", file=sys.stderr)
        return 2
    from qmlite.pipeline import load, progress, report

    session = spark.session(args.master, driver_memory=args.driver_memory)
    try:
        with progress.Progress(session.sparkContext, label="route"):
            summary = route_job.route(session, args.publications, registry, args.out)
        page = report.write_report(summary, pathlib.Path(args.out))
        done = load.run(args, args.out)
    except (PublicationError, SnapshotError, StoreError, OSError, ValueError) as exc:
        print(f"qmlite: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a failure inside Spark (a row an executor could not route, ...)
        print(f"qmlite: the Spark job failed: {_first_line(exc)}", file=sys.stderr)
        return 2
    finally:
        session.stop()
    line = {k: summary[k] for k in ("publications", "deliveries", "publications_not_received")}
    line["report"] = str(page)
    for name, what in done.items():  # --load / --replay: what was put, or where it stopped
        line[name] = {k: what[k] for k in ("ok", "puts", "commits", "error") if k in what}
    print(json.dumps(line))
    return 0 if all(what.get("ok", True) for what in done.values()) else 1


def _first_line(exc: BaseException) -> str:
    """The line of a Spark failure that says what went wrong: a Python error raised on an executor
    (``PublicationError: row 7: no topic``) is quoted inside the JVM's long report."""
    text = str(exc)
    for line in text.splitlines():
        if "PublicationError:" in line or "Error:" in line and "py4j" not in line:
            return line.strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


def _pipeline_diff(args: argparse.Namespace) -> int:
    from qmlite.pipeline import route_job, spark
    from qmlite.pipeline.routes import PublicationError
    from qmlite.registry.storage.definitionsblob import SnapshotError
    from qmlite.registry.storage.sqlite import StoreError

    try:  # a bad registry is reported before a JVM is started
        route_job.load_registry(args.before)
        route_job.load_registry(args.after)
    except (SnapshotError, StoreError, OSError) as exc:
        print(f"qmlite: {exc}", file=sys.stderr)
        return 2
    session = spark.session(args.master, driver_memory=args.driver_memory)
    try:
        result = route_job.diff(session, args.publications, args.before, args.after, args.out)
    except (PublicationError, SnapshotError, StoreError, OSError) as exc:
        print(f"qmlite: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a failure inside Spark
        print(f"qmlite: the Spark job failed: {_first_line(exc)}", file=sys.stderr)
        return 2
    finally:
        session.stop()
    print(json.dumps({k: result[k] for k in ("publications", "added", "removed", "changed")}))
    return 0


class _Version(argparse.Action):
    """``qmlite --version``: qmlite's version and the IBM MQ level it presents to clients, imported
    only when asked (the levels live with the code that presents them)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def version_text() -> str:
    from qmlite import __version__
    from qmlite.pcf import product

    return (f"qmlite {__version__} (presents IBM MQ {product.VRMF}: command level {product.COMMAND_LEVEL}, "
            f"FAP level {product.FAP_LEVEL})")


def build_parser(*, only_serve: bool = False) -> argparse.ArgumentParser:
    """Every command's parser; ``only_serve``: the ``serve`` command's alone, for ``qmlite serve ...``,
    which then imports none of the other commands' modules (control, trace, the pipeline's: ~15 ms of a
    start, issue 24)."""
    parser = argparse.ArgumentParser(prog="qmlite", description=__doc__)
    parser.add_argument("--version", action=_Version, help="print the version and the MQ level presented, then exit")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_serve(sub)
    if only_serve:
        return parser
    _add_others(sub)
    return parser


def _add_serve(sub) -> None:
    serve = sub.add_parser("serve", help="run the queue manager")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="TCP port (default 1414)")
    serve.add_argument("--qmgr", action="append",
                       help="queue manager name (default QM1, or MQ_QMGR_NAME); repeat it to host several "
                            "behind one port, the first being the default (docs/multiqm.md)")
    serve.add_argument("--create-on-connect", metavar="PATTERN",
                       help="create a queue manager when an authenticated MQCONN names one matching PATTERN "
                            "(* and ?), e.g. 'TEST*' or '*'")
    serve.add_argument("--max-qmgrs", type=int, metavar="N",
                       help="queue managers hosted at most, the default included (default 100; 0: no limit); "
                            "MQCONN then answers 2059 instead of creating one")
    serve.add_argument("--create-rate", type=int, metavar="N",
                       help="queue managers MQCONNs may create per minute (default 60; 0: no limit)")
    serve.add_argument("--data-dir", type=pathlib.Path, help="where the registry lives (default ./data)")
    serve.add_argument("--config", type=pathlib.Path, help="TOML settings file")
    serve.add_argument("--publish-exit", metavar="MODULE:CALLABLE",
                       help="call this for every delivery of a publication (it may change or suppress it)")
    serve.add_argument("--monitor-interval", type=float, metavar="SECONDS",
                       help="seconds between resource-usage publications on $SYS/MQ/INFO/QMGR (default 10)")
    serve.add_argument("--max-connections", type=int, metavar="N",
                       help="client connections held at once; more are refused (default 1000, IBM's MaxChannels: "
                            "docs/compat.md)")
    serve.add_argument("--error-log-size", type=int, metavar="BYTES",
                       help="size at which <data dir>/errors/AMQERR01.LOG rotates to AMQERR02 and 03 "
                            "(qm.ini's ErrorLogSize; default 2 MiB: docs/errorlog.md)")
    serve.add_argument("--opening-timeout", type=float, metavar="SECONDS",
                       help="seconds a new connection may take from accept to its first MQCONN (TLS handshake "
                            "and ID exchange included); a client still short of it is closed (default 60: "
                            "docs/compat.md)")
    serve.add_argument("--clock", choices=("real", "virtual"),
                       help="the queue manager's clock: real (default) or virtual, moved only by the test "
                            "(SET QMLITE CLOCK, docs/mqsc.md)")
    serve.add_argument("--http-port", type=int, metavar="PORT",
                       help="serve IBM's mqweb REST API (admin and messaging) on PORT (default: off; docs/rest.md)")
    serve.add_argument("--http-host", help="address for the REST API (default: --host)")
    serve.add_argument("--mqtt-port", type=int, metavar="PORT",
                       help="give the developer objects an MQTT channel, DEV.MQTT, on PORT (IBM's is 1883; "
                            "default: none; docs/mqtt.md)")
    serve.add_argument("--tls-cert", metavar="PEM", help="certificate for https on --http-port (with --tls-key)")
    serve.add_argument("--tls-key", metavar="PEM", help="private key for https on --http-port")
    serve.add_argument("--http-max-body", type=int, metavar="BYTES",
                       help="the longest REST request body but a message put's (default 1048576; longer: 413; "
                            "a put's limit is MAXMSGL; docs/rest.md)")
    serve.add_argument("--pki-dir", metavar="DIR",
                       help="TLS keys laid out like IBM's container's /etc/mqm/pki (keys/<label>/, trust/<n>/); "
                            "default /etc/mqm/pki when it exists (docs/tls.md)")
    serve.add_argument("--mqsc", nargs="+", metavar="FILE", type=pathlib.Path,
                       help="MQSC scripts to run at start, after the default objects, in this order")
    serve.add_argument("--mqsc-dir", type=pathlib.Path, metavar="DIR",
                       help="run every *.mqsc in DIR at start, in name order (after --mqsc)")
    serve.add_argument("--strict", action="store_true",
                       help="a failing start-up MQSC command stops the start (exit 2) instead of being logged")
    serve.add_argument("--log-json", action="store_true", help="log JSON lines instead of key=value")
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.set_defaults(func=_serve)


def _add_others(sub) -> None:
    tls = sub.add_parser("tls", help="TLS helpers (docs/tls.md)")
    tls_cmds = tls.add_subparsers(dest="tls_command", required=True)
    init = tls_cmds.add_parser("init", help="make a test PKI: a CA, a queue-manager and a client certificate")
    init.add_argument("dir", type=pathlib.Path, help="directory to write into (created if missing)")
    init.add_argument("--qmgr", default="QM1", help="queue manager name (its label: ibmwebspheremq<qmgr>)")
    init.add_argument("--user", default="app", help="client user (its label: ibmwebspheremq<user>; its CN)")
    init.add_argument("--password", default="passw0rd", help="the PKCS#12 password (stashed beside each .p12)")
    init.add_argument("--label", action="append", default=[], metavar="LABEL",
                      help="an extra certificate under LABEL (for a channel's CERTLABL); repeatable")
    init.set_defaults(func=_tls_init)

    dec = sub.add_parser("decode", help="print MQ bytes (FAP segments, PCF, MQMD + message) as JSON lines")
    dec.add_argument("file", help="file to read, or - for standard input")
    dec.add_argument("--hex", action="store_true", help="the input is hex text")
    dec.add_argument("--kind", choices=["auto", "fap", "pcf", "md"], default="auto",
                     help="what the bytes are (default: detect)")
    dec.set_defaults(func=_decode)

    pipe = sub.add_parser("pipeline", help="Spark jobs over publications and registries")
    jobs = pipe.add_subparsers(dest="job", required=True)
    route = jobs.add_parser("route", help="the deliveries a queue manager would make for a set of publications")
    route.add_argument("--publications", required=True, help="JSON lines or Parquet publications")
    route.add_argument("--registry", required=True, help="a data directory (read only) or a snapshot file")
    route.add_argument("--out", required=True, help="directory for deliveries/ (Parquet) and summary.json")
    route.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    route.add_argument("--driver-memory", default="2g", help="Spark driver memory (default 2g)")
    route.set_defaults(func=_pipeline_route)
    change = jobs.add_parser("diff", help="the deliveries a change of the subscription set adds, removes or changes")
    change.add_argument("--registry", nargs=2, metavar=("BEFORE", "AFTER"), required=True,
                        help="two data directories or snapshot files")
    change.add_argument("--publications", required=True, help="JSON lines or Parquet publications")
    change.add_argument("--out", required=True, help="directory for diff/ (Parquet) and diff.json")
    change.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    change.add_argument("--driver-memory", default="2g", help="Spark driver memory (default 2g)")
    change.set_defaults(func=lambda a: _pipeline_diff(argparse.Namespace(**vars(a), before=a.registry[0],
                                                                          after=a.registry[1])))
    from qmlite import control

    control.add_parsers(sub)
    from qmlite import trace

    trace.add_parser(sub)  # qmlite trace: a live tail of the MQI calls (qmlite/trace.py)
    try:
        from qmlite.pipeline import load, registry_io
    except ImportError:  # pragma: no cover - the spark extra is not installed: serve and decode still work
        return
    load.add_arguments(route)
    registry_io.add_parser(sub)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    serving = argv[:1] == ["serve"]
    if serving:
        # Start-up makes ~35,000 long-lived objects (modules, classes, tables) and little garbage: the cyclic
        # collector would scan them over and over (~10% of the start).  server/app.py freezes what start-up
        # made and switches it back on once the queue manager listens (issue 24).
        gc.disable()
    try:
        args = build_parser(only_serve=serving).parse_args(argv)
        return args.func(args)
    finally:
        if serving:
            gc.enable()  # a start that failed, called in process (tests): the caller's collector as it was
