"""Random small interval instances written twice: as a ``.sched`` text and as a PyJobShop model.

Both writers (:func:`to_sched` here, :class:`tests.pyjobshop_model.PyJobShopModel`) read one
:class:`Case`, so that the two models can only differ where schedc and PyJobShop differ in meaning.
Every random choice comes from the ``random.Random`` of the case's seed. The shapes follow the
families: one machine, parallel (unrelated) machines, flow shop, job shop, flexible job shop
(through ``dfjsp`` when due dates are scored), RCPSP and open shop (renewable resources of capacity
1 for the machines and the jobs).
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
    objective: str  # "makespan", "tardiness" (soft tardiness rows, minimize penalty) or "terms"
    resources: list[tuple[str, str, int]] = field(default_factory=list)  # name, unary|renewable, capacity
    activities: list[Activity] = field(default_factory=list)
    precedences: list[tuple[str, str, int]] = field(default_factory=list)  # a, b, lag: E_a + lag ≤ S_b
    windows: list[tuple[str, int, int | None]] = field(default_factory=list)  # target, release, deadline
    dues: list[tuple[str, int, int]] = field(default_factory=list)  # job, due date, weight
    #: generalised precedences (a, relation, delay, b), relation one of RELATIONS
    relations: list[tuple[str, str, int, str]] = field(default_factory=list)
    setups: list[tuple[str, str, str, int]] = field(default_factory=list)  # machine, a, b, setup time
    selections: list[tuple[str, list[str]]] = field(default_factory=list)  # rule, activities
    #: objective terms (weight, measure) of a "terms" case; due dates and weights from ``targets``
    terms: list[tuple[int, str]] = field(default_factory=list)
    targets: dict[str, tuple[int, int]] = field(default_factory=dict)  # objective target → (due, weight)
    no_idle: list[str] = field(default_factory=list)  # machines without idle time
    ties: list[tuple[str, str, str]] = field(default_factory=list)  # same|different, a, b
    consecutive: list[tuple[str, str]] = field(default_factory=list)  # a, b: b directly after a on shared machines
    #: the permutation form: every two neighbouring machines process the jobs in one order
    permutation: bool = False
    breaks: list[tuple[str, int, int]] = field(default_factory=list)  # machine, start, end
    pausable: bool = False  # work pauses over the breaks (PyJobShop: every task allow_breaks=True)
    #: setup rows as the .sched writes them when compact (``M * * T``, ``M JOB JOB T``); ``setups`` then holds
    #: their expansion into activity pairs, which is what PyJobShop is given
    compact_setups: list[str] = field(default_factory=list)

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
        out |= {f"measure:{m}" for _, m in self.terms}
        if len(self.terms) > 1:
            out.add("objective:weighted_sum")
        out |= {f"precedence:{r}{'-' if d < 0 else ''}" for _, r, d, _ in self.relations}
        out |= {f"optional:{rule}" for rule, _ in self.selections}
        if self.setups:
            out.add("setup_times")
        if self.no_idle:
            out.add("no_idle")
        out |= {f"resource_ties:{rule}" for rule, _, _ in self.ties}
        if self.consecutive:
            out.add("consecutive")
        if self.permutation:
            out.add("same_sequence")
        if self.breaks:
            out.add("resource_downtime:pausable" if self.pausable else "resource_downtime")
        return out


def make_case(seed: int) -> Case:
    """The case of ``seed``: its shape cycles through :data:`SHAPES`, the rest is drawn."""
    rng = random.Random(seed)
    shape = SHAPES[seed % len(SHAPES)]
    if seed >= EXTRA_FROM:
        return _extra_case(seed, shape, rng)
    if (seed // len(SHAPES)) % 2:
        return _rich_case(seed, shape, rng)
    tardy = shape in TARDINESS_FAMILIES and rng.random() < 0.5
    case = Case(seed=seed, shape=shape, family=TARDINESS_FAMILIES[shape] if tardy else shape,
                objective="tardiness" if tardy else "makespan")
    BUILD[shape](case, rng)
    _windows(case, rng)
    if tardy:
        horizon = sum(max(d for d, _ in a.modes) for a in case.activities)
        case.dues = [(job, rng.randint(1, max(2, horizon // 2)), rng.randint(1, 4)) for job in case.jobs]
    return case


#: precedence relations of the language (docs/language.md) → PyJobShop's Model method
RELATIONS = {"e->s": "add_end_before_start", "s->s": "add_start_before_start", "s->e": "add_start_before_end",
             "e->e": "add_end_before_end", "s=s": "add_start_at_start", "s=e": "add_start_at_end",
             "e=s": "add_end_at_start", "e=e": "add_end_at_end"}
#: measures PyJobShop has, and its objective weight for each ("completion": flow time from release 0);
#: PyJobShop 0.0.9 has no max lateness: its cases minimise max tardiness there, max(0, max lateness)
PYJOBSHOP_MEASURES = {"makespan": "weight_makespan", "tardy_jobs": "weight_tardy_jobs",
                      "tardiness": "weight_total_tardiness", "flow_time": "weight_total_flow_time",
                      "completion": "weight_total_flow_time", "earliness": "weight_total_earliness",
                      "max_tardiness": "weight_max_tardiness", "setup_time": "weight_total_setup_time"}
UNARY_SHAPES = {"single_machine", "parallel_machines", "flow_shop", "jobshop", "fjsp"}


def _rich_case(seed: int, shape: str, rng: random.Random) -> Case:
    """A case of the kinds of #18: due-date measures and weighted sums, the eight precedence relations
    with signed delays, sequence-dependent setup times and optional activities."""
    case = Case(seed=seed, shape=shape, family=shape, objective="terms")
    BUILD[shape](case, rng)
    _windows(case, rng)
    unary = shape in UNARY_SHAPES
    measures = [m for m in PYJOBSHOP_MEASURES if unary or m != "setup_time"]
    case.terms = [(rng.randint(1, 3), m) for m in rng.sample(measures, rng.choice([1, 1, 2]))]
    if any(m == "completion" for _, m in case.terms):  # flow time = completion only from release 0
        case.terms = [t for t in case.terms if t[1] != "flow_time"]
    weighted = not any(m == "max_tardiness" for _, m in case.terms)  # PyJobShop weights max tardiness
    horizon = sum(max(d for d, _ in a.modes) for a in case.activities)
    for target in case.jobs or [a.name for a in case.activities]:
        case.targets[target] = (rng.randint(1, max(2, horizon // 2)), rng.randint(1, 4) if weighted else 1)
    if rng.random() < 0.5:
        _relations(case, rng)
    if unary and (rng.random() < 0.6 or any(m == "setup_time" for _, m in case.terms)):
        _setups(case, rng)
    if case.jobs and rng.random() < 0.5:
        _selections(case, rng)
    if unary and rng.random() < 0.4:  # drawn last, so that the cases drawn before it stay as they were
        _sequencing(case, rng)
    return case


#: seeds from here on draw a rich case and one of the kinds added after the first differential runs
#: (the permutation form, breaks with or without pausing, max lateness): the earlier seeds stay as they were
EXTRA_FROM = 420
BREAK_SHAPES = {"single_machine", "parallel_machines", "flow_shop", "jobshop", "fjsp"}


def _extra_case(seed: int, shape: str, rng: random.Random) -> Case:
    """A rich case plus: flow shops in the permutation form; the other machine shapes breaks on
    their machines (pausable when every activity has one mode and none is optional); open shops and
    RCPSP (and a third of the machine shapes) the objective max lateness instead of their terms."""
    case = _rich_case(seed, shape, rng)
    if shape == "flow_shop":
        _drop_selections(case)  # a job with two operations on a machine has no partner to pair
        case.permutation = True
    elif shape in BREAK_SHAPES and rng.random() < 0.67:
        _breaks(case, rng)
    else:
        _max_lateness(case)
    return case


def _drop_selections(case: Case) -> None:
    extra = {name for _, names in case.selections for name in names}
    case.activities = [a for a in case.activities if a.name not in extra]
    case.selections = []
    case.setups = [row for row in case.setups if row[1] not in extra and row[2] not in extra]
    case.consecutive = [p for p in case.consecutive if not set(p) & extra]
    case.relations = [r for r in case.relations if r[0] not in extra and r[3] not in extra]
    case.windows = [w for w in case.windows if w[0] not in extra]


def _breaks(case: Case, rng: random.Random) -> None:
    """One or two breaks on each machine that may idle (PyJobShop refuses breaks on a no-idle machine);
    work pauses over them in most cases whose activities have one mode each."""
    horizon = sum(max(d for d, _ in a.modes) for a in case.activities)
    for machine in [r for r, k, _ in case.resources if k == "unary" and r not in case.no_idle]:
        start = rng.randint(1, max(1, horizon // 3))
        for _ in range(rng.randint(1, 2)):
            end = start + rng.randint(1, 3)
            case.breaks.append((machine, start, end))
            start = end + rng.randint(2, max(2, horizon // 3))
    if all(len(a.modes) == 1 for a in case.activities) and rng.random() < 0.6:
        _drop_selections(case)  # schedc's CP-SAT pauses required activities of one mode only
        case.pausable = True


def _max_lateness(case: Case) -> None:
    """The objective max lateness (unweighted) over the due dates of the targets."""
    case.terms = [(1, "max_lateness")]
    case.targets = {t: (due, 1) for t, (due, _w) in case.targets.items()}


def _sequencing(case: Case, rng: random.Random) -> None:
    """One of: a machine without idle time, a same/different tie of two flexible activities, a
    consecutive pair of activities that can share a machine."""
    machines = [r for r, k, _ in case.resources if k == "unary"]
    optional = {name for _, names in case.selections for name in names}
    flexible = [a.name for a in case.activities if len(a.modes) > 1 and a.name not in optional]
    choice = rng.choice(["no_idle", "ties", "consecutive"] if len(flexible) >= 2 else ["no_idle", "consecutive"])
    if choice == "no_idle":
        case.no_idle = rng.sample(machines, 1)
    elif choice == "ties":
        a, b = rng.sample(flexible, 2)
        case.ties.append((rng.choice(["same", "different"]), a, b))
    else:
        machine = rng.choice(machines)
        users = [a.name for a in case.activities if any(machine in uses for _, uses in a.modes)
                 and a.name not in optional]
        if len(users) >= 2:
            case.consecutive.append(tuple(rng.sample(users, 2)))  # type: ignore[arg-type]


def _relations(case: Case, rng: random.Random) -> None:
    """One or two generalised precedences between activities of different jobs (or any two)."""
    names = [a.name for a in case.activities]
    taken = {(a, "e->s", b) for a, b, _ in case.precedences}
    for _ in range(rng.randint(1, 2)):
        a, b = rng.sample(names, 2)
        relation = rng.choice(list(RELATIONS))
        if (a, relation, b) not in taken:  # a table holds one row per (before, after, relation)
            taken.add((a, relation, b))
            case.relations.append((a, relation, rng.randint(-4, 4), b))


def _setups(case: Case, rng: random.Random) -> None:
    """Setup times for some ordered pairs of activities that can share a machine."""
    for machine in [r for r, k, _ in case.resources if k == "unary"]:
        users = [a.name for a in case.activities if any(machine in uses for _, uses in a.modes)]
        for a in users:
            for b in users:
                if a != b and rng.random() < 0.5:
                    case.setups.append((machine, a, b, rng.randint(1, 4)))


COMPACT_SHAPES = ("single_machine", "parallel_machines", "flow_shop", "jobshop", "fjsp")


def compact_setup_case(seed: int) -> Case:
    """A case of a machine shape whose setups are written compactly: per machine a constant row ``M * * T``
    (often), and rows ``M J K T`` over ordered job pairs, the same job twice included (sometimes). The
    activity pairs given to PyJobShop are expanded here by the documented precedence (job row, then the
    constant; docs/language.md), for every ordered pair of distinct activities that can share the machine.
    The objective is the makespan, or a weighted sum of the makespan and the total setup time."""
    rng = random.Random(seed)
    shape = COMPACT_SHAPES[seed % len(COMPACT_SHAPES)]
    case = Case(seed=seed, shape=shape, family=shape, objective="makespan")
    BUILD[shape](case, rng)
    if rng.random() < 0.5:
        case.objective, case.terms = "terms", [(1, "makespan"), (rng.randint(1, 3), "setup_time")]
    for machine in [r for r, k, _ in case.resources if k == "unary"]:
        users = [a for a in case.activities if any(machine in uses for _, uses in a.modes)]
        constant = rng.randint(1, 4) if rng.random() < 0.7 else None
        if constant is not None:
            case.compact_setups.append(f"{machine} * * {constant}")
        jobs = list(dict.fromkeys(a.job for a in users))
        rows = {(j, k): rng.randint(0, 5) for j in jobs for k in jobs if rng.random() < 0.35}
        case.compact_setups += [f"{machine} {j} {k} {t}" for (j, k), t in rows.items()]
        for a in users:
            for b in users:
                time = rows.get((a.job, b.job), constant)
                if a is not b and time:
                    case.setups.append((machine, a.name, b.name, time))
    return case


def _selections(case: Case, rng: random.Random) -> None:
    """Two or three extra operations appended to one job, none in its route, under one selection rule."""
    job = rng.choice(case.jobs)
    machines = [r for r, k, _ in case.resources if k == "unary"]
    step = max(a.step for a in case.activities if a.job == job)
    extra = []
    for k in range(1, rng.randint(2, 3) + 1):
        name = f"{job}.{step + k}"
        case.activities.append(Activity(name, job, step + k, [(rng.randint(1, 6), {rng.choice(machines): 1})]))
        extra.append(name)
    case.selections.append((rng.choice(["optional", "all_or_none", "at_least_one", "exactly_one"]), extra))


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
    if case.precedences or case.relations:
        lines.append("hard precedence_lag order table")
        lines += [f"  {a} ->{f'+{lag}' if lag else ''} {b}" for a, b, lag in case.precedences]
        lines += [f"  {a} {rel}{'' if not d else f'{d:+d}'} {b}" for a, rel, d, b in case.relations]
        lines.append("end")
    kinds = {k for _, k, _ in case.resources}
    if "unary" in kinds:
        lines.append("hard unary_no_overlap machines")
    if "renewable" in kinds:
        lines.append("hard cumulative_renewable renewable")
    lines.append("hard mode_choice modes")
    rows = [f"  {t} {r} {'-' if d is None else d}" for t, r, d in case.windows]
    windowed = {t for t, _, _ in case.windows}
    rows = [row + _due_cells(case, row.split()[0]) for row in rows]
    rows += [f"  {t} 0 -{_due_cells(case, t)}" for t in case.targets if t not in windowed]
    if rows:
        lines.append("hard time_window windows table")
        lines += rows
        lines.append("end")
    if case.compact_setups:
        lines += ["hard setup_times changeovers table", *[f"  {row}" for row in case.compact_setups], "end"]
    elif case.setups:
        lines.append("hard setup_times changeovers table")
        lines += [f"  {m} {a} {b} {t}" for m, a, b, t in case.setups]
        lines.append("end")
    if case.no_idle:
        lines.append(f"hard no_idle flow resources=[{' '.join(case.no_idle)}]")
    if case.permutation:
        lines.append("hard same_sequence permutation")
    if case.breaks:
        lines.append(f"hard resource_downtime breaks{' pausable=true' if case.pausable else ''} table")
        lines += [f"  {m} {a} {b}" for m, a, b in case.breaks]
        lines.append("end")
    if case.ties:
        lines += ["hard resource_ties ties table", *[f"  {r} {a} {b}" for r, a, b in case.ties], "end"]
    if case.consecutive:
        lines += ["hard consecutive pairs table", *[f"  {a} {b}" for a, b in case.consecutive], "end"]
    if case.selections:
        lines.append("hard optional choices table")
        lines += [f"  {rule} {' '.join(names)}" for rule, names in case.selections]
        lines.append("end")
    if case.dues:
        lines.append("soft 1 tardiness due table")
        lines += [f"  {j} {d} {w}" for j, d, w in case.dues]
        lines.append("end")
    if case.terms:
        lines.append("minimize " + " + ".join(f"{w}*{m}" for w, m in case.terms))
    else:
        lines.append("minimize penalty" if case.objective == "tardiness" else "minimize makespan")
    return "\n".join(lines) + "\n"


def _due_cells(case: Case, target: str) -> str:
    if target not in case.targets:
        return ""
    due, weight = case.targets[target]
    return f" due={due}" + ("" if weight == 1 else f" weight={weight}")
