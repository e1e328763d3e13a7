"""pipeline.report: the summary as HTML with PNG charts, from hand-made summaries (no Spark)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("matplotlib")

from qmlite.pipeline.report import TOP, write_report  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HOUR = 1_700_000_000 // 3600 * 3600
ODD = "odd/<b>&\"'$\\nosuchcommand{$"


def _summary() -> dict:
    per_topic = {f"price/stock/{i}": {"messages": 100 - i, "bytes": (100 - i) * 10} for i in range(30)}
    # Markup, and mathtext matplotlib could not parse, in the busiest topic's name.
    per_topic[ODD] = {"messages": 1000, "bytes": 70}
    return {
        "publications": 12345,
        "deliveries": 67890,
        "publications_not_received": 321,
        "per_subscription": {"SUB.A": {"messages": 40000, "bytes": 400000},
                             "SUB.<script>": {"messages": 27890, "bytes": 278900}},
        "per_queue": {"Q.A": {"messages": 40000, "bytes": 400000}, "Q.B": {"messages": 27890, "bytes": 278900}},
        "per_topic": per_topic,
        "per_queue_per_hour": {
            "Q.A": {str(HOUR): {"messages": 30000, "bytes": 1}, str(HOUR + 3600): {"messages": 10000, "bytes": 1}},
            "Q.B": {str(HOUR): {"messages": 27890, "bytes": 1}, "None": {"messages": 5, "bytes": 1}},
        },
        "selector_hit_rates": {"SUB.A": {"publications_on_topic": 12000, "selected": 3000, "hit_rate": 0.25},
                               "SUB.<script>": {"publications_on_topic": 0, "selected": 0, "hit_rate": 0.0}},
        "fanout_by_region": {"EU": {"evaluated": 10, "matched": 4}},  # a key this report does not know
        "job_seconds": 12.5,
    }


def _pngs(html: str) -> list[str]:
    return re.findall(r'<img src="([^"]+)"', html)


def test_report_holds_the_numbers_and_valid_charts(tmp_path):
    target = write_report(_summary(), tmp_path / "out")
    assert target == tmp_path / "out" / "report.html"
    html = target.read_text(encoding="utf-8")
    for number in ("12,345", "67,890", "321", "40,000", "27,890", "5.50"):  # 5.50 = 67890 / 12345
        assert number in html, number
    images = _pngs(html)
    assert set(images) == {"fanout.png", "top_topics.png", "top_queues.png", "depth.png"}
    for name in images:
        data = (target.parent / name).read_bytes()
        assert data.startswith(PNG_MAGIC), name
        assert len(data) > 1000, name  # something was drawn


def test_top_tables_stop_at_twenty(tmp_path):
    html = write_report(_summary(), tmp_path).read_text(encoding="utf-8")
    assert "price/stock/0<" in html and f"price/stock/{TOP - 2}<" in html
    assert f"price/stock/{TOP - 1}<" not in html  # the 21st busiest topic (ODD is the first)
    assert "Top 20 of 31" in html


def test_names_are_escaped(tmp_path):
    html = write_report(_summary(), tmp_path).read_text(encoding="utf-8")
    assert "odd/&lt;b&gt;&amp;&quot;&#x27;$\\nosuchcommand{$" in html
    assert "<b>&" not in html and "<script>" not in html
    assert "SUB.&lt;script&gt;" in html


def test_selector_hit_rates_are_a_table(tmp_path):
    html = write_report(_summary(), tmp_path).read_text(encoding="utf-8")
    assert '<tr><td>SUB.A</td><td class="n">12,000</td><td class="n">3,000</td><td>25.0 %</td></tr>' in html


def test_unknown_keys_are_shown_not_refused(tmp_path):
    html = write_report(_summary(), tmp_path).read_text(encoding="utf-8")
    assert "fanout_by_region" in html and "<td>EU</td><td>evaluated=10, matched=4</td>" in html
    assert "job_seconds" in html and "12.5" in html


def test_empty_summary_has_no_charts(tmp_path):
    write_report(_summary(), tmp_path)  # an earlier report's charts in the same directory go
    summary = {"publications": 5, "deliveries": 0, "publications_not_received": 5, "per_subscription": {},
               "per_queue": {}, "per_topic": {}, "per_queue_per_hour": {}}
    html = write_report(summary, tmp_path).read_text(encoding="utf-8")
    assert _pngs(html) == []
    assert not list(tmp_path.glob("*.png"))
    assert "No deliveries." in html


def test_malformed_entries_count_as_zero(tmp_path):
    summary = {"publications": None, "per_queue": {"Q": "oops"}, "per_topic": [1, 2],
               "per_queue_per_hour": {"Q": {"x": {"messages": 1}}}}
    html = write_report(summary, tmp_path).read_text(encoding="utf-8")
    assert "<td>Q</td>" in html
    assert "depth.png" not in html  # no hour that is a number
