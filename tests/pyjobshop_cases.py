"""Random small interval instances written twice: as a ``.sched`` text and as a PyJobShop model.

Both writers read one :class:`Case`, so that the two models can only differ where schedc and
PyJobShop differ in meaning. Every random choice comes from the ``random.Random`` of the case's
seed. The shapes follow the families: one machine, parallel (unrelated) machines, flow shop, job
shop, flexible job shop (through ``dfjsp`` when due dates are scored), RCPSP and open shop
(renewable resources of capacity 1 for the machines and the jobs).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

#: (family of the case, whether it can score tardiness); cases cycle through these shapes.
SHAPES = ("single_machine", "parallel_machines", "flow_shop", "jobshop", "fjsp", "rcpsp", "open_shop")
#: families that can score weighted tardiness (``soft tardiness`` + ``minimize penalty``)
TARDINESS_FAMILIES = {"single_machine": "single_machine", "parallel_machines": "parallel_machines",
                      "flow_shop": "flow_shop", "fjsp": "dfjsp"}


@dataclass
class Activity:
    name: str
    job: str | None
    step: int
    #: modes in order: (duration, {resource: amount})
    modes: list[tuple[int, dict[str, int]]]


@dataclass
class Case:
    seed: int
    shape: str
    family: str
    objective: str  # "makespan" or "tardiness"
    resources: list[tuple[str, str, int]] = field(default_factory=list)  # name, unary|renewable, capacity
    activities: list[Activity] = field(default_factory=list)
    precedences: list[tuple[str, str, int]] = field(default_factory=list)  # a, b, lag: E_a + lag ≤ S_b
    windows: list[tuple[str, int, int | None]] = field(default_factory=list)  # target, release, deadline
    dues: list[tuple[str, int, int]] = field(default_factory=list)  # job, due date, weight

    @property
    def jobs(self) -> list[str]:
        return list(dict.fromkeys(a.job for a in self.activities if a.job is not None))

    @property
    def features(self) -> set[str]:
        """What the case exercises, for the coverage count of the differential test."""
        out = {f"shape:{self.shape}", f"objective:{self.objective}"}
        if self.windows:
            out.add("time_window:release")
        if any(d is not None for _, _, d in self.windows):
            out.add("time_window:deadline")
        if any(lag for _, _, lag in self.precedences):
            out.add("precedence_lag:delay")
        if any(len(a.modes) > 1 for a in self.activities):
            out.add("mode_choice:alternatives")
        return out


def make_case(seed: int) -> Case:
    """The case of ``seed``: its shape cycles through :data:`SHAPES`, the rest is drawn."""
    rng = random.Random(seed)
    shape = SHAPES[seed % len(SHAPES)]
    tardy = shape in TARDINESS_FAMILIES and rng.random() < 0.5
    case = Case(seed=seed, shape=shape, family=TARDINESS_FAMILIES[shape] if tardy else shape,
                objective="tardiness" if tardy else "makespan")
    BUILD[shape](case, rng)
    _windows(case, rng)
    if tardy:
        horizon = sum(max(d for d, _ in a.modes) for a in case.activities)
        case.dues = [(job, rng.randint(1, max(2, horizon // 2)), rng.randint(1, 4)) for job in case.jobs]
    return case


def _machines(case: Case, count: int) -> list[str]:
    names = [f"M{i}" for i in range(1, count + 1)]
    case.resources += [(name, "unary", 1) for name in names]
    return names


def _chain(case: Case, job: str, ops: list[list[tuple[str, int]]], rng: random.Random) -> None:
    """A job of operations in route order; consecutive steps linked, some with a lag."""
    for step, alternatives in enumerate(ops, start=1):
        case.activities.append(Activity(f"{job}.{step}", job, step, [(d, {m: 1}) for m, d in alternatives]))
        if step > 1:
            lag = rng.choice([0, 0, 0, 1, 2])
            case.precedences.append((f"{job}.{step - 1}", f"{job}.{step}", lag))


def _single_machine(case: Case, rng: random.Random) -> None:
    (machine,) = _machines(case, 1)
    for j in range(1, rng.randint(3, 6) + 1):
        _chain(case, f"J{j}", [[(machine, rng.randint(1, 9))]], rng)


def _parallel_machines(case: Case, rng: random.Random) -> None:
    machines = _machines(case, rng.randint(2, 3))
    for j in range(1, rng.randint(3, 6) + 1):
        eligible = rng.sample(machines, rng.randint(1, len(machines)))
        _chain(case, f"J{j}", [[(m, rng.randint(1, 9)) for m in eligible]], rng)


def _flow_shop(case: Case, rng: random.Random) -> None:
    machines = _machines(case, rng.randint(2, 3))
    for j in range(1, rng.randint(2, 4) + 1):
        _chain(case, f"J{j}", [[(m, rng.randint(1, 9))] for m in machines], rng)


def _jobshop(case: Case, rng: random.Random) -> None:
    machines = _machines(case, rng.randint(2, 3))
    for j in range(1, rng.randint(2, 4) + 1):
        route = rng.sample(machines, len(machines))
        _chain(case, f"J{j}", [[(m, rng.randint(1, 9))] for m in route], rng)


def _fjsp(case: Case, rng: random.Random) -> None:
    machines = _machines(case, rng.randint(2, 3))
    for j in range(1, rng.randint(2, 3) + 1):
        ops = [[(m, rng.randint(1, 9)) for m in rng.sample(machines, rng.randint(1, len(machines)))]
               for _ in range(rng.randint(1, 3))]
        _chain(case, f"J{j}", ops, rng)


def _rcpsp(case: Case, rng: random.Random) -> None:
    capacities = [rng.randint(2, 5) for _ in range(rng.randint(1, 2))]
    case.resources += [(f"R{i}", "renewable", c) for i, c in enumerate(capacities, start=1)]
    count = rng.randint(4, 7)
    for i in range(1, count + 1):
        demand = {f"R{r}": rng.randint(0, c) for r, c in enumerate(capacities, start=1)}
        case.activities.append(Activity(f"A{i}", None, 0, [(rng.randint(1, 6), demand)]))
        for earlier in range(1, i):
            if rng.random() < 0.25:
                case.precedences.append((f"A{earlier}", f"A{i}", rng.choice([0, 0, 1, 3])))


def _open_shop(case: Case, rng: random.Random) -> None:
    machines, jobs = rng.randint(2, 3), rng.randint(2, 3)
    case.resources += [(f"M{m}", "renewable", 1) for m in range(1, machines + 1)]
    case.resources += [(f"J{j}", "renewable", 1) for j in range(1, jobs + 1)]
    for j in range(1, jobs + 1):
        for m in range(1, machines + 1):
            case.activities.append(Activity(f"O{j}{m}", None, 0, [(rng.randint(1, 6), {f"M{m}": 1, f"J{j}": 1})]))


BUILD = {"single_machine": _single_machine, "parallel_machines": _parallel_machines, "flow_shop": _flow_shop,
         "jobshop": _jobshop, "fjsp": _fjsp, "rcpsp": _rcpsp, "open_shop": _open_shop}


def _windows(case: Case, rng: random.Random) -> None:
    """Release dates and deadlines on some jobs (or activities); deadlines may make a case infeasible."""
    horizon = sum(max(d for d, _ in a.modes) for a in case.activities)
    targets = case.jobs or [a.name for a in case.activities]
    if case.jobs and rng.random() < 0.3:  # a window on a single operation
        targets = targets + [rng.choice(case.activities).name]
    for target in targets:
        if rng.random() < 0.4:
            release = rng.randint(0, horizon // 3)
            deadline = release + rng.randint(horizon // 3, horizon) if rng.random() < 0.3 else None
            case.windows.append((target, release, deadline))


# ------------------------------------------------------------------------------ .sched


def to_sched(case: Case) -> str:
    """The case as a ``.sched`` instance of its family."""
    lines = [f"instance diff{case.seed} family {case.family}", "resources table"]
    lines += [f"  {n} {k}" + (f" {c}" if k == "renewable" else "") for n, k, c in case.resources]
    lines.append("end")
    if case.jobs:
        lines.append("jobs table")
        for job in case.jobs:
            ops = [a for a in case.activities if a.job == job]
            cells = ["/".join(f"{next(iter(u))}:{d}" for d, u in a.modes) for a in ops]
            lines.append(f"  {job} " + " ".join(cells))
    else:
        columns = [n for n, _, _ in case.resources]
        lines.append(f"activities ({' '.join(columns)}) table")
        for a in case.activities:
            for number, (duration, uses) in enumerate(a.modes, start=1):
                lines.append(f"  {a.name} {number} {duration} " + " ".join(str(uses.get(c, 0)) for c in columns))
    lines.append("end")
    if case.precedences:
        lines.append("hard precedence_lag order table")
        lines += [f"  {a} ->{f'+{lag}' if lag else ''} {b}" for a, b, lag in case.precedences]
        lines.append("end")
    kinds = {k for _, k, _ in case.resources}
    if "unary" in kinds:
        lines.append("hard unary_no_overlap machines")
    if "renewable" in kinds:
        lines.append("hard cumulative_renewable renewable")
    lines.append("hard mode_choice modes")
    if case.windows:
        lines.append("hard time_window windows table")
        lines += [f"  {t} {r} {'-' if d is None else d}" for t, r, d in case.windows]
        lines.append("end")
    if case.dues:
        lines.append("soft 1 tardiness due table")
        lines += [f"  {j} {d} {w}" for j, d, w in case.dues]
        lines.append("end")
    lines.append("minimize penalty" if case.objective == "tardiness" else "minimize makespan")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ PyJobShop


class PyJobShopModel:
    """The case built through PyJobShop's Model API, with the maps back to schedc's names."""

    def __init__(self, case: Case):
        from pyjobshop import Model

        self.model = model = Model()
        resources = {}
        kind = {name: k for name, k, _ in case.resources}
        for name, k, capacity in case.resources:
            resources[name] = model.add_machine(name=name) if k == "unary" else model.add_renewable(capacity,
                                                                                                        name=name)
        release = {t: r for t, r, _ in case.windows}
        deadline = {t: d for t, _, d in case.windows if d is not None}
        due = {j: (d, w) for j, d, w in case.dues}
        jobs = {}
        for job in case.jobs:
            d, w = due.get(job, (None, 1))
            kwargs = {"deadline": deadline[job]} if job in deadline else {}
            jobs[job] = model.add_job(weight=w, release_date=release.get(job, 0), due_date=d, name=job, **kwargs)
        self.tasks: dict[str, object] = {}
        self.modes: dict[int, tuple[str, int]] = {}  # PyJobShop mode index → (activity, 1-based mode)
        for a in case.activities:
            kwargs = {"earliest_start": release[a.name]} if a.name in release else {}
            if a.name in deadline:
                kwargs["latest_end"] = deadline[a.name]
            task = model.add_task(job=jobs.get(a.job) if a.job else None, name=a.name, **kwargs)
            self.tasks[a.name] = task
            for number, (duration, uses) in enumerate(a.modes, start=1):
                names = [r for r, _, _ in case.resources if r in uses]
                # PyJobShop's machines take demand 0 (a machine has no capacity to share)
                demands = [0 if kind[r] == "unary" else uses[r] for r in names]
                model.add_mode(task, [resources[r] for r in names], duration, demands)
                self.modes[len(model.modes) - 1] = (a.name, number)
        for a, b, lag in case.precedences:
            model.add_end_before_start(self.tasks[a], self.tasks[b], lag)
        if case.objective == "tardiness":
            model.set_objective(weight_total_tardiness=1)
        else:
            model.set_objective(weight_makespan=1)

    def solve(self, time_limit: float) -> tuple[str, int | None, dict[str, int], dict[str, int]]:
        """(status, objective, starts, modes) of PyJobShop's OR-Tools run."""
        result = self.model.solve("ortools", time_limit=time_limit, display=False, num_workers=1)
        status = result.status.value
        if status not in ("Optimal", "Feasible"):
            return status, None, {}, {}
        starts, modes = {}, {}
        for scheduled in result.best.tasks:
            activity, number = self.modes[scheduled.mode]
            starts[activity], modes[activity] = scheduled.start, number
        return status, round(result.objective), starts, modes
