"""The simulator's start-now test over a whole ready pool, by one bit test per entry.

A pool entry is a candidate when some idle machine known eligible for it has room for its
estimated run before the machine's next known outage (``Simulator._room``: run ``max(d, 1) ≤
room``). Operations that never receive a route or processing-time change (nearly all) are settled
as soon as they are released, hence whenever they are in the pool: their eligible machines and
durations are the true ones. An idle machine whose room is at least the longest run of any
operation on it takes every operation eligible for it, so for those machines the test is one
``&`` of the operation's machine bits with the bits of such *open* machines; only machines close
to a planned outage (*short* room) need the durations. The operations with information events
are tested one by one by the caller's ``fits``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import inf

from schedc.dynamic.simstate import OpInfo, PoolEntry


class FitTables:
    """Per operation its settled machines as bits; per machine the runs ``max(d, 1)`` and the longest."""

    def __init__(self, ops: Sequence[OpInfo], machines: int):
        # operations with information events may be unsettled while in the pool: ``fits`` tests them
        self.changing: frozenset[int] = frozenset(
            o for o, info in enumerate(ops) if info.old_routes or info.old_estimates)
        runs = [[inf] * len(ops) for _ in range(machines)]
        for o, info in enumerate(ops):
            if o not in self.changing:
                for m in info.machines:
                    runs[m][o] = max(info.true[m], 1)
        self.runs: tuple[tuple[float, ...], ...] = tuple(map(tuple, runs))
        self.bits: tuple[int, ...] = tuple(
            0 if o in self.changing else sum(1 << m for m in info.machines) for o, info in enumerate(ops))
        self.longest: tuple[float, ...] = tuple(max((r for r in row if r < inf), default=0) for row in self.runs)

    def select(self, pool: tuple[PoolEntry, ...], room: dict[int, float],
               fits: Callable[[int], bool]) -> tuple[PoolEntry, ...]:
        """The entries of ``pool`` (in pool order) that may start now; ``fits(op)`` tests a changing op."""
        open_bits = short_bits = 0
        short = []
        for m, r in room.items():
            if r >= self.longest[m]:
                open_bits |= 1 << m
            else:
                short_bits |= 1 << m
                short.append((self.runs[m], r))
        bits, changing = self.bits, self.changing
        found = []
        for e in pool:  # this loop runs over the whole pool at every decision point: kept minimal
            op = e[0]
            b = bits[op]
            if b & open_bits:
                found.append(e)
            elif b & short_bits:
                for run, r in short:  # a plain loop: a generator per entry would cost more than the test
                    if run[op] <= r:
                        found.append(e)
                        break
            elif op in changing and fits(op):
                found.append(e)
        return tuple(found)
