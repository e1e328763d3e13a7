"""What the CPU class of the resource-usage publications reports: the platform's and this process's
CPU and memory, read from the operating system.

Values are returned already in the units the metadata advertises (registry/monitoring/resource.py): percentages
in hundredths (MQIAMO_MONITOR_PERCENT), load averages in hundredths (MQIAMO_MONITOR_HUNDREDTHS),
memory in megabytes (MQIAMO_MONITOR_MB).  A figure the platform cannot give (no /proc outside Linux)
is left out, and the publication omits that element rather than report an invented value.
"""

from __future__ import annotations

import os
import time

_MB = 1024 * 1024


def _proc_stat() -> tuple[int, int, int] | None:
    """(user, system, total) jiffies of all CPUs since boot, from /proc/stat."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != b"cpu":
        return None
    ticks = [int(x) for x in fields[1:]]
    user = ticks[0] + ticks[1]  # user + nice: both non-privileged code
    system = sum(ticks[2:3] + ticks[5:7])  # system + irq + softirq
    return user, system, sum(ticks[:8])  # steal counts; guest time is already inside user


def _meminfo() -> dict[str, int]:
    out: dict[str, int] = {}
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                name, _, rest = line.partition(b":")
                if name in (b"MemTotal", b"MemAvailable"):
                    out[name.decode()] = int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return {}
    return out


def _resident_bytes() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class HostUsage:
    """Samples between two calls: a percentage is over the time since the previous sample."""

    def __init__(self) -> None:
        self._cpus = os.cpu_count() or 1
        self._last_times = os.times()
        self._last_wall = time.monotonic()
        self._last_stat = _proc_stat()

    def sample(self) -> dict[str, int]:
        values: dict[str, int] = {}
        wall = time.monotonic()
        times = os.times()
        elapsed = (wall - self._last_wall) * self._cpus
        if elapsed > 0:
            # The process's share of the whole machine, as IBM's "estimate for queue manager" is.
            values["qm_cpu_user"] = int((times.user - self._last_times.user) / elapsed * 10000)
            values["qm_cpu_system"] = int((times.system - self._last_times.system) / elapsed * 10000)
        self._last_wall, self._last_times = wall, times
        stat = _proc_stat()
        if stat is not None and self._last_stat is not None:
            total = stat[2] - self._last_stat[2]
            if total > 0:
                values["cpu_user"] = (stat[0] - self._last_stat[0]) * 10000 // total
                values["cpu_system"] = (stat[1] - self._last_stat[1]) * 10000 // total
        self._last_stat = stat
        try:
            load = os.getloadavg()
        except OSError:
            load = None
        if load is not None:
            values["load1"], values["load5"], values["load15"] = (int(x * 100) for x in load)
        mem = _meminfo()
        if "MemTotal" in mem:
            values["ram_total_mb"] = mem["MemTotal"] // _MB
            if "MemAvailable" in mem and mem["MemTotal"]:
                values["ram_free_pct"] = mem["MemAvailable"] * 10000 // mem["MemTotal"]
        rss = _resident_bytes()
        if rss is not None:
            values["qm_ram_mb"] = rss // _MB
        return values
