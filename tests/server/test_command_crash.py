"""PCF commands' durability, proved by SIGKILL against a real ``qmlite serve`` process.

A command is acknowledged when its response has been read: the response goes onto the reply queue
marked with the journal position of the command's effects, and an MQGET takes it only once they are
on disk.  With one connection the command's sync runs on the writer thread while the client's next
call is answered (docs/decisions.md JN10), so this is the path under test: each round sends its
commands on one connection, as PCFExecute does, and the server is killed the moment the last
response has arrived.  Every acknowledged create, change and delete must be there after the kill.
The responses are the only synchronisation: no sleeps, no timing.
"""

from __future__ import annotations

from qmlite.client.errors import MQIError
from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.storage.catalog import Registry
from tests.support.served import Served

QMGR = "QM1"
ROUNDS = 4
PER_ROUND = 12


def _ok(responses) -> None:
    assert [(r.header.CompCode, r.header.Reason) for r in responses] == [(C.MQCC_OK, 0)], responses


def _round(data_dir, commands) -> None:
    """Start the server, run ``commands`` ((command, parameters) each) on one connection, each
    acknowledged by its response, and SIGKILL the server right after the last (or reap it, when the
    round fails: no server is left behind)."""
    served = Served(data_dir)
    qm = served.connect()
    try:
        for command, parameters in commands:
            _ok(qm.pcf(command, parameters))
        served.kill()
    finally:
        Served.reap_all()
        try:
            qm.disc()
        except MQIError:
            pass


def _create(name: str) -> tuple[int, list]:
    return C.MQCMD_CREATE_SUBSCRIPTION, [P.CFST(C.MQCACF_SUB_NAME, name), P.CFST(C.MQCA_TOPIC_STRING, f"crash/{name}"),
                                         P.CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED)]


def test_sigkill_right_after_a_response_keeps_every_acknowledged_command(tmp_path):
    data_dir = tmp_path / "data"
    expected: dict[str, str] = {}  # subscription -> its user data
    deleted: set[str] = set()
    for n in range(ROUNDS):
        names = [f"CMD.CRASH.{n}.{k}" for k in range(PER_ROUND)]
        commands = [_create(name) for name in names]
        # A change and a delete of the previous round's subscriptions: each rewrites or removes two rows.
        if n:
            changed, gone = f"CMD.CRASH.{n - 1}.0", f"CMD.CRASH.{n - 1}.1"
            commands += [(C.MQCMD_CHANGE_SUBSCRIPTION, [P.CFST(C.MQCACF_SUB_NAME, changed),
                                                        P.CFST(C.MQCACF_SUB_USER_DATA, f"round {n}")]),
                         (C.MQCMD_DELETE_SUBSCRIPTION, [P.CFST(C.MQCACF_SUB_NAME, gone)])]
            expected[changed] = f"round {n}"
            del expected[gone]
            deleted.add(gone)
        _round(data_dir, commands)
        expected.update({name: "" for name in names})

        reg = Registry.open(data_dir, QMGR)  # what the killed server left, as a restart loads it
        try:
            for name, user_data in expected.items():
                sub = reg.subs.get(name)
                assert sub is not None, f"round {n}: acknowledged {name} lost"
                assert sub.user_data.rstrip() == user_data, name
                assert sub.destination in reg.queues, f"{name}'s managed queue lost"
            assert not deleted & set(reg.subs), f"round {n}: an acknowledged delete came back"
        finally:
            reg.close()
