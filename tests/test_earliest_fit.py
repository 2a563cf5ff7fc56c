"""The serial heuristic's resource search (schedc.backends.search.heuristics._earliest_fit) against brute force."""

from __future__ import annotations

import random

import numpy as np
import pytest

from schedc.backends.search.heuristics import BusySpans, _earliest_fit, _fit
from schedc.ir import Mode, Use


def brute_force(mode: Mode, earliest: int, load: dict[str, np.ndarray], capacity: dict[str, int]) -> int:
    """The first start from ``earliest`` on whose whole window every used resource has room."""
    start = earliest
    while any((load[u.resource][start:start + mode.duration] > capacity[u.resource] - u.amount).any()
              for u in mode.uses):
        start += 1
    return start


@pytest.mark.parametrize("seed", range(2))
def test_earliest_fit_is_the_first_start_with_room(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        size = rng.randint(1, 1500)
        capacity = {"A": rng.randint(1, 3), "B": rng.randint(1, 3)}
        load = {r: np.array([rng.choice([0, 0, 1, 2, 3]) for _ in range(size)], dtype=np.int32) for r in capacity}
        uses = tuple(Use(resource=r, amount=rng.randint(1, capacity[r]))
                     for r in rng.sample(["A", "B"], rng.randint(1, 2)))
        mode = Mode(duration=rng.randint(0, 60), uses=uses)
        earliest = rng.randint(0, size + 5)
        assert _earliest_fit(mode, earliest, load, capacity) == brute_force(mode, earliest, load, capacity)


@pytest.mark.parametrize("seed", range(2))
def test_busy_spans_of_an_exclusive_resource_agree_with_its_profile(seed: int) -> None:
    """A resource every use occupies whole (a unary machine) is searched by its busy spans
    (schedc.backends.search.heuristics.BusySpans) instead of a profile: same first start, also mixed with a
    profiled resource in one mode, and with overlapping and touching blocks merged."""
    rng = random.Random(seed)
    for _ in range(200):
        size = rng.randint(1, 800)
        capacity = {"A": rng.randint(1, 3), "B": rng.randint(1, 3)}
        spans = BusySpans()
        profile = np.zeros(size, dtype=np.int32)
        for _block in range(rng.randint(0, 40)):
            start = rng.randint(0, size - 1)
            end = min(size, start + rng.randint(0, 50))
            spans.block(start, end)
            profile[start:end] += capacity["A"]
        assert all(s < e for s, e in zip(spans.starts, spans.ends, strict=True))
        assert all(e < s for e, s in zip(spans.ends, spans.starts[1:], strict=False))  # disjoint, not touching
        loads = {"B": np.array([rng.choice([0, 0, 1, 2, 3]) for _ in range(size)], dtype=np.int32)}
        uses = [Use(resource="A", amount=capacity["A"])]
        if rng.random() < 0.5:
            uses.append(Use(resource="B", amount=rng.randint(1, capacity["B"])))
        mode = Mode(duration=rng.randint(0, 60), uses=tuple(uses))
        earliest = rng.randint(0, size + 5)
        expected = brute_force(mode, earliest, loads | {"A": profile}, capacity)
        assert _fit(mode, earliest, loads, capacity, {"A": spans}) == expected
