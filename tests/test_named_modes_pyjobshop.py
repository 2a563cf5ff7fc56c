"""Modes named by their resources (issue 28) against PyJobShop, an independent implementation.

Random operating-room days: each surgery may take some (room, surgeon) pairs, each pair a mode with its
own duration; some rooms are cleaned between two surgeries (a constant ``R * * T`` row); some surgeries
arrive late; minimise the makespan. The same day is written as a ``.sched`` instance of the built-in
family ``operating_room`` (answers name the room and the surgeon) and built through PyJobShop's Model API
(each mode a task mode on two machines, the cleaning as a setup time on the room for every ordered pair).
Both are solved to optimality: the optima must be equal, and PyJobShop's schedule, written as
``S3: start=…, room=…, surgeon=…`` lines, must pass ``schedc check`` with PyJobShop's objective.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

import schedc

pytest.importorskip("pyjobshop", reason="pyjobshop is not installed (it is in the test extra: pip install -e .[test])")


@dataclass
class Day:
    rooms: list[str]
    surgeons: list[str]
    pairs: dict[str, list[tuple[str, str, int]]]  # surgery → (room, surgeon, duration) per mode
    cleaning: dict[str, int]  # room → minutes between two surgeries (absent: none)
    arrivals: dict[str, int]


def draw(seed: int) -> Day:
    rng = random.Random(seed)
    rooms = [f"OR{i}" for i in range(1, rng.randint(2, 3) + 1)]
    surgeons = rng.sample(["Hale", "Moreau", "Okafor", "Ruiz"], rng.randint(2, 3))
    every = [(r, s) for r in rooms for s in surgeons]
    pairs = {f"S{k}": [(r, s, rng.randint(2, 9)) for r, s in rng.sample(every, rng.randint(1, 3))]
             for k in range(1, rng.randint(4, 6) + 1)}
    cleaning = {r: rng.randint(1, 4) for r in rooms if rng.random() < 0.7}
    arrivals = {s: rng.randint(1, 8) for s in pairs if rng.random() < 0.3}
    return Day(rooms, surgeons, pairs, cleaning, arrivals)


def to_sched(day: Day, seed: int) -> str:
    resources = day.rooms + day.surgeons
    lines = [f"instance or_diff{seed} family operating_room", "resources table",
             *(f"  {r} unary" for r in resources), "end", f"activities ({' '.join(resources)}) table"]
    for surgery, modes in day.pairs.items():
        for number, (room, surgeon, minutes) in enumerate(modes, start=1):
            uses = " ".join("1" if r in (room, surgeon) else "0" for r in resources)
            lines.append(f"  {surgery} {number} {minutes} {uses}")
    lines += ["end", "room () table", "  " + " ".join(day.rooms), "end",
              "surgeon () table", "  " + " ".join(day.surgeons), "end",
              "hard unary_no_overlap rooms_and_surgeons", "hard mode_choice pairs"]
    if day.cleaning:
        lines += ["hard setup_times cleaning table", *(f"  {r} * * {t}" for r, t in day.cleaning.items()), "end"]
    if day.arrivals:
        lines += ["hard time_window arrivals table", *(f"  {s} {t}" for s, t in day.arrivals.items()), "end"]
    return "\n".join([*lines, "minimize makespan"]) + "\n"


def pyjobshop_answer(day: Day) -> tuple[str, int, str]:
    """(status, makespan, answer lines in the family's format) of PyJobShop's optimum."""
    from pyjobshop import Model

    model = Model()
    machines = {r: model.add_machine(name=r) for r in day.rooms + day.surgeons}
    tasks = {s: model.add_task(earliest_start=day.arrivals.get(s, 0), name=s) for s in day.pairs}
    chosen = []  # PyJobShop's mode index → (surgery, room, surgeon)
    for surgery, modes in day.pairs.items():
        for room, surgeon, minutes in modes:
            model.add_mode(tasks[surgery], [machines[room], machines[surgeon]], minutes)
            chosen.append((surgery, room, surgeon))
    for room, minutes in day.cleaning.items():
        for a in tasks.values():
            for b in tasks.values():
                if a is not b:
                    model.add_setup_time(machines[room], a, b, minutes)
    model.set_objective(weight_makespan=1)
    result = model.solve("ortools", time_limit=20, display=False, num_workers=1)
    lines = []
    for scheduled in result.best.tasks:
        surgery, room, surgeon = chosen[scheduled.mode]
        lines.append(f"{surgery}: start={scheduled.start}, room={room}, surgeon={surgeon}")
    return result.status.value, round(result.objective), "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(12))
def test_named_modes_agree_with_pyjobshop(seed: int) -> None:
    day = draw(seed)
    text = to_sched(day, seed)
    status, theirs, answer = pyjobshop_answer(day)
    assert status == "Optimal", f"PyJobShop did not prove its optimum:\n{text}"
    instance = schedc.load(text)
    report = schedc.check(instance, answer)
    assert report.feasible, (f"PyJobShop's schedule breaks the instance:\n{text}\n{answer}"
                             f"{[v.message for v in report.violations]}")
    assert report.objective == theirs, f"schedc recomputes {report.objective}, PyJobShop reports {theirs}"
    ours = schedc.solve(instance, time_limit=20, workers=1, seed=0, explain=0)
    assert ours.status == "optimal" and ours.objective == theirs, (
        f"schedc {ours.status} {ours.objective} against PyJobShop's proven {theirs}:\n{text}")
