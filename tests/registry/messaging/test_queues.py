"""Queue contents against a naive model: the sorted structure must deliver exactly what a list walk would.

The naive model keeps every message in a list and answers each question by walking it in delivery
order (priority high to low, then arrival), which is obviously right and O(n); the real structure
answers in O(log n).  hypothesis drives both with the same random puts, gets (first, by MsgId, by
CorrelId, by both), backouts, browses and expiries.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from qmlite.registry.messaging.queues import Message, MessageStore, QueueContents

ZERO = bytes(24)


def _id(n: int) -> bytes:
    return n.to_bytes(24, "big")


class Naive:
    def __init__(self) -> None:
        self.msgs: list[Message] = []

    def ordered(self) -> list[Message]:
        return sorted(self.msgs, key=lambda m: (-m.priority, m.seq))

    def find(self, msg_id, correl_id):
        for m in self.ordered():
            if (msg_id is None or m.msg_id == msg_id) and (correl_id is None or m.correl_id == correl_id):
                return m
        return None


ops = st.lists(st.one_of(
    st.tuples(st.just("put"), st.integers(0, 9), st.integers(0, 5), st.integers(0, 3),
              st.one_of(st.none(), st.integers(0, 20))),
    st.tuples(st.just("get"), st.one_of(st.none(), st.integers(0, 40)), st.one_of(st.none(), st.integers(0, 3))),
    st.tuples(st.just("back")),
    st.tuples(st.just("browse"), st.booleans()),
    st.tuples(st.just("expire"), st.integers(0, 25)),
), max_size=80)


@settings(max_examples=300, deadline=None)
@given(ops)
def test_contents_agree_with_a_list_walk(script):
    store = MessageStore()
    real = store.contents("Q")
    naive = Naive()
    taken: list[Message] = []  # held by an imaginary unit of work, restored by "back"
    cursor = None
    naive_cursor = None
    n = 0
    for op in script:
        if op[0] == "put":
            _, prio, msg_id, correl, expires = op
            n += 1
            # MsgIds repeat on purpose (applications may set them); CorrelId 0 means "none".
            msg = Message(None, f"m{n}".encode(), prio, _id(msg_id), _id(correl) if correl else ZERO, float(n),
                          float(expires) if expires is not None else None)
            store.put("Q", msg)
            naive.msgs.append(msg)
        elif op[0] == "get":
            _, msg_id, correl = op
            want_id = _id(msg_id) if msg_id is not None else None
            want_correl = _id(correl) if correl else None
            expected = naive.find(want_id, want_correl)
            got = real.find(want_id, want_correl)
            assert got is expected
            if got is not None:
                real.remove(got)
                naive.msgs.remove(got)
                taken.append(got)
        elif op[0] == "back":
            for msg in reversed(taken):
                real.restore(msg)
                naive.msgs.append(msg)
            taken.clear()
        elif op[0] == "browse":
            first = op[1]
            following = list(real.after(None if first else cursor))
            walk = naive.ordered()
            if not first and naive_cursor is not None:
                walk = [m for m in walk if (-m.priority, m.seq) > naive_cursor]
            assert following == walk
            if following:
                cursor = naive_cursor = following[0].key
        elif op[0] == "expire":
            now = float(op[1])
            gone = real.expire(now)
            expected = [m for m in naive.msgs if m.expires_at is not None and m.expires_at <= now]
            assert sorted(m.seq for m in gone) == sorted(m.seq for m in expected)
            for m in expected:
                naive.msgs.remove(m)
        assert len(real) == len(naive.msgs)
        assert list(real) == naive.ordered()
        assert real.first() is (naive.ordered()[0] if naive.msgs else None)


def test_bulk_load_orders_like_one_by_one_puts():
    msgs = [Message(None, b"x", p, _id(i), ZERO, 0.0, None, seq=i + 1) for i, p in enumerate([0, 5, 5, 9, 0, 1])]
    loaded = QueueContents()
    loaded.load(msgs)
    one_by_one = QueueContents()
    for m in msgs:
        one_by_one.add(m)
    assert list(loaded) == list(one_by_one)
    assert loaded.find(_id(3), None) is msgs[3]


def test_depth_counts_uncommitted_puts_and_open_counts_are_per_queue():
    store = MessageStore()
    store.put("A", Message(None, b"x", 0, _id(1), ZERO, 0.0))
    store.contents("A").uncommitted = 2
    store.contents("A").open_input = 1
    assert store.depth("A") == 3
    assert store.open_counts("A") == (1, 0)
    assert store.open_counts("B") == (0, 0) and store.depth("B") == 0
    assert [m.data for m in store.drop("A")] == [b"x"]
    assert store.depth("A") == 0


def test_indexes_forget_ids_whose_messages_left():
    contents = QueueContents()
    shared = _id(7)  # every copy for one subscription carries its DestinationCorrelId
    msgs = [Message(None, b"x", 0, _id(i), shared if i % 2 else _id(100 + i), 0.0, None, seq=i + 1)
            for i in range(50)]
    for m in msgs:
        contents.add(m)
    while (m := contents.first()) is not None:
        contents.remove(m)
    assert contents._by_msg_id == {} and contents._by_correl_id == {}


def test_expiry_heap_does_not_keep_consumed_messages():
    contents = QueueContents()
    for i in range(1000):
        contents.add(Message(None, b"x", 0, _id(i), ZERO, 0.0, 1e12, seq=i + 1))  # expires far in the future
        contents.remove(contents.first())
    assert len(contents._expiry) <= 64 + 2
