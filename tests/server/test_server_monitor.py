"""The server's resource-usage clock (server/monitor.py) on trio's autojump clock: the metadata is
retained from start-up, and one publication goes out every ``monitor_interval`` seconds."""

from __future__ import annotations

import pathlib

import pytest
import trio

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.server import config
from tests.support.rawfap import running_server

ROOT = "$SYS/MQ/INFO/QMGR/QM1/Monitor"


def _subscribe(qm, session, topic):
    sd = S.MQSD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED, ObjectString=S.MQCHARV(topic))
    return qm.subscribe(session, sd, 0)[2]


def _depth(qm, session, hobj) -> int:
    return qm.registry.messages.depth(session.handles[hobj].name)


async def test_publishes_every_interval(tmp_path, autojump_clock):
    async with running_server(tmp_path, monitor_interval=5.0) as server:
        qm = server.qm
        session = qm.connect("QM1", user="admin", admin=True)
        classes = _subscribe(qm, session, f"{ROOT}/METADATA/CLASSES")
        assert _depth(qm, session, classes) == 1  # retained since the server started
        usage = _subscribe(qm, session, f"{ROOT}/STATMQI/OPENCLOSE")
        await trio.sleep(12)
        assert _depth(qm, session, usage) == 2  # at 5 s and 10 s
        await trio.sleep(5)
        assert _depth(qm, session, usage) == 3
        qm.disconnect(session, commit=True)


def test_monitor_interval_setting(tmp_path):
    assert config.load(environ={}).monitor_interval == 10.0  # IBM's interval
    assert config.load(environ={}, overrides={"monitor_interval": 2.5}).monitor_interval == 2.5
    settings = pathlib.Path(tmp_path / "qmlite.toml")
    settings.write_text("monitor_interval = 30\n")
    assert config.load(environ={}, config_file=settings).monitor_interval == 30
    for bad in (0, -1, "ten"):
        with pytest.raises(config.ConfigError):
            config.load(environ={}, overrides={"monitor_interval": bad})
