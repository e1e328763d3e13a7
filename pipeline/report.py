"""The route job's summary as an HTML page with PNG charts, for people who would rather look than read.

``write_report(summary, out_dir)`` writes ``out_dir/report.html`` and the charts beside it
(``fanout.png``, ``top_topics.png``, ``top_queues.png``, ``depth.png``), referenced by relative
paths so the directory can be copied or zipped as it is.  The summary is the dict
``pipeline.route_job.summarize`` returns (``summary.json``); keys it does not know are shown as plain
tables rather than refused, so the summary can grow without this module changing first.

The charts are drawn with matplotlib's object API (``Figure``), never ``pyplot``: no global backend
or figure registry is touched, so it works headless and in a process that already uses matplotlib.
"""

from __future__ import annotations

import datetime as _dt
import heapq
import html
import math
from pathlib import Path

TOP = 20  # bars in the top topics / queues charts and rows in their tables
DEPTH_QUEUES = 10  # lines in the depth-over-time chart
LABEL_CHARS = 48  # longer names are shortened on the charts (the tables keep them whole)
GENERIC_ROWS = 50  # rows shown of a summary key this module does not know

CHARTS = {"fanout.png", "top_topics.png", "top_queues.png", "depth.png"}
_KNOWN = {"publications", "deliveries", "publications_not_received", "per_subscription", "per_queue",
          "per_topic", "per_queue_per_hour", "selector_hit_rates"}


def write_report(summary: dict, out_dir: Path) -> Path:
    """Write ``report.html`` and its PNG charts into ``out_dir``; returns the HTML file's path."""
    import matplotlib  # here, not at the top: the module imports (and its helpers run) without it

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    per_sub = _counts(summary.get("per_subscription"))
    per_queue = _counts(summary.get("per_queue"))
    per_topic = _counts(summary.get("per_topic"))
    hourly = _hourly(summary.get("per_queue_per_hour"))

    charts = _Charts(out_dir)
    # Names are data, not markup: a '$' in a topic must not switch matplotlib into mathtext.  Text
    # objects read this setting when they are made, so it covers drawing as well as saving.
    with matplotlib.rc_context({"text.parse_math": False}):
        fanout = charts.fanout(per_sub, per_topic)
        topics = charts.top("top_topics.png", per_topic, "Top topics by deliveries")
        queues = charts.top("top_queues.png", per_queue, "Top queues by deliveries")
        depth = charts.depth(per_queue, hourly)
    for name in CHARTS - {fanout, topics, queues, depth}:
        (out_dir / name).unlink(missing_ok=True)  # a chart of an earlier report in this directory

    publications = _int(summary.get("publications"))
    deliveries = _int(summary.get("deliveries"))
    headline = [
        ("Publications", _fmt(publications)),
        ("Deliveries", _fmt(deliveries)),
        ("Publications nobody receives", _fmt(_int(summary.get("publications_not_received")))),
        ("Mean deliveries per publication", f"{deliveries / publications:.2f}" if publications else "-"),
        ("Subscriptions that receive something", _fmt(len(per_sub))),
        ("Destination queues", _fmt(len(per_queue))),
        ("Distinct topics delivered", _fmt(len(per_topic))),
        ("Bytes delivered", _fmt(sum(b for _, b in per_queue.values()))),
    ]
    extra_scalars = [(str(k), _scalar(v)) for k, v in sorted(summary.items(), key=lambda kv: str(kv[0]))
                     if k not in _KNOWN and not isinstance(v, (dict, list))]

    parts = [_HEAD, "<h1>qmlite pipeline: routing summary</h1>",
             _table(["", ""], headline + extra_scalars, header=False),
             "<h2>Fan-out</h2>", _img(fanout, "fan-out histograms", "No deliveries."),
             "<h2>Topics</h2>", _img(topics, "top topics", "No deliveries."),
             _ranked_table("Topic", per_topic),
             "<h2>Queues</h2>", _img(queues, "top queues", "No deliveries."),
             _ranked_table("Queue", per_queue),
             "<h2>Depth over time</h2>",
             "<p>Messages each queue would hold at the end of each hour if nobody consumed them.</p>",
             _img(depth, "depth over time", "No timestamps to chart."),
             "<h2>Subscriptions</h2>", _ranked_table("Subscription", per_sub),
             "<h2>Selector hit rates</h2>", _selectors(summary.get("selector_hit_rates"))]
    for key in sorted((k for k, v in summary.items() if k not in _KNOWN and isinstance(v, (dict, list))), key=str):
        parts += [f"<h2>{_e(key)}</h2>", _generic(summary[key])]
    parts.append("</body></html>\n")
    target = out_dir / "report.html"
    target.write_text("\n".join(parts), encoding="utf-8")
    return target


# -- reading the summary (tolerantly: it is JSON that may have been edited or grown) --------------

def _int(value) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _counts(mapping) -> dict[str, tuple[int, int]]:
    """name -> (messages, bytes) of a per_* key; anything malformed counts as zero."""
    if not isinstance(mapping, dict):
        return {}
    out = {}
    for name, item in mapping.items():
        item = item if isinstance(item, dict) else {}
        out[str(name)] = (_int(item.get("messages")), _int(item.get("bytes")))
    return out


def _hourly(mapping) -> dict[str, list[tuple[float, int]]]:
    """queue -> [(epoch seconds of the hour, messages)] sorted by time; keys that are not numbers
    (a publication without a timestamp) are left out of the chart."""
    out: dict[str, list[tuple[float, int]]] = {}
    if not isinstance(mapping, dict):
        return out
    for queue, hours in mapping.items():
        points = []
        for hour, item in (hours.items() if isinstance(hours, dict) else ()):
            try:
                when = float(hour)
            except (TypeError, ValueError):
                continue
            if math.isfinite(when):
                points.append((when, _int(item.get("messages") if isinstance(item, dict) else 0)))
        if points:
            out[str(queue)] = sorted(points)
    return out


def _ranked(counts: dict[str, tuple[int, int]], n: int) -> list[tuple[str, int, int]]:
    # Ties broken by name so the same summary always draws the same chart.  The n first of 100k
    # topics without sorting them all.
    return [(name, m, b) for name, (m, b) in heapq.nsmallest(n, counts.items(), key=lambda kv: (-kv[1][0], kv[0]))]


# -- HTML ---------------------------------------------------------------------------------------

_HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>qmlite pipeline report</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 70em; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; }
</style></head><body>"""


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _fmt(n: int) -> str:
    return f"{n:,}"


def _scalar(value) -> str:
    return _fmt(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _table(columns: list[str], rows, header: bool = True) -> str:
    lines = ["<table>"]
    if header:
        lines.append("<tr>" + "".join(f"<th>{_e(c)}</th>" for c in columns) + "</tr>")
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            numeric = i > 0 and isinstance(cell, str) and cell.replace(",", "").replace(".", "").isdigit()
            cells.append(f'<td class="n">{_e(cell)}</td>' if numeric else f"<td>{_e(cell)}</td>")
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _ranked_table(what: str, counts: dict[str, tuple[int, int]]) -> str:
    if not counts:
        return "<p>None.</p>"
    rows = [(name, _fmt(m), _fmt(b)) for name, m, b in _ranked(counts, TOP)]
    note = f"<p>Top {TOP} of {_fmt(len(counts))}.</p>" if len(counts) > TOP else ""
    return _table([what, "Messages", "Bytes"], rows) + note


def _selectors(value) -> str:
    """Subscriptions with a selector: how many publications on their topics it saw and selected."""
    if not isinstance(value, dict) or not value:
        return "<p>No subscription with a selector received a candidate.</p>"
    rows = []
    for name, item in value.items():
        item = item if isinstance(item, dict) else {}
        offered, selected = _int(item.get("publications_on_topic")), _int(item.get("selected"))
        rows.append((str(name), offered, selected))
    rows.sort(key=lambda r: (-r[1], r[0]))  # the selectors evaluated most first
    shown = [(name, _fmt(o), _fmt(h), f"{100 * h / o:.1f} %" if o else "-") for name, o, h in rows[:GENERIC_ROWS]]
    note = f"<p>{GENERIC_ROWS} of {_fmt(len(rows))}, most evaluated first.</p>" if len(rows) > GENERIC_ROWS else ""
    return _table(["Subscription", "Publications on its topics", "Selected", "Hit rate"], shown) + note


def _generic(value) -> str:
    """A summary key this module does not know: one row per entry, nested values as compact text."""
    items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
    rows = [(str(k), _compact(v)) for k, v in items[:GENERIC_ROWS]]
    more = f"<p>{_fmt(len(items) - GENERIC_ROWS)} more not shown.</p>" if len(items) > GENERIC_ROWS else ""
    return _table(["Name", "Value"], rows) + more


def _compact(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={_compact(v)}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:.4g}"
    return _scalar(value)


def _img(name: str | None, alt: str, missing: str) -> str:
    if name is None:
        return f"<p>{_e(missing)}</p>"
    return f'<p><img src="{_e(name)}" alt="{_e(alt)}"></p>'


# -- charts -------------------------------------------------------------------------------------

def _short(name: str) -> str:
    return name if len(name) <= LABEL_CHARS else name[:LABEL_CHARS - 1] + "\u2026"


class _Charts:
    """Each method writes one PNG into the directory and returns its file name (None: no data)."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir

    def _save(self, fig, name: str) -> str:
        fig.savefig(self.out_dir / name, format="png", dpi=100)
        return name

    @staticmethod
    def _figure(width: float, height: float):
        from matplotlib.figure import Figure

        return Figure(figsize=(width, height), layout="constrained")

    def fanout(self, per_sub, per_topic) -> str | None:
        if not per_sub and not per_topic:
            return None
        import numpy  # matplotlib's own dependency
        from matplotlib.ticker import MaxNLocator

        fig = self._figure(11, 4)
        left, right = fig.subplots(1, 2)
        for ax, counts, what in ((left, per_sub, "subscription"), (right, per_topic, "topic")):
            # An array, not a list: matplotlib converts a list of 100k numbers one by one (0.5 s).
            values = numpy.fromiter((m for m, _ in counts.values()), dtype=numpy.int64, count=len(counts))
            if values.size:
                ax.hist(values, bins=min(50, max(1, len(numpy.unique(values)))), color="#4472c4",
                        edgecolor="white")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of subscriptions or topics
            ax.set_xlabel(f"messages per {what}")
            ax.set_ylabel(f"{what}s")
            ax.set_title(f"Deliveries per {what}")
        return self._save(fig, "fanout.png")

    def top(self, name: str, counts, title: str) -> str | None:
        ranked = _ranked(counts, TOP)
        if not ranked:
            return None
        fig = self._figure(10, 1.2 + 0.35 * len(ranked))
        ax = fig.subplots()
        ranked.reverse()  # barh draws bottom-up: the largest goes on top
        positions = range(len(ranked))
        ax.barh(positions, [m for _, m, _ in ranked], color="#4472c4")
        ax.set_yticks(list(positions), [_short(n) for n, _, _ in ranked])
        ax.set_xlabel("messages")
        ax.set_title(title)
        return self._save(fig, name)

    def depth(self, per_queue, hourly) -> str | None:
        from matplotlib import dates as mdates

        # The busiest queues that have timestamps; per_queue ranks them, hourly may lack some.
        busiest = [q for q, _, _ in _ranked({q: per_queue.get(q, (0, 0)) for q in hourly}, DEPTH_QUEUES)]
        if not busiest:
            return None
        fig = self._figure(11, 5)
        ax = fig.subplots()
        for queue in busiest:
            # Empty at the start of its first hour, so a queue with one hour is still a line.
            times = [_dt.datetime.fromtimestamp(hourly[queue][0][0], _dt.timezone.utc)]
            depth, total = [0], 0
            for when, messages in hourly[queue]:
                total += messages
                # The hour's messages are all there by the end of it.
                times.append(_dt.datetime.fromtimestamp(when + 3600, _dt.timezone.utc))
                depth.append(total)
            ax.step(times, depth, where="post", marker=".", label=_short(queue))
        ax.set_ylabel("messages (nobody consuming)")
        ax.set_xlabel("end of hour (UTC)")
        ax.set_title("Queue depth over time")
        ax.legend(fontsize="small", loc="upper left")
        locator = mdates.AutoDateLocator()
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
        return self._save(fig, "depth.png")
