"""A class-data-sharing archive for the Spark driver's JVM (issue 35): Spark's classes mapped, not parsed.

A cold ``qmlite pipeline route`` starts a fresh JVM, which reads, parses and verifies the thousands of
classes Spark, Hadoop, Parquet and Jackson load.  Java 17's dynamic AppCDS archive holds them as they
were after loading: the first job run with a new installation writes one at its JVM's exit
(``-XX:ArchiveClassesAtExit``), later jobs map it (``-XX:SharedArchiveFile``).

* Where: ``$QMLITE_CACHE_DIR/spark-cds``, else ``$XDG_CACHE_HOME/qmlite/spark-cds``, else
  ``~/.cache/qmlite/spark-cds``.  ``QMLITE_SPARK_CDS=0`` turns the archive off (neither used nor written).
* Named for what it was made from: the java executable, Spark's jars, the classpath's settings and the
  JVM options (``key``).  A new JDK or Spark is a new name, so a stale archive is never asked for; the JVM
  checks again itself and runs without an archive that does not match its classpath or build.
* A missing, unreadable or corrupt archive never fails a job: the JVM's ``-Xshare:auto`` (its default)
  runs without it.  The archive is dumped to a file of its own (``*.part``) and renamed into place only
  after the JVM has exited, so a job never maps a half-written archive; a killed run leaves a ``.part``
  that a later creation removes.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import pathlib
import shutil
import time

SUFFIX = ".jsa"
PART = ".part"
_STALE_PART = 3600.0  # a .part older than this belongs to a run that died before its JVM exited
_QUIET = ("-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off")  # the JVM's CDS warnings are ours to handle


def cache_dir() -> pathlib.Path:
    root = os.environ.get("QMLITE_CACHE_DIR")
    if root:
        return pathlib.Path(root) / "spark-cds"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(pathlib.Path.home() / ".cache")
    return pathlib.Path(xdg) / "qmlite" / "spark-cds"


def enabled() -> bool:
    return os.environ.get("QMLITE_SPARK_CDS", "1").strip().lower() not in ("0", "off", "no", "false")


def _java() -> pathlib.Path | None:
    """The java Spark's launcher runs (bin/spark-class: $JAVA_HOME/bin/java, else java on PATH)."""
    home = os.environ.get("JAVA_HOME")
    found = pathlib.Path(home) / "bin" / "java" if home else shutil.which("java")
    return pathlib.Path(found).resolve() if found and pathlib.Path(found).exists() else None


def _stamp(path: pathlib.Path) -> str:
    st = path.stat()
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def key(spark_home: pathlib.Path, java: pathlib.Path, options: str) -> str:
    """The archive's name: a digest of everything that decides which classes the JVM loads from where."""
    h = hashlib.sha256()
    h.update(_stamp(java).encode())
    jars = spark_home / "jars"
    for jar in sorted(jars.glob("*.jar")) if jars.is_dir() else ():
        h.update(_stamp(jar).encode())
    for name in ("SPARK_HOME", "SPARK_CONF_DIR", "SPARK_DIST_CLASSPATH", "HADOOP_CONF_DIR", "SPARK_CLASSPATH"):
        h.update(f"{name}={os.environ.get(name, '')}\n".encode())
    h.update(str(spark_home.resolve()).encode())
    h.update(options.encode())
    return h.hexdigest()[:32]


def _spark_home() -> pathlib.Path | None:
    try:
        from pyspark.find_spark_home import _find_spark_home
    except ImportError:  # pragma: no cover - depends on the installation
        return None
    try:
        return pathlib.Path(_find_spark_home())
    except Exception:  # pragma: no cover - a broken installation fails later, in Spark's own words
        return None


class Archive:
    """The CDS options for one session's driver JVM, and the archive's completion after it exits."""

    def __init__(self, options: str) -> None:
        self.path: pathlib.Path | None = None  # the archive this JVM maps
        self.part: pathlib.Path | None = None  # the archive this JVM writes at its exit
        self.final: pathlib.Path | None = None  # this installation's archive, there or not
        self.flags: list[str] = []
        if not enabled():
            return
        home, java = _spark_home(), _java()
        if home is None or java is None:
            return
        where = cache_dir()
        name = key(home, java, options)
        self.final = final = where / (name + SUFFIX)
        if '"' in str(where) or "\\" in str(where):
            return  # not expressible in spark.driver.extraJavaOptions: no archive rather than a broken JVM
        try:
            if final.is_file() and final.stat().st_size > 0:
                self.path = final
                self.flags = [_quoted(f"-XX:SharedArchiveFile={final}"), *_QUIET]
                return
            where.mkdir(parents=True, exist_ok=True)
            _remove_dead_parts(where)
            self.part = where / f"{name}.{os.getpid()}{PART}"
            self.part.unlink(missing_ok=True)
        except OSError:
            self.part = None  # a cache directory we cannot write: no archive, the job runs as before
            return
        self.flags = [_quoted(f"-XX:ArchiveClassesAtExit={self.part}"), *_QUIET]

    def java_options(self) -> str:
        return " ".join(self.flags)

    def finish_at_exit(self, gateway) -> None:
        """Have the archive written and renamed into place when this Python process ends: the JVM
        dumps its classes as it exits, which PySpark's gateway does when its standard input closes.
        ``gateway``: the one this session launched (None when the JVM was running already)."""
        proc = getattr(gateway, "proc", None)
        if self.part is None or proc is None:  # nothing to write, or a JVM not started with these options
            return
        atexit.register(_complete, proc, self.part, self.final)


def _quoted(option: str) -> str:
    return f'"{option}"' if any(c.isspace() for c in option) else option


def _complete(proc, part: pathlib.Path, final: pathlib.Path, timeout: float = 120.0) -> None:
    try:
        if proc.stdin is not None:
            proc.stdin.close()  # PythonGatewayServer exits on EOF of its input: System.exit dumps the archive
        proc.wait(timeout=timeout)
    except Exception:
        return  # still running or gone oddly: the .part is left for a later creation to remove
    try:
        if proc.returncode == 0 and part.is_file() and part.stat().st_size > 0:
            os.replace(part, final)
        else:
            part.unlink(missing_ok=True)
    except OSError:
        pass


def _remove_dead_parts(where: pathlib.Path) -> None:
    now = time.time()
    for part in where.glob("*" + PART):
        try:
            pid = int(part.name.rsplit(".", 2)[-2])
        except ValueError:
            pid = 0
        try:
            if not _alive(pid) or now - part.stat().st_mtime > _STALE_PART:
                part.unlink()
        except OSError:
            pass


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
