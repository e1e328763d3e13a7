"""registry/channels/monitoring.py: the indicators' pairs, XQTIME from an MQMD's put stamp, one
statistics interval's counts."""

from __future__ import annotations

from qmlite.pcf import mqi as S
from qmlite.registry.channels import monitoring as MON
from qmlite.registry.objects.definitions import put_stamp


def test_an_indicator_is_not_available_until_measured_then_short_follows_faster_than_long():
    indicator = MON.Indicator()
    assert indicator.pair() == (MON.NOT_AVAILABLE, MON.NOT_AVAILABLE)
    indicator.add(1000)
    assert indicator.pair() == (1000, 1000)  # the first sample sets both
    indicator.add(3000)
    short, long = indicator.pair()
    assert (short, long) == (2000, 1062)  # weights 1/2 and 1/32


def test_put_epoch_reads_put_stamp_back_to_the_hundredth():
    now = 1_790_000_123.456
    assert abs(MON.put_epoch(*put_stamp(now)) - now) < 0.01
    assert MON.put_epoch("2026130", "12000000") is None  # not a date
    assert MON.put_epoch("20261129", "12:00:00") is None  # not HHMMSSTH


def test_a_message_got_counts_and_measures_its_wait():
    measures = MON.Measures()
    put_date, put_time = put_stamp(1_790_000_000.0)
    MON.message_got(measures, S.MQMD(PutDate=put_date, PutTime=put_time), 500, 1_790_000_002.5)
    assert measures.xq_time.pair() == (2_500_000, 2_500_000)
    assert (measures.interval.msgs, measures.interval.total_bytes) == (1, 500)
    MON.message_got(measures, S.MQMD(PutDate="", PutTime=""), 100, 1_790_000_003.0)  # no stamp: counted only
    assert measures.xq_time.pair() == (2_500_000, 2_500_000) and measures.interval.msgs == 2


def test_an_interval_counts_batches_and_round_trips_and_starts_again_when_taken():
    measures = MON.Measures()
    MON.batch_ended(measures, 50, full=True)
    MON.batch_ended(measures, 7, full=False)
    MON.batch_ended(measures, 0, full=False)  # an empty batch is no batch
    for seconds in (0.003, 0.001, 0.002):
        MON.round_trip(measures, seconds)
    done = measures.take_interval()
    assert (done.full_batches, done.incomplete_batches, done.avg_batch_size) == (1, 1, 28)
    assert (done.net_min, done.net_avg, done.net_max) == (1000, 2000, 3000)
    assert not measures.interval.active and done.active
    measures.restart()
    assert measures.net_time.pair() == (MON.NOT_AVAILABLE, MON.NOT_AVAILABLE)
