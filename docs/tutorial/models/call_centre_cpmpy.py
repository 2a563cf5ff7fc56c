"""The call-centre roster of docs/tutorial.md (examples/tutorial/call_centre_2w.sched) written in CPMpy.

An independent model of the same rules, for the tutorial's line-count comparison and as a differential
check: tests/test_tutorial.py solves it and compares its optimum with schedc's.
"""

import cpmpy as cp

DAYS, SHIFTS = 14, ["E", "L", "N"]
AGENTS = {"Ann": ("full", {"Night", "Senior"}), "Bob": ("full", {"Night"}), "Cara": ("full", {"Senior"}),
          "Dev": ("part", {"Night", "Senior"}), "Eli": ("part", set()), "Fay": ("part", {"Night"})}
WEEKDAY, SATURDAY, SUNDAY = {"E": 2, "L": 1, "N": 1}, {"E": 1, "L": 1, "N": 1}, {"E": 1, "N": 1}
DEMAND = [SUNDAY if d % 7 == 6 else SATURDAY if d % 7 == 5 else WEEKDAY for d in range(DAYS)]
REQUESTS = [("Ann", d, None) for d in (5, 6, 7, 8, 12, 13)] + [("Dev", d, None) for d in (1, 2, 3, 12, 13)] + [
    ("Cara", 12, None), ("Eli", 0, "N"), ("Fay", 9, None)]

names = list(AGENTS)
x = {(a, d, s): cp.boolvar(name=f"{a}_{d}_{s}") for a in names for d in range(DAYS) for s in SHIFTS}
work = {(a, d): cp.sum(x[a, d, s] for s in SHIFTS) for a in names for d in range(DAYS)}
model = cp.Model()
for a, (contract, skills) in AGENTS.items():
    low, high = (8, 10) if contract == "full" else (4, 7)
    model += [work[a, d] <= 1 for d in range(DAYS)]
    model += [x[a, d, "N"] == 0 for d in range(DAYS) if "Night" not in skills]
    model += [low <= cp.sum(work[a, d] for d in range(DAYS)), cp.sum(work[a, d] for d in range(DAYS)) <= high]
    model += [cp.sum(work[a, d + k] for k in range(6)) <= 5 for d in range(DAYS - 5)]
    model += [x[a, d, "N"] + x[a, d + 1, "E"] <= 1 for d in range(DAYS - 1)]
for d in range(DAYS):
    model += [cp.sum(x[a, d, s] for a in names) >= n for s, n in DEMAND[d].items()]
    model += cp.sum(x[a, d, "N"] for a in names if "Senior" in AGENTS[a][1]) >= 1
late_early = cp.sum(x[a, d, "L"] & x[a, d + 1, "E"] for a in names for d in range(DAYS - 1))
lone_free_day = cp.sum((work[a, d] == 0) & (d == 0 or work[a, d - 1] == 1) & (d == DAYS - 1 or work[a, d + 1] == 1)
                       for a in names for d in range(DAYS))
requests = cp.sum(x[a, d, s] if s else work[a, d] for a, d, s in REQUESTS)
model.minimize(2 * late_early + 1 * lone_free_day + 3 * requests)

if __name__ == "__main__":
    assert model.solve(time_limit=60)
    print(model.objective_value())
