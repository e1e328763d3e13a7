#!/usr/bin/env python3
"""Subscription matching per publication (issue 9): our ``TopicIndex`` beside paho-mqtt's
``MQTTMatcher``, both fed the same subscriptions and the same publications in one process.

Subscriptions have 5 levels, each drawn from a vocabulary of ``--vocab`` words per level: 20% have
one "+" at a random level, 5% end in "#", the rest are exact topics.  The publications are
``--topics`` draws from a pool of ``--distinct`` topics, half of them a random subscription with
its wildcards filled in (so they match it and, often, others), half random words.  Cases: each of
``--sizes`` subscriptions, and a noise case: the subscriptions of the smallest size plus ``--noise``
subscriptions whose first level no publication uses (their "+" never stands first, so none of them
ever matches); its publications are those of the smallest size.

Measured, best of ``--repeat`` interleaved rounds: µs per publication of ours without a result cache
(``cache_size=0``), ours with the default cache (4,096 topics: with the default 2,000 distinct topics
every round after the first is answered from it, as a steady stream on a hot set of topics would
be; with ``--distinct`` well above 4,096 it mostly misses), and paho's ``iter_match`` with the
values consumed.  Build time, and memory held once built (tracemalloc, the pattern strings not counted),
of ours and of paho per case.  Targets: ours >= 4x faster than paho at 100k without the cache;
the noise case within 1.5x of the smallest case (without the cache).

    python scripts/bench/matcher.py                 # 10k, 100k, 1M and 10k + 990k noise
    python scripts/bench/matcher.py --quick         # 10k, 100k and 10k + 90k noise, fewer publications
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import time
import tracemalloc

from paho.mqtt.matcher import MQTTMatcher

from qmlite.registry.pubsub.topics import TopicIndex

LEVELS = 5


def subscriptions(rnd: random.Random, count: int, vocab: int, first: str = "w") -> list[str]:
    """``count`` 5-level patterns; level i's words are ``<first or w><i>_<n>``."""
    out = []
    for _ in range(count):
        levels = [f"{first if i == 0 else 'w'}{i}_{rnd.randrange(vocab)}" for i in range(LEVELS)]
        r = rnd.random()
        if r < 0.20:
            # A noise pattern keeps its own first level, so that it cannot match a publication.
            levels[rnd.randrange(1 if first != "w" else 0, LEVELS)] = "+"
        elif r < 0.25:
            levels[-1] = "#"
        out.append("/".join(levels))
    return out


def publications(rnd: random.Random, subs: list[str], vocab: int, distinct: int, count: int) -> list[str]:
    """``count`` draws from ``distinct`` topics: every other one a random subscription made concrete
    ("+" a word, "#" zero to two words), the rest random words."""
    def word(i: int) -> str:
        return f"w{i}_{rnd.randrange(vocab)}"

    pool = []
    for n in range(distinct):
        if n % 2:
            pool.append("/".join(word(i) for i in range(LEVELS)))
            continue
        levels = rnd.choice(subs).split("/")
        if levels[-1] == "#":
            levels[-1:] = [word(i) for i in range(LEVELS - 1, rnd.randrange(LEVELS - 1, LEVELS + 2))]
        pool.append("/".join(word(i) if level == "+" else level for i, level in enumerate(levels)))
    return [rnd.choice(pool) for _ in range(count)]


def build_ours(subs: list[str], cache_size: int) -> TopicIndex:
    index = TopicIndex(cache_size=cache_size)
    add = index.add
    for n, pattern in enumerate(subs):
        add(n, pattern)
    return index


def build_paho(subs: list[str]) -> MQTTMatcher:
    matcher = MQTTMatcher()
    for n, pattern in enumerate(subs):
        try:
            matcher[pattern].append(n)  # paho keeps one value per filter: several subscriptions share a list
        except KeyError:
            matcher[pattern] = [n]
    return matcher


def traced_mib(build, *args) -> float:
    """MiB that a structure holds once built (tracemalloc; built again, untraced, for the timings)."""
    gc.collect()
    tracemalloc.start()
    built = build(*args)
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del built
    gc.collect()
    return size / 2**20


def timed(build, *args) -> tuple[object, float]:
    t0 = time.perf_counter()
    built = build(*args)
    return built, time.perf_counter() - t0


def time_ours(index: TopicIndex, topics: list[str]) -> tuple[float, int]:
    match = index.match
    found = 0
    t0 = time.perf_counter()
    for topic in topics:
        found += len(match(topic))
    return (time.perf_counter() - t0) / len(topics) * 1e6, found


def time_paho(matcher: MQTTMatcher, topics: list[str]) -> tuple[float, int]:
    iter_match = matcher.iter_match
    found = 0
    t0 = time.perf_counter()
    for topic in topics:
        for ids in iter_match(topic):
            found += len(ids)
    return (time.perf_counter() - t0) / len(topics) * 1e6, found


def run_case(name: str, subs: list[str], topics: list[str], repeat: int) -> dict:
    ours_mib, paho_mib = traced_mib(build_ours, subs, 0), traced_mib(build_paho, subs)
    plain, build_s = timed(build_ours, subs, 0)
    cached = build_ours(subs, 4096)
    paho, paho_build_s = timed(build_paho, subs)
    for topic in set(topics):  # both must find the same subscriptions, or the timing means nothing
        expected = {n for ids in paho.iter_match(topic) for n in ids}
        assert plain.match(topic) == expected == cached.match(topic), topic
    ours_us, cached_us, paho_us = [], [], []
    for _ in range(repeat):
        us, found = time_ours(plain, topics)
        ours_us.append(us)
        us, found_cached = time_ours(cached, topics)
        cached_us.append(us)
        us, found_paho = time_paho(paho, topics)
        paho_us.append(us)
        assert found == found_cached == found_paho
    result = {"case": name, "subs": len(subs), "matches": found / len(topics),
              "ours_us": min(ours_us), "cached_us": min(cached_us), "paho_us": min(paho_us),
              "build_s": build_s, "paho_build_s": paho_build_s, "ours_mib": ours_mib, "paho_mib": paho_mib}
    del plain, cached, paho
    gc.collect()
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,1000000", help="subscription counts (default 10k, 100k, 1M)")
    ap.add_argument("--noise", type=int, default=990_000,
                    help="never-matching subscriptions added to the smallest size (default 990,000)")
    ap.add_argument("--topics", type=int, default=50_000, help="publications timed per round (default 50,000)")
    ap.add_argument("--distinct", type=int, default=2_000, help="distinct topics they are drawn from (default 2,000)")
    ap.add_argument("--vocab", type=int, default=20, help="words per level (default 20)")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved timing rounds, best kept (default 3)")
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--quick", action="store_true", help="sizes 10k and 100k, 90k noise, 10,000 publications")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.noise, args.topics = "10000,100000", 90_000, 10_000
    sizes = sorted(int(s) for s in args.sizes.split(","))

    print(f"# matcher {time.strftime('%Y-%m-%d %H:%M:%S %Z')} | nproc {os.cpu_count()} | "
          f"Python {platform.python_version()} | {args.topics:,} publications from {args.distinct:,} topics, "
          f"vocabulary {args.vocab}/level, best of {args.repeat}", flush=True)
    results = []
    for size in sizes:
        subs = subscriptions(random.Random(args.seed), size, args.vocab)
        topics = publications(random.Random(args.seed + 1), subs, args.vocab, args.distinct, args.topics)
        results.append(run_case(f"{size:,}", subs, topics, args.repeat))
        print(f"# {results[-1]}", flush=True)
    if args.noise:
        # The same subscriptions and publications as the smallest case, with the noise on top.
        subs = subscriptions(random.Random(args.seed), sizes[0], args.vocab)
        topics = publications(random.Random(args.seed + 1), subs, args.vocab, args.distinct, args.topics)
        subs += subscriptions(random.Random(args.seed + 2), args.noise, args.vocab, first="noise")
        results.append(run_case(f"{sizes[0]:,} + {args.noise:,} noise", subs, topics, args.repeat))
        print(f"# {results[-1]}", flush=True)

    print()
    print("| Subscriptions | Matches/publication | Ours, no cache µs | Ours, with cache µs | paho µs "
          "| paho / ours (no cache) | Build ours / paho s | Memory ours / paho MiB |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['case']} | {r['matches']:.2f} | {r['ours_us']:.2f} | {r['cached_us']:.2f} "
              f"| {r['paho_us']:.2f} | {r['paho_us'] / r['ours_us']:.1f}x "
              f"| {r['build_s']:.2f} / {r['paho_build_s']:.2f} | {r['ours_mib']:.0f} / {r['paho_mib']:.0f} |")
    print()
    by_case = {r["case"]: r for r in results}
    if "100,000" in by_case:
        r = by_case["100,000"]
        ratio = r["paho_us"] / r["ours_us"]
        print(f"target: ours >= 4x faster than paho at 100,000 without the cache: {ratio:.1f}x "
              f"{'OK' if ratio >= 4 else 'MISSED'}")
    if args.noise:
        ratio = results[-1]["ours_us"] / results[0]["ours_us"]
        print(f"target: with {args.noise:,} noise subscriptions within 1.5x of {sizes[0]:,} alone (no cache): "
              f"{ratio:.2f}x {'OK' if ratio <= 1.5 else 'MISSED'}")


if __name__ == "__main__":
    main()
