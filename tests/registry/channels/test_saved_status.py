"""SAVED channel status (docs/decisions.md MCA26): read from the channel's synchronisation records, so a
batch left in doubt by a crash shows in DISPLAY CHSTATUS SAVED after the restart (INDOUBT, its own
CURSEQNO and CURLUWID, the last committed batch's LSTSEQNO and LSTLUWID) until RESOLVE CHANNEL settles it.
The two ends are driven as test_channel_ends.py drives them (no sockets)."""

from __future__ import annotations

from qmlite.registry.mqsc import run_mqsc
from qmlite.registry.qmgr import QueueManager
from tests.registry.channels.test_channel_ends import CHANNEL, pair  # noqa: F401  (the fixture)
from tests.registry.storage.test_journal import abandon


def _saved(qm) -> dict:
    (result,) = run_mqsc(qm, f"DISPLAY CHSTATUS({CHANNEL}) SAVED")
    assert len(result.objects) == 1, result.text
    return result.objects[0]


def test_a_batch_in_doubt_shows_in_saved_status_across_a_crash_until_resolved(pair):  # noqa: F811
    (result,) = run_mqsc(pair.qm1, f"DISPLAY CHSTATUS({CHANNEL}) SAVED")
    assert result.objects == [] and result.text[0].startswith("AMQ8420I")  # no batch yet: nothing saved
    pair.put(b"a", b"b", b"c")
    pair.send_batch()  # BATCHSZ(3): numbers 1-3 committed at both ends
    first = pair.sender.status.last_luwid.hex().upper()
    pair.put(b"d", b"e")
    pair.send_batch(stop_at="received")  # the receiver committed 4-5; the sender never heard
    doubtful = pair.sender.status.current_luwid.hex().upper()
    assert doubtful != first
    for qm in (pair.qm1, pair.qm2):
        abandon(qm.registry.store)
    pair.qm1 = QueueManager.open(pair.dirs[0], "QM1", synchronous="NORMAL")
    pair.qm2 = QueueManager.open(pair.dirs[1], "QM2", synchronous="NORMAL")

    saved = _saved(pair.qm1)
    assert (saved["INDOUBT"], saved["CURSEQNO"], saved["CURLUWID"]) == ("YES", "5", doubtful)
    assert (saved["LSTSEQNO"], saved["LSTLUWID"], saved["STATUS"], saved["CHLTYPE"]) == ("3", first, "INACTIVE", "SDR")
    received = _saved(pair.qm2)  # the receiver's record: the batch it committed
    assert (received["INDOUBT"], received["LSTSEQNO"], received["LSTLUWID"]) == ("NO", "5", doubtful)
    (current,) = run_mqsc(pair.qm1, f"DISPLAY CHSTATUS({CHANNEL})")
    assert current.objects == []  # saved, not current: the channel has not run since the restart

    (result,) = run_mqsc(pair.qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)")
    assert result.completion_code == 0, result.text
    saved = _saved(pair.qm1)
    assert (saved["INDOUBT"], saved["CURSEQNO"], saved["LSTSEQNO"], saved["LSTLUWID"]) == ("NO", "5", "5", doubtful)
