"""The serial heuristic's resource search (schedc.heuristics._earliest_fit) against brute force."""

from __future__ import annotations

import random

import numpy as np
import pytest

from schedc.heuristics import _earliest_fit
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
