"""The multi-skilled project of docs/tutorial.md (examples/mspsp_small.sched) written in CPMpy.

An independent model of the same rules, for the tutorial's line-count comparison and as a differential
check: tests/test_tutorial.py solves it and compares its optimum with schedc's.
"""

import cpmpy as cp

DURATION = {"A1": 3, "A2": 2, "A3": 4, "A4": 2, "A5": 3, "A6": 1}
SKILLS = {"W1": {"welding", "wiring"}, "W2": {"welding"}, "W3": {"wiring", "painting"}, "W4": {"painting"}}
NEEDS = {"A1": {"welding": 2}, "A2": {"painting": 1}, "A3": {"welding": 1, "wiring": 1}, "A4": {"painting": 2},
         "A5": {"wiring": 2}, "A6": {"welding": 1, "painting": 1}}
BEFORE = [("A1", "A3"), ("A1", "A4"), ("A2", "A5"), ("A3", "A6"), ("A4", "A6"), ("A5", "A6")]
HORIZON = sum(DURATION.values())

start = {a: cp.intvar(0, HORIZON, name=f"S_{a}") for a in DURATION}
# y[a, w, s]: worker w fills one unit of skill s of activity a
y = {(a, w, s): cp.boolvar(name=f"y_{a}_{w}_{s}") for a in NEEDS for s in NEEDS[a] for w in SKILLS if s in SKILLS[w]}
works = {(a, w): cp.sum(v for (b, u, _), v in y.items() if (b, u) == (a, w)) for a in DURATION for w in SKILLS}
model = cp.Model()
model += [start[a] + DURATION[a] <= start[b] for a, b in BEFORE]
model += [cp.sum(v for (b, _, t), v in y.items() if (b, t) == (a, s)) == k for a in NEEDS for s, k in NEEDS[a].items()]
model += [works[a, w] <= 1 for a in DURATION for w in SKILLS]
for w in SKILLS:
    for a in DURATION:
        for b in DURATION:
            shared = works[a, w] + works[b, w] == 2
            if a < b and not isinstance(shared, bool):  # False when w can serve neither activity
                model += shared.implies(
                    (start[a] + DURATION[a] <= start[b]) | (start[b] + DURATION[b] <= start[a]))
makespan = cp.max([start[a] + DURATION[a] for a in DURATION])
model.minimize(makespan)

if __name__ == "__main__":
    assert model.solve(time_limit=60)
    print(model.objective_value())
