"""The operating-room day of docs/tutorial.md (examples/operating_rooms.sched) written in PyJobShop.

An independent model of the same rules, for the tutorial's line-count comparison and as a differential
check: tests/test_tutorial.py solves it and compares its optimum with schedc's.
"""

from pyjobshop import Model

# surgery → [(room, surgeon, minutes)]: the pairs it may take
PAIRS = {"S1": [("OR1", "Hale", 90), ("OR2", "Hale", 90), ("OR1", "Moreau", 105)],
         "S2": [("OR2", "Moreau", 60), ("OR3", "Moreau", 60), ("OR3", "Okafor", 75)],
         "S3": [("OR1", "Hale", 120), ("OR3", "Okafor", 135)],
         "S4": [("OR2", "Hale", 45), ("OR2", "Okafor", 50), ("OR3", "Okafor", 50)],
         "S5": [("OR1", "Moreau", 150), ("OR3", "Moreau", 150)],
         "S6": [("OR2", "Okafor", 70), ("OR1", "Hale", 80)]}
ARRIVAL, CLEANING, HORIZON = {"S4": 60}, 15, 480

model = Model()
rooms = {r: model.add_machine(name=r) for r in ("OR1", "OR2", "OR3")}
surgeons = {s: model.add_machine(name=s) for s in ("Hale", "Moreau", "Okafor")}
tasks = {t: model.add_task(earliest_start=ARRIVAL.get(t, 0), latest_end=HORIZON, name=t) for t in PAIRS}
for t, pairs in PAIRS.items():
    for room, surgeon, minutes in pairs:
        model.add_mode(tasks[t], [rooms[room], surgeons[surgeon]], minutes)
for room in rooms.values():
    for a in tasks.values():
        for b in tasks.values():
            if a is not b:
                model.add_setup_time(room, a, b, CLEANING)
model.set_objective(weight_makespan=1)

if __name__ == "__main__":
    result = model.solve(display=False, time_limit=60)
    print(result.status.value, result.objective)
