#!/usr/bin/env python3
"""Subscription matching per publication (issues 9 and 24): our ``TopicIndex`` beside paho-mqtt's
``MQTTMatcher``, both fed the same subscriptions and the same publications in one process.

Workload (issue 24's, the default): subscriptions of 5 levels, each level drawn from ``--words``
words (30); a share ``--plus`` (20%) of them has one "+" at a random level (the first included), a
share ``--hash`` (5%) ends in "#" (``--hash-depth last``: "#" takes the place of the fifth level;
``any``: "#" after one to four literal levels, so that a "#" near the root selects a large part of
the tree), the rest are exact topics.  Publications: ``--topics`` draws from a pool of
``--distinct`` topics, every other one a random subscription with its wildcards filled in ("+" a
word, "#" zero to two words; so it matches that one and often others), the rest random words.
Cases: each of ``--sizes``, and a noise case (issue 9): the subscriptions of the smallest size plus
``--noise`` subscriptions whose first level no publication uses, with the smallest case's publications.

Before anything is timed, every distinct publication's result set is checked identical to paho's
(ours without and with the result cache, and the ``--baseline`` index if given).  Timed: CPU time
(``time.process_time``, so that other processes on the machine do not count) per publication of
ours without a result cache (``cache_size=0``: the headline, since a cache is not matching), ours
with the default cache, and paho's ``iter_match`` with its values consumed; the matchers alternate
round after round and each keeps its best round.  ``--baseline PATH`` adds another ``topics.py``
(e.g. main's, before a change) as a fourth matcher in the same rounds.  Also: build time and
memory held once built (tracemalloc, pattern strings not counted) of ours and paho's, and µs per
``add`` and per ``remove`` of ``--churn`` further subscriptions on the built index.

    python scripts/bench/matcher.py                                  # issue 24: 10k, 100k, 1M, noise
    python scripts/bench/matcher.py --baseline /work/main/registry/pubsub/topics.py
    python scripts/bench/matcher.py --hash-depth any                 # "#" after 1 to 4 levels
    python scripts/bench/matcher.py --words 20 --distinct 2000       # issue 9's workload
    python scripts/bench/matcher.py --quick                          # 10k, 100k, 10k + 90k noise

Targets (issue 24, target 5): ours without the cache >= 4x faster than paho at 100k, >= 1.5x at 1M;
issue 9: the noise case within 1.5x of the smallest case.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import platform
import random
import time
import tracemalloc

from paho.mqtt.matcher import MQTTMatcher

from qmlite.registry.pubsub.topics import TopicIndex

LEVELS = 5


def subscriptions(rnd: random.Random, count: int, words: int, plus: float, hash_: float, hash_depth: str,
                  first: str = "w") -> list[str]:
    """``count`` 5-level patterns; level i's words are ``<first or w><i>_<n>``."""
    out = []
    for _ in range(count):
        levels = [f"{first if i == 0 else 'w'}{i}_{rnd.randrange(words)}" for i in range(LEVELS)]
        r = rnd.random()
        if r < plus:
            # A noise pattern keeps its own first level, so that it cannot match a publication.
            levels[rnd.randrange(1 if first != "w" else 0, LEVELS)] = "+"
        elif r < plus + hash_:
            if hash_depth == "last":
                levels[-1] = "#"
            else:
                levels[rnd.randrange(1, LEVELS):] = ["#"]
        out.append("/".join(levels))
    return out


def publications(rnd: random.Random, subs: list[str], words: int, distinct: int, count: int) -> list[str]:
    """``count`` draws from ``distinct`` topics: every other one a random subscription made concrete
    ("+" a word, "#" zero to two words), the rest random words."""
    def word(i: int) -> str:
        return f"w{i}_{rnd.randrange(words)}"

    pool = []
    for n in range(distinct):
        if n % 2:
            pool.append("/".join(word(i) for i in range(LEVELS)))
            continue
        levels = rnd.choice(subs).split("/")
        if levels[-1] == "#":
            depth = len(levels) - 1
            levels[-1:] = [word(i) for i in range(depth, depth + rnd.randrange(3))]
        pool.append("/".join(word(i) if level == "+" else level for i, level in enumerate(levels)))
    return [rnd.choice(pool) for _ in range(count)]


def load_baseline(path: str) -> type:
    """``TopicIndex`` of another copy of topics.py (e.g. main's), loaded under a name of its own."""
    spec = importlib.util.spec_from_file_location("matcher_baseline_topics", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.TopicIndex


def build_ours(subs: list[str], cache_size: int, cls: type = TopicIndex) -> TopicIndex:
    index = cls(cache_size=cache_size)
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
    t0 = time.process_time()
    built = build(*args)
    return built, time.process_time() - t0


def time_ours(index: TopicIndex, topics: list[str]) -> tuple[float, int]:
    match = index.match
    found = 0
    t0 = time.process_time()
    for topic in topics:
        found += len(match(topic))
    return (time.process_time() - t0) / len(topics) * 1e6, found


def time_paho(matcher: MQTTMatcher, topics: list[str]) -> tuple[float, int]:
    iter_match = matcher.iter_match
    found = 0
    t0 = time.process_time()
    for topic in topics:
        for ids in iter_match(topic):
            found += len(ids)
    return (time.process_time() - t0) / len(topics) * 1e6, found


def churn_us(index: TopicIndex, patterns: list[str]) -> tuple[float, float]:
    """µs per add and per remove of ``patterns`` (keys of their own) on a built index."""
    base = 10**9
    t0 = time.process_time()
    for n, pattern in enumerate(patterns):
        index.add(base + n, pattern)
    t1 = time.process_time()
    for n, pattern in enumerate(patterns):
        index.remove(base + n, pattern)
    t2 = time.process_time()
    return (t1 - t0) / len(patterns) * 1e6, (t2 - t1) / len(patterns) * 1e6


def run_case(name: str, subs: list[str], topics: list[str], churn: list[str], repeat: int,
             baseline: type | None) -> dict:
    ours_mib, paho_mib = traced_mib(build_ours, subs, 0), traced_mib(build_paho, subs)
    gc.disable()  # the builds allocate millions of objects: no collection passes in the timings
    try:
        plain, build_s = timed(build_ours, subs, 0)
        cached = build_ours(subs, 4096)
        paho, paho_build_s = timed(build_paho, subs)
        base = build_ours(subs, 0, baseline) if baseline is not None else None
        for topic in set(topics):  # all must find the same subscriptions, or the timing means nothing
            expected = {n for ids in paho.iter_match(topic) for n in ids}
            assert plain.match(topic) == expected == cached.match(topic), topic
            assert base is None or base.match(topic) == expected, topic
        ours_us, cached_us, paho_us, base_us = [], [], [], []
        for _ in range(repeat):
            us, found = time_ours(plain, topics)
            ours_us.append(us)
            us, found_paho = time_paho(paho, topics)
            paho_us.append(us)
            us, found_cached = time_ours(cached, topics)
            cached_us.append(us)
            assert found == found_cached == found_paho
            if base is not None:
                us, found_base = time_ours(base, topics)
                base_us.append(us)
                assert found_base == found
        add_us, remove_us = churn_us(plain, churn)
    finally:
        gc.enable()
    result = {"case": name, "subs": len(subs), "matches": found / len(topics),
              "ours_us": min(ours_us), "cached_us": min(cached_us), "paho_us": min(paho_us),
              "base_us": min(base_us) if base_us else None,
              "build_s": build_s, "paho_build_s": paho_build_s, "ours_mib": ours_mib, "paho_mib": paho_mib,
              "add_us": add_us, "remove_us": remove_us}
    del plain, cached, paho, base
    gc.collect()
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,1000000", help="subscription counts (default 10k, 100k, 1M)")
    ap.add_argument("--noise", type=int, default=990_000,
                    help="never-matching subscriptions added to the smallest size (default 990,000; 0: no noise case)")
    ap.add_argument("--topics", type=int, default=50_000, help="publications timed per round (default 50,000)")
    ap.add_argument("--distinct", type=int, default=50_000,
                    help="distinct topics they are drawn from (default 50,000: the cache mostly misses)")
    ap.add_argument("--words", "--vocab", dest="words", type=int, default=30, help="words per level (default 30)")
    ap.add_argument("--plus", type=float, default=0.20, help="share of subscriptions with one '+' (default 0.2)")
    ap.add_argument("--hash", type=float, default=0.05, help="share of subscriptions ending in '#' (default 0.05)")
    ap.add_argument("--hash-depth", choices=("last", "any"), default="last",
                    help="'#' in place of the last level (default) or after 1 to 4 literal levels")
    ap.add_argument("--churn", type=int, default=10_000, help="subscriptions added then removed for add/remove µs")
    ap.add_argument("--baseline", metavar="TOPICS_PY", help="another topics.py timed in the same rounds")
    ap.add_argument("--repeat", type=int, default=5, help="alternating timing rounds, best kept (default 5)")
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--quick", action="store_true", help="sizes 10k and 100k, 90k noise, 10,000 publications")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.noise, args.topics = "10000,100000", 90_000, 10_000
    sizes = sorted(int(s) for s in args.sizes.split(","))
    baseline = load_baseline(args.baseline) if args.baseline else None
    shape = dict(words=args.words, plus=args.plus, hash_=args.hash, hash_depth=args.hash_depth)

    print(f"# matcher {time.strftime('%Y-%m-%d %H:%M:%S %Z')} | nproc {os.cpu_count()} | "
          f"Python {platform.python_version()} | {args.words} words/level, {args.plus:.0%} '+', "
          f"{args.hash:.0%} '#' ({args.hash_depth}) | {args.topics:,} publications from {args.distinct:,} topics, "
          f"CPU time, best of {args.repeat} alternating rounds", flush=True)
    results = []
    churn = subscriptions(random.Random(args.seed + 3), args.churn, **shape)
    for size in sizes:
        subs = subscriptions(random.Random(args.seed), size, **shape)
        topics = publications(random.Random(args.seed + 1), subs, args.words, args.distinct, args.topics)
        results.append(run_case(f"{size:,}", subs, topics, churn, args.repeat, baseline))
        print(f"# {results[-1]}", flush=True)
    if args.noise:
        # The same subscriptions and publications as the smallest case, with the noise on top.
        subs = subscriptions(random.Random(args.seed), sizes[0], **shape)
        topics = publications(random.Random(args.seed + 1), subs, args.words, args.distinct, args.topics)
        subs += subscriptions(random.Random(args.seed + 2), args.noise, **shape, first="noise")
        results.append(run_case(f"{sizes[0]:,} + {args.noise:,} noise", subs, topics, churn, args.repeat, baseline))
        print(f"# {results[-1]}", flush=True)

    print()
    base_head = " | Baseline µs | paho / baseline" if baseline else ""
    print("| Subscriptions | Matches/publication | Ours, no cache µs | Ours, with cache µs | paho µs "
          f"| paho / ours (no cache){base_head} | Build ours / paho s | Memory ours / paho MiB "
          "| add / remove µs |")
    print("|---" * (9 + 2 * bool(baseline)) + "|")
    for r in results:
        base_cells = (f" | {r['base_us']:.2f} | {r['paho_us'] / r['base_us']:.2f}x" if baseline else "")
        print(f"| {r['case']} | {r['matches']:.2f} | {r['ours_us']:.2f} | {r['cached_us']:.2f} "
              f"| {r['paho_us']:.2f} | **{r['paho_us'] / r['ours_us']:.2f}x**{base_cells} "
              f"| {r['build_s']:.2f} / {r['paho_build_s']:.2f} | {r['ours_mib']:.0f} / {r['paho_mib']:.0f} "
              f"| {r['add_us']:.1f} / {r['remove_us']:.1f} |")
    print()
    by_case = {r["case"]: r for r in results}
    for size, want in ((100_000, 4.0), (1_000_000, 1.5)):
        r = by_case.get(f"{size:,}")
        if r is not None:
            ratio = r["paho_us"] / r["ours_us"]
            print(f"target: ours >= {want:g}x faster than paho at {size:,} without the cache: {ratio:.2f}x "
                  f"{'MET' if ratio >= want else 'MISSED'}")
    if args.noise:
        ratio = results[-1]["ours_us"] / results[0]["ours_us"]
        print(f"target: with {args.noise:,} noise subscriptions within 1.5x of {sizes[0]:,} alone (no cache): "
              f"{ratio:.2f}x {'MET' if ratio <= 1.5 else 'MISSED'}")


if __name__ == "__main__":
    main()
