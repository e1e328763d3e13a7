"""scripts/bench/journal_sync.py's WAL case (decision JN11) runs against the store as it is: each group a
Create Subscription's two rows, and with room the zeros written ahead so that the timed syncs find the WAL's
size unchanged.  No timing is asserted."""

from __future__ import annotations

import os

from tests.scripts.test_bench_bounds import _load

journal_sync = _load("journal_sync")


def test_the_wal_case_writes_a_create_per_sync_and_with_room_never_grows_the_file(tmp_path, monkeypatch):
    sizes: list[int] = []
    real = journal_sync._timed_syncs

    def timed(fd, write, count):
        def write_and_look(i):
            write(i)
            sizes.append(os.fstat(fd).st_size)
        return real(fd, write_and_look, count)

    monkeypatch.setattr(journal_sync, "_timed_syncs", timed)
    p50, p90, system = journal_sync.wal_case(tmp_path, True, 40)
    assert 0 < p50 <= p90 and system >= 0
    assert len(sizes) == 40 and len(set(sizes)) == 1  # every group's frames went into the zeros
    sizes.clear()
    journal_sync.wal_case(tmp_path, False, 40)
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]  # without them the WAL grows with each group
    assert not list(tmp_path.iterdir())  # each case removes its store
