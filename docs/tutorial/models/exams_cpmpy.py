"""The school examinations of docs/tutorial.md (examples/exams/exams_small.sched) written in CPMpy.

An independent model of the same rules, for the tutorial's line-count comparison and as a differential
check: tests/test_tutorial.py solves it and compares its optimum with schedc's.
"""

import itertools

import cpmpy as cp

DAYS, PERIODS = 3, 2
PAPERS = {"Maths": (120, 50, 0), "English": (120, 50, 0), "Physics": (90, 30, 0), "History": (90, 20, 0),
          "Art": (60, 10, 1)}  # minutes, pupils, sits alone
SEATS = {"Hall": 80, "Studio": 15}
COHORTS = {"Sciences": ({"Maths", "Physics", "English"}, 30), "Humanities": ({"English", "History", "Maths"}, 20),
           "Artists": ({"Art", "History"}, 10)}
SLOTS = range(DAYS * PERIODS)  # t = day · PERIODS + period

x = {(p, t, r): cp.boolvar(name=f"{p}_{t}_{r}") for p in PAPERS for t in SLOTS for r in SEATS}
at = {(p, t): cp.boolvar(name=f"{p}_{t}") for p in PAPERS for t in SLOTS}  # p is sat in slot t
when = {p: cp.sum(t * at[p, t] for t in SLOTS) for p in PAPERS}
model = cp.Model([cp.sum(at[p, t] for t in SLOTS) == 1 for p in PAPERS])
model += [at[p, t] == cp.sum(x[p, t, r] for r in SEATS) for p in PAPERS for t in SLOTS]
for t in SLOTS:
    for members, _ in COHORTS.values():  # a cohort sits one paper at a time
        model += cp.sum(at[p, t] for p in members) <= 1
    for r, seats in SEATS.items():
        model += cp.sum(PAPERS[p][1] * x[p, t, r] for p in PAPERS) <= seats
        for p in PAPERS:
            if PAPERS[p][2]:  # a paper sat alone shares its room with nobody
                model += x[p, t, r].implies(cp.sum(x[q, t, r] for q in PAPERS if q != p) == 0)
model += when["Physics"] > when["Maths"]


def shared(p: str, q: str, weighted: bool) -> int:
    return sum(size if weighted else 1 for members, size in COHORTS.values() if {p, q} <= members)


back_to_back, spread = [], []
for p, q in itertools.combinations(PAPERS, 2):
    for t, u in itertools.product(SLOTS, SLOTS):
        both = at[p, t] & at[q, u]
        if abs(t - u) == 1 and t // PERIODS == u // PERIODS and shared(p, q, True):
            back_to_back.append(shared(p, q, True) * both)
        if 1 <= abs(t - u) <= 2 and shared(p, q, False):
            spread.append(shared(p, q, False) * both)
lengths = {m for m, _, _ in PAPERS.values()}
mix = [cp.sum(cp.any(x[p, t, r] for p in PAPERS if PAPERS[p][0] == m) for m in lengths)
       - cp.any(x[p, t, r] for p in PAPERS) for t in SLOTS for r in SEATS]
late = cp.sum(at[p, 2 * PERIODS + 1] for p in PAPERS)
model.minimize(3 * cp.sum(back_to_back) + cp.sum(spread) + 2 * cp.sum(mix) + 5 * late)

if __name__ == "__main__":
    assert model.solve(time_limit=60)
    print(model.objective_value())
