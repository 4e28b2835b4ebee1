"""labsim.cuda's LoadCache (loads kept in registers) against a brute-force reference: any sequence of loads,
lookups, stores and barriers finds exactly what a plain scan of the kept loads finds (the index of the first
address per entry and of lane 0's addresses only makes misses cheaper)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim.cuda.runtime import LoadCache

LANES = 8
KEYS = [("shared", 1, "float"), ("shared", 2, "float"), ("global", 3, "float"), ("global", 4, "float")]


class Reference:
    """The rule as stated: the oldest kept load of the same buffer whose lanes include every active lane and
    whose addresses agree on them; at most MAX_PER_BUFFER kept per buffer, oldest dropped first."""

    def __init__(self, restrict: set) -> None:
        self.entries: dict = {}
        self.restrict = restrict

    def find(self, key, addr, act):
        if not act.any():
            return None
        for e_addr, e_act, value in self.entries.get(key, []):
            if np.all(e_act[act]) and np.array_equal(e_addr[act], addr[act]):
                return value
        return None

    def add(self, key, addr, act, value) -> None:
        lst = self.entries.setdefault(key, [])
        if len(lst) >= LoadCache.MAX_PER_BUFFER:
            lst.pop(0)
        lst.append((addr, act, value))

    def store(self, space, buf_id) -> None:
        free = buf_id in self.restrict
        for k in list(self.entries):
            if space == "shared" and k[0] == "shared" and k[1] == buf_id:
                del self.entries[k]
            elif space == "global" and k[0] == "global" and (k[1] == buf_id or not (free or k[1] in self.restrict)):
                del self.entries[k]


class _Buf:
    def __init__(self, i: int) -> None:
        self.i = i


masks = st.lists(st.booleans(), min_size=LANES, max_size=LANES).map(lambda m: np.array(m, dtype=bool))
addrs = st.lists(st.integers(0, 3), min_size=LANES, max_size=LANES).map(lambda a: np.array(a, dtype=np.int64) * 4)
op = st.one_of(
    st.tuples(st.just("load"), st.integers(0, len(KEYS) - 1), addrs, masks),
    st.tuples(st.just("store"), st.integers(0, len(KEYS) - 1)),
    st.tuples(st.just("barrier")),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(op, min_size=1, max_size=60), st.sets(st.integers(0, len(KEYS) - 1), max_size=2))
def test_load_cache_finds_what_a_plain_scan_finds(ops, restricted):
    bufs = [_Buf(i) for i in range(len(KEYS))]
    keys = [(sp, id(bufs[i]), t) for i, (sp, _, t) in enumerate(KEYS)]
    cache = LoadCache()
    cache.restrict = {id(bufs[i]) for i in restricted}
    ref = Reference(set(cache.restrict))
    hits = 0
    for n, o in enumerate(ops):
        if o[0] == "load":
            _, k, addr, act = o
            got, want = cache.find(keys[k], addr, act), ref.find(keys[k], addr, act)
            assert got is want, f"step {n}: the cache found {got!r}, a plain scan {want!r}"
            if got is None:
                value = ("value", n)
                cache.add(keys[k], addr, act, value)
                ref.add(keys[k], addr, act, value)
            else:
                hits += 1
        elif o[0] == "store":
            space = keys[o[1]][0]
            cache.store(space, bufs[o[1]])
            ref.store(space, id(bufs[o[1]]))
        else:
            cache.clear()
            ref.entries.clear()


def test_a_repeated_load_by_fewer_lanes_hits_and_a_different_address_misses():
    cache = LoadCache()
    key = ("shared", 1, "float")
    addr = np.arange(LANES, dtype=np.int64) * 4
    full = np.ones(LANES, dtype=bool)
    cache.add(key, addr, full, "v")
    assert cache.find(key, addr.copy(), full) == "v"
    part = full.copy()
    part[:3] = False                       # first active lane 3: the scan path, not lane 0's index
    assert cache.find(key, addr.copy(), part) == "v"
    other = addr.copy()
    other[5] += 4
    assert cache.find(key, other, full) is None and cache.find(key, other, part) is None
    assert cache.find(key, addr, np.zeros(LANES, dtype=bool)) is None
