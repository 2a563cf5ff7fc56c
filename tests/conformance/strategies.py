"""Hypothesis strategies that write random small *valid* ``.sched`` specs as text.

A spec is drawn in three steps: a family (a built-in one, or a user family of built-in kinds written
as a family spec of its own), the instance data (jobs or activities and resources; or entity
tables and a calendar), then constraints of every kind the family allows, each in one of the
parameter forms the parser accepts. Everything is written as text, so that the parser, the semantic
pass and the printer are exercised as a user's file would exercise them.

**Witness.** Before the constraints, a random *witness* schedule is drawn (interval specs: the
activities one after another in a random order, with random gaps; slot specs: a random assignment).
Each hard rule is drawn, with probability :data:`WITNESS_SHARE`, so that the witness keeps it
(a release date at or before the witness start, a staffing bound around the witness count, …), and
freely otherwise: most specs are feasible, some are not, and both backends must agree either way.

Instances are tiny (at most 5 activities, or 4 agents × 7 days of up to 3 periods) so that each solver proves its
optimum in well under a second. Sizes, choices and kinds are documented at each generator; the
kinds × parameter forms they reach are measured on the parsed IR by :mod:`tests.conformance.coverage`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")

#: share of hard rules drawn so that the witness schedule keeps them
WITNESS_SHARE = 0.8

INTERVAL_MEASURES = ("makespan", "penalty", "completion", "flow_time", "tardy_jobs", "tardiness", "earliness",
                     "max_tardiness", "max_lateness", "setup_time")
RELATIONS = ("e->s", "s->s", "s->e", "e->e", "s=s", "s=e", "e=s", "e=e")
WEEKENDS = ("SaturdaySunday", "FridaySaturdaySunday", "SaturdaySundayMonday", "FridaySaturdaySundayMonday")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: 2010-01-04 is a Monday: start dates of the calendars, by the weekday of day 0
START_DATES = {day: f"2010-01-{4 + k:02d}" for k, day in enumerate(WEEKDAYS)}


@dataclass(frozen=True)
class Spec:
    """One drawn spec: the instance text and, for a user family, the family spec's text."""

    name: str
    structure: str
    family: str
    text: str
    family_text: str | None = None
    #: the witness schedule the hard rules were mostly drawn to keep: (activity, start, mode) or
    #: (agent, day, period, value) tuples (the oracle holds it against the solvers' verdicts)
    witness: tuple[tuple[Any, ...], ...] = ()

    def write(self, folder: Path) -> Path:
        """Write the instance (and its family spec) into ``folder``; the path of the instance."""
        if self.family_text is not None:
            (folder / f"{self.family}.sched").write_text(self.family_text, encoding="utf-8")
        path = folder / f"{self.name}.sched"
        path.write_text(self.text, encoding="utf-8")
        return path

    def show(self) -> str:
        """Both texts, for a failure message or a regression test."""
        family = f"--- {self.family}.sched\n{self.family_text}\n" if self.family_text else ""
        return f"{family}--- {self.name}.sched\n{self.text}"


class Draw:
    """Hypothesis ``draw`` with the few shapes the generators need (every choice shrinks)."""

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]):
        self.draw = draw

    def int(self, lo: int, hi: int) -> int:
        return int(self.draw(st.integers(lo, max(lo, hi))))

    def chance(self, p: float) -> bool:
        """True with probability about ``p`` (shrinks towards False)."""
        return bool(self.draw(st.integers(0, 99)) >= 100 - round(p * 100))

    def pick(self, items: Sequence[T]) -> T:
        return items[self.int(0, len(items) - 1)]

    def subset(self, items: Sequence[T], lo: int = 1, hi: int | None = None) -> list[T]:
        """A sub-list of ``items`` (order kept) of ``lo``..``hi`` elements."""
        hi = len(items) if hi is None else min(hi, len(items))
        if lo > hi or not items:  # (sampled_from refuses an empty range)
            return list(items[:hi])
        chosen = self.draw(st.lists(st.sampled_from(range(len(items))), min_size=lo, max_size=hi, unique=True))
        return [items[i] for i in sorted(chosen)]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        return list(self.draw(st.permutations(list(items))))


@dataclass
class Rules:
    """The constraint statements drawn so far, with a fresh id for each."""

    lines: list[str] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    counter: int = 0
    #: a kind drawn in every spec, in each modality more often (the coverage test's focused draws)
    focus: str | None = None

    def chance(self, d: Draw, kind: str, p: float) -> bool:
        """Whether to draw a rule of ``kind`` (always for the focused kind)."""
        return kind == self.focus or d.chance(p)

    def rare(self, d: Draw, kind: str, p: float) -> bool:
        """A rare form of ``kind`` (probability ``p``; 0.25 for the focused kind)."""
        return d.chance(0.25 if kind == self.focus else p)

    def add(self, d: Draw, kind: str, params: str = "", rows: Sequence[str] | None = None, *,
            hard: bool | None = None, inactive_ok: bool = True) -> bool:
        """``hard|soft W [inactive "why"] KIND ID params [table rows end]``; modality drawn when not given.

        Returns whether the rule is hard and active (a sequencing rule needs such a unary_no_overlap)."""
        self.counter += 1
        cid = f"{kind[:4]}{self.counter}"
        if hard is None:
            hard = not d.chance(0.45 if kind == self.focus else 0.35)
        head = "hard" if hard else f"soft {d.int(0, 5)}"
        inactive = inactive_ok and d.chance(0.2 if kind == self.focus else 0.08)
        if inactive:
            head += ' inactive "kept for reference"'
        text = f"{head} {kind} {cid}" + (f" {params}" if params else "")
        if rows is not None:
            text += " table\n" + "".join(f"  {r}\n" for r in rows) + "end"
        self.lines.append(text)
        self.kinds.add(kind)
        return hard and not inactive

    def hard(self, d: Draw) -> bool:
        """A modality drawn before the rows (rows kept by the witness only when hard)."""
        return not d.chance(0.35)


# =============================================================================== interval specs


@dataclass
class Mode:
    duration: int
    uses: dict[str, int]


@dataclass
class Act:
    name: str
    modes: list[Mode]
    job: str | None = None
    step: int | None = None


@dataclass
class Shop:
    """The interval data drawn so far, and a witness schedule of it."""

    layout: str  # "jobs" or "activities"
    resources: dict[str, tuple[str, int]]  # name -> (kind, capacity)
    acts: list[Act]
    start: dict[str, int] = field(default_factory=dict)
    mode: dict[str, int] = field(default_factory=dict)  # 0-based
    end: dict[str, int] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    #: workers of skill_requirements: name -> (crew, skills)
    workers: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)

    @property
    def jobs(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for a in self.acts:
            if a.job is not None:
                out.setdefault(a.job, []).append(a.name)
        return out

    def act(self, name: str) -> Act:
        return next(a for a in self.acts if a.name == name)

    def unary(self) -> list[str]:
        return [r for r, (kind, _) in self.resources.items() if kind == "unary"]

    def users(self, resource: str) -> list[str]:
        return [a.name for a in self.acts if any(resource in m.uses for m in a.modes)]

    def members(self, target: str) -> list[str]:
        return self.jobs.get(target) or [target]

    def targets(self) -> list[str]:
        """The objective targets: the jobs, or the activities when there are none."""
        return list(self.jobs) or [a.name for a in self.acts]

    def makespan(self) -> int:
        return max(self.end.values(), default=0)


INTERVAL_FAMILIES = {
    # family: (layout, several modes allowed, resource kinds, kinds, objectives)
    "jobshop": ("jobs", False, ("unary",)),
    "fjsp": ("jobs", True, ("unary",)),
    "flow_shop": ("jobs", False, ("unary",)),
    "single_machine": ("jobs", False, ("unary",)),
    "parallel_machines": ("jobs", True, ("unary",)),
    "rcpsp": ("activities", False, ("renewable",)),
    "mrcpsp": ("activities", True, ("renewable", "nonrenewable")),
    "open_shop": ("activities", False, ("renewable",)),
}

_SHOP_KINDS = ("precedence_lag", "unary_no_overlap", "mode_choice", "time_window", "resource_downtime", "tardiness",
               "optional", "setup_times", "no_idle", "resource_ties", "consecutive", "objective_bound")
_PROJECT_KINDS = ("precedence_lag", "cumulative_renewable", "mode_choice", "time_window", "resource_downtime",
                  "tardiness", "optional", "objective_bound")
BUILTIN_INTERVAL_KINDS = {
    "jobshop": _SHOP_KINDS, "fjsp": _SHOP_KINDS, "single_machine": _SHOP_KINDS, "parallel_machines": _SHOP_KINDS,
    "flow_shop": (*_SHOP_KINDS, "same_sequence"),
    "rcpsp": _PROJECT_KINDS, "mrcpsp": (*_PROJECT_KINDS, "nonrenewable_budget"),
    "open_shop": (*_PROJECT_KINDS, "unary_no_overlap"),
}
BUILTIN_INTERVAL_OBJECTIVES = {
    name: tuple(m for m in INTERVAL_MEASURES if not (m == "setup_time" and name in ("rcpsp", "mrcpsp", "open_shop")))
    for name in INTERVAL_FAMILIES
}
ALL_INTERVAL_KINDS = ("precedence_lag", "unary_no_overlap", "cumulative_renewable", "nonrenewable_budget",
                      "mode_choice", "time_window", "resource_downtime", "tardiness", "setup_times", "optional",
                      "no_idle", "consecutive", "resource_ties", "same_sequence", "objective_bound",
                      "skill_requirements")
#: kinds a user family lists only when its instance states them (their data need the family's own classes)
_DATA_KINDS = ("skill_requirements",)


@st.composite
def interval_specs(draw: Callable[[st.SearchStrategy[Any]], Any], user: bool | None = None,
                   focus: str | None = None, measure: str | None = None) -> Spec:
    """A job shop, flow shop, parallel machines, project or open shop of 1–5 activities, in a built-in
    family or a user family; constraints of every interval kind the family allows (``focus``: always of
    that kind; ``measure``: the objective, ``sum`` a weighted sum)."""
    d = Draw(draw)
    if user is None:
        user = d.chance(0.5) or measure == "setup_time" or focus in _DATA_KINDS
    name = f"g{d.int(0, 999)}"
    if user:
        layout = d.pick(("jobs", "activities"))
        multi = d.chance(0.6)
        resource_kinds: tuple[str, ...] = ("unary",) if layout == "jobs" else \
            tuple(d.subset(("unary", "renewable", "nonrenewable"), 1))
        family = f"uf{d.int(0, 99)}"
        allowed = ALL_INTERVAL_KINDS
        objectives = INTERVAL_MEASURES
    else:
        family = d.pick([f for f in sorted(INTERVAL_FAMILIES) if focus is None or focus in BUILTIN_INTERVAL_KINDS[f]]
                        or sorted(INTERVAL_FAMILIES))
        layout, multi, resource_kinds = INTERVAL_FAMILIES[family]
        allowed = BUILTIN_INTERVAL_KINDS[family]
        objectives = BUILTIN_INTERVAL_OBJECTIVES[family]
    shop = _draw_shop(d, family, layout, multi, resource_kinds)
    _draw_witness(d, shop)
    rules = Rules(focus=focus)
    _interval_rules(d, shop, rules, allowed, family)
    objective = _interval_objective(d, objectives, shop, rules, measure)
    if "objective_bound" in allowed and rules.chance(d, "objective_bound", 0.25):
        _objective_bound(d, rules, objective, shop)
    lines = [f"instance {name} family {family}"]
    if d.chance(0.25):
        horizon = shop.makespan() + d.int(0, 4) if d.chance(WITNESS_SHARE) else d.int(0, shop.makespan())
        lines.append(f"horizon {horizon}")
    lines += _shop_tables(shop)
    tables = len(lines)
    lines += rules.lines
    lines.append(f"minimize {objective}")
    family_text = _interval_family_text(d, family, shop, rules.kinds | {"mode_choice"}, objective) if user else None
    if family_text is not None and f"class {ROLE} ()" in family_text:  # the answer names each mode's machine
        lines[tables:tables] = [f"{ROLE} () table", "  " + " ".join(shop.resources), "end"]
    witness = tuple((n, shop.start[n], shop.mode[n] + 1) for n in shop.order)
    return Spec(name=name, structure="interval", family=family, text="\n".join(lines) + "\n",
                family_text=family_text, witness=witness)


def _draw_shop(d: Draw, family: str, layout: str, multi: bool, resource_kinds: tuple[str, ...]) -> Shop:
    if layout == "jobs":
        machines = 1 if family == "single_machine" else d.int(1, 3)
        resources = {f"M{k}": ("unary", 1) for k in range(1, machines + 1)}
        acts: list[Act] = []
        jobs = d.int(1, 4 if machines > 1 else 5)
        budget = 5
        for j in range(1, jobs + 1):
            if family == "flow_shop":
                route = list(resources)
            elif family == "parallel_machines":
                route = [d.pick(list(resources)) for _ in range(d.int(1, 2))]
            else:
                route = [d.pick(list(resources)) for _ in range(d.int(1, 3))]
            route = route[:max(1, budget - len(acts) - (jobs - j))]
            for step, machine in enumerate(route, start=1):
                options = [machine]
                if multi and machines > 1 and d.chance(0.6):
                    options = d.subset(list(resources), 2)
                modes = [Mode(d.int(0, 4) if d.chance(0.1) else d.int(1, 4), {m: 1}) for m in options]
                acts.append(Act(f"J{j}.{step}", modes, job=f"J{j}", step=step))
        return Shop(layout, resources, acts)
    resources = {}
    for kind in resource_kinds:
        for k in range(1, d.int(1, 2) + 1):
            prefix = {"unary": "U", "renewable": "R", "nonrenewable": "N"}[kind]
            resources[f"{prefix}{k}"] = (kind, 1 if kind == "unary" else d.int(1, 4 if kind == "renewable" else 9))
    acts = []
    for a in range(1, d.int(2, 5) + 1):
        modes = []
        for _ in range(d.int(2, 3) if multi else 1):
            uses = {}
            for r in d.subset(list(resources), 1, 3):
                kind, cap = resources[r]
                uses[r] = 1 if kind == "unary" else d.int(1, cap)
            modes.append(Mode(d.int(0, 4) if d.chance(0.1) else d.int(1, 4), uses))
        acts.append(Act(f"A{a}", modes))
    return Shop(layout, resources, acts)


def _draw_witness(d: Draw, shop: Shop) -> None:
    """One activity at a time in a random order (job steps in route order), with gaps of 0–2."""
    pending = {j: list(names) for j, names in shop.jobs.items()}
    loose = [a.name for a in shop.acts if a.job is None]
    t = 0
    while any(pending.values()) or loose:
        heads = [names[0] for names in pending.values() if names] + loose
        name = d.pick(heads)
        if name in loose:
            loose.remove(name)
        else:
            pending[shop.act(name).job or ""].pop(0)
        act = shop.act(name)
        mode = d.int(0, len(act.modes) - 1)
        t += d.int(0, 2)
        shop.start[name], shop.mode[name] = t, mode
        t += act.modes[mode].duration
        shop.end[name] = t
        shop.order.append(name)


def _shop_tables(shop: Shop) -> list[str]:
    lines = ["resources table"]
    for r, (kind, cap) in shop.resources.items():
        lines.append(f"  {r} {kind}" + ("" if kind == "unary" else f" {cap}"))
    lines.append("end")
    if shop.layout == "jobs":
        lines.append("jobs table")
        for job, names in shop.jobs.items():
            ops = " ".join("/".join(f"{r}:{m.duration}" for m in shop.act(n).modes for r in m.uses) for n in names)
            lines.append(f"  {job} {ops}")
        lines.append("end")
        return lines + _worker_table(shop)
    columns = list(shop.resources)
    lines.append(f"activities ({' '.join(columns)}) table")
    for a in shop.acts:
        for k, m in enumerate(a.modes, start=1):
            lines.append(f"  {a.name} {k} {m.duration} " + " ".join(str(m.uses.get(r, 0)) for r in columns))
    lines.append("end")
    return lines + _worker_table(shop)


def _worker_table(shop: Shop) -> list[str]:
    """The workers of ``skill_requirements`` (none: no table)."""
    if not shop.workers:
        return []
    rows = [f"  {w} {crew} {','.join(skills) or '-'}" for w, (crew, skills) in shop.workers.items()]
    return ["worker (crew skills) table", *rows, "end"]


def _interval_rules(d: Draw, shop: Shop, rules: Rules, allowed: Sequence[str], family: str) -> None:
    """Constraints of the allowed interval kinds, each with its own probability."""
    if "mode_choice" in allowed and rules.chance(d, "mode_choice", 0.9):
        rules.add(d, "mode_choice", "", hard=not d.chance(0.05))
    if shop.layout == "jobs" and "precedence_lag" in allowed and rules.chance(d, "precedence_lag", 0.9):
        _routes(d, shop, rules)
    unary = shop.unary()
    covered: list[str] = []
    if unary and "unary_no_overlap" in allowed and rules.chance(d, "unary_no_overlap", 0.9):
        covered = unary if d.chance(0.7) else d.subset(unary, 1)
        scope = "" if covered == unary and d.chance(0.5) else \
            ("resources=all" if covered == unary else f"resources=[{' '.join(covered)}]")
        if not rules.add(d, "unary_no_overlap", scope, hard=not rules.rare(d, "unary_no_overlap", 0.03)):
            covered = []
    renewable = [r for r, (k, _) in shop.resources.items() if k == "renewable"]
    if renewable and "cumulative_renewable" in allowed and rules.chance(d, "cumulative_renewable", 0.9):
        scope = d.pick(("", "resources=all", f"resources=[{' '.join(d.subset(renewable, 1))}]"))
        rules.add(d, "cumulative_renewable", scope, hard=not rules.rare(d, "cumulative_renewable", 0.05))
    budget = [r for r, (k, _) in shop.resources.items() if k == "nonrenewable"]
    if budget and "nonrenewable_budget" in allowed and rules.chance(d, "nonrenewable_budget", 0.9):
        scope = d.pick(("", "resources=all", f"resources=[{' '.join(d.subset(budget, 1))}]"))
        rules.add(d, "nonrenewable_budget", scope)
    table: list[tuple[str, Callable[[Draw, Shop, Rules, list[str]], None], float]] = [
        ("precedence_lag", _precedence, 0.6), ("time_window", _time_window, 0.5),
        ("resource_downtime", _downtime, 0.35), ("tardiness", _tardiness, 0.35), ("optional", _optional, 0.25),
        ("setup_times", _setups, 0.4), ("no_idle", _no_idle, 0.2), ("consecutive", _consecutive, 0.25),
        ("resource_ties", _ties, 0.25), ("same_sequence", _same_sequence, 0.6),
        ("skill_requirements", _skill_requirements, 0.3),
    ]
    for kind, make, p in table:
        # a kind added after the fixed-seed slices were tuned is drawn in its focused draws only, so that the
        # other draws (and the forms they reach) stay as they were
        if kind in _DATA_KINDS and rules.focus != kind:
            continue
        if kind in allowed and rules.chance(d, kind, p):
            make(d, shop, rules, covered)


def _routes(d: Draw, shop: Shop, rules: Rules) -> None:
    """The routes of the jobs, as chains ``J1.1 -> J1.2 -> J1.3`` (or one edge per row)."""
    rows = []
    for names in shop.jobs.values():
        if len(names) < 2:
            continue
        if d.chance(0.7):
            rows.append(" -> ".join(names))
        else:
            rows += [f"{a} -> {b}" for a, b in zip(names, names[1:], strict=False)]
    if rows:
        rules.add(d, "precedence_lag", "", rows, hard=not d.chance(0.05))


def _point(shop: Shop, name: str, which: str) -> int:
    return shop.start[name] if which == "s" else shop.end[name]


def _arrow(d: Draw, relation: str, delay: int) -> str:
    head = relation
    if relation == "e->s" and d.chance(0.6):
        head = "->"
    if delay == 0 and not d.chance(0.25):  # "+0" written out: rare, yet reached by the coverage draws
        return head
    return f"{head}{delay:+d}"


def _precedence(d: Draw, shop: Shop, rules: Rules, covered: list[str]) -> None:
    """Edges of the eight relations with signed delays, as single edges, chains or fan-outs.

    End-to-start edges with a non-negative delay only go forward in the witness order (they would
    otherwise close a cycle, which the semantic pass rejects)."""
    names = shop.order
    if len(names) < 2:
        return
    rows = []
    keys: set[tuple[str, str, str]] = set()
    for _ in range(d.int(1, 3)):
        i, j = d.subset(range(len(names)), 2, 2)
        a, b = (names[i], names[j]) if d.chance(0.7) else (names[j], names[i])
        relation = d.pick(RELATIONS)
        gap = _point(shop, b, relation[-1]) - _point(shop, a, relation[0])
        if "=" in relation:
            delay = gap if d.chance(WITNESS_SHARE) else d.int(-3, 3)
        else:
            delay = d.int(gap - 3, gap) if d.chance(WITNESS_SHARE) else d.int(-3, 4)
        if relation == "e->s" and delay >= 0 and names.index(a) > names.index(b):
            delay = -1 - d.int(0, 2)
        if (a, b, relation) in keys:
            continue
        keys.add((a, b, relation))
        shape = d.int(0, 2)
        if shape == 1:  # a fan-out with one more head (same arrow)
            extra = [n for n in names if n not in (a, b) and (a, n, relation) not in keys
                     and not (relation == "e->s" and delay >= 0 and names.index(a) > names.index(n))]
            if extra:
                c = d.pick(extra)
                keys.add((a, c, relation))
                rows.append(f"{a} {_arrow(d, relation, delay)} {b} {c}")
                continue
        if shape == 2:  # a chain: b on to a later activity, end before start
            later = [n for n in names[names.index(b) + 1:] if n != a and (b, n, "e->s") not in keys]
            if later and names.index(a) < names.index(b):
                c = d.pick(later)
                keys.add((b, c, "e->s"))
                rows.append(f"{a} {_arrow(d, relation, delay)} {b} -> {c}")
                continue
        rows.append(f"{a} {_arrow(d, relation, delay)} {b}")
    if rows:
        rules.add(d, "precedence_lag", "", rows)


def _time_window(d: Draw, shop: Shop, rules: Rules, covered: list[str]) -> None:
    """``TARGET RELEASE [DEADLINE|-] [latest_start=] [earliest_end=] [due=] [weight=]`` rows."""
    candidates = list(shop.jobs) + [a.name for a in shop.acts] if shop.jobs and d.chance(0.3) else shop.targets()
    targets = shop.targets()
    rows = []
    for target in d.subset(candidates, 1, 3):
        members = shop.members(target)
        first = min(shop.start[n] for n in members)
        last = max(shop.end[n] for n in members)
        fit = d.chance(WITNESS_SHARE)
        release = d.int(0, first) if fit else d.int(0, last + 2)
        cells = [target, str(release)]
        deadline = None
        if d.chance(0.5):
            deadline = d.int(max(last, release + 1), last + 3) if fit else d.int(release + 1, release + 6)
            cells.append(str(deadline))
        elif d.chance(0.3):
            cells.append("-")
        if d.chance(0.3):
            latest = max(shop.start[n] for n in members)
            cells.append(f"latest_start={d.int(max(latest, release), latest + 2) if fit else release + d.int(0, 3)}")
        if d.chance(0.25):
            earliest = min(shop.end[n] for n in members)
            value = d.int(max(0, earliest - 2), earliest) if fit else d.int(0, 8)
            if deadline is not None:
                value = min(value, deadline)
            cells.append(f"earliest_end={value}")
        if target in targets and d.chance(0.5):
            cells.append(f"due={d.int(0, shop.makespan() + 2)}")
        if target in targets and d.chance(0.4):
            cells.append(f"weight={d.int(0, 3)}")
        rows.append(" ".join(cells))
    rules.add(d, "time_window", "", rows)


def _downtime(d: Draw, shop: Shop, rules: Rules, covered: list[str]) -> None:
    """``RESOURCE START END [LABEL]`` rows on unary or renewable resources; ``pausable=true`` or not.

    A witness-kept window lies where no witness activity uses the resource (or after the last one)."""
    usable = [r for r, (k, _) in shop.resources.items() if k != "nonrenewable" and shop.users(r)]
    if not usable:
        return
    rows = []
    for resource in d.subset(usable, 1, 2):
        busy = sorted((shop.start[n], shop.end[n]) for n in shop.users(resource)
                      if resource in shop.act(n).modes[shop.mode[n]].uses and shop.end[n] > shop.start[n])
        gaps, t = [], 0
        for s, e in busy:
            if s > t:
                gaps.append((t, s))
            t = max(t, e)
        gaps.append((t, t + 3))
        if d.chance(WITNESS_SHARE):
            lo, hi = d.pick(gaps)
            start = d.int(lo, hi - 1)
            end = d.int(start + 1, hi)
        else:
            start = d.int(0, shop.makespan())
            end = start + d.int(1, 3)
        label = d.pick(("", " lunch", ' "planned stop"', " maintenance"))
        rows.append(f"{resource} {start} {end}{label}")
    params = "pausable=true" if d.chance(0.35) else ("pausable=false" if d.chance(0.1) else "")
    rules.add(d, "resource_downtime", params, rows)


def _tardiness(d: Draw, shop: Shop, rules: Rules, covered: list[str]) -> None:
    """``TARGET DUE [WEIGHT]`` rows; hard (completion by the due date) or soft (weighted lateness)."""
    hard = rules.hard(d)
    rows = []
    for target in d.subset(shop.targets(), 1, 3):
        completion = max(shop.end[n] for n in shop.members(target))
        due = d.int(completion, completion + 2) if hard and d.chance(WITNESS_SHARE) else d.int(0, completion + 1)
        rows.append(f"{target} {due}" + (f" {d.int(0, 3)}" if d.chance(0.5) else ""))
    rules.add(d, "tardiness", "", rows, hard=hard)


def _optional(d: Draw, shop: Shop, rules: Rules, covered: list[str]) -> None:
    """``RULE ACTIVITY...`` rows: optional, all_or_none, at_least_one, exactly_one."""
    names = [a.name for a in shop.acts]
    rows = []
    for _ in range(d.int(1, 2)):
        rule = d.pick(("optional", "all_or_none", "at_least_one", "exactly_one"))
        rows.append(" ".join([rule, *d.subset(names, 1, 3)]))
    rules.add(d, "optional", "", rows)


def _sequenced(shop: Shop, covered: list[str]) -> list[str]:
    """The unary resources a sequencing rule may name: those a hard unary_no_overlap keeps."""
    return [r for r in covered if len(shop.users(r)) >= 2]


def _setups(d: Draw, shop: Shop, rules: Rules, covered: list[str]) -> None:
    """``RESOURCE FROM TO TIME`` rows on unary resources kept by a hard unary_no_overlap: activity rows,
    sometimes a constant row ``R * *`` and (jobs layout) class rows ``R JOB JOB`` that the activity rows
    then override."""
    usable = _sequenced(shop, covered)
    if not usable:
        return
    rows, keys = [], set()
    for resource in usable:
        if rules.rare(d, "setup_times", 0.15):
            keys.add((resource, "*", "*"))
            rows.append(f"{resource} * * {d.int(0, 3)}")
        jobs = list(dict.fromkeys(shop.act(a).job for a in shop.users(resource) if shop.act(a).job is not None))
        if jobs and rules.rare(d, "setup_times", 0.15):
            first, second = d.pick(jobs), d.pick(jobs)
            keys.add((resource, first, second))
            rows.append(f"{resource} {first} {second} {d.int(0, 3)}")
    for _ in range(d.int(1, 4)):
        resource = d.pick(usable)
        a, b = d.subset(shop.users(resource), 2, 2)
        if d.chance(0.5):
            a, b = b, a
        if (resource, a, b) not in keys:
            keys.add((resource, a, b))
            rows.append(f"{resource} {a} {b} {d.int(0, 3)}")
    rules.add(d, "setup_times", "", rows)


def _no_idle(d: Draw, shop: Shop, rules: Rules, covered: list[str]) -> None:
    if not covered:
        return
    unary = shop.unary()
    scope = "" if covered == unary and d.chance(0.5) else \
        ("resources=all" if covered == unary and d.chance(0.5) else f"resources=[{' '.join(d.subset(covered, 1))}]")
    rules.add(d, "no_idle", scope)


def _consecutive(d: Draw, shop: Shop, rules: Rules, covered: list[str]) -> None:
    """``A B`` rows of two activities sharing a unary resource kept by a hard unary_no_overlap."""
    # every resource either activity may use must be kept (E209), not only the one they share
    kept = {a.name for a in shop.acts
            if all(r in covered for m in a.modes for r in m.uses if shop.resources[r][0] == "unary")}
    pairs = {r: [a for a in shop.users(r) if a in kept] for r in _sequenced(shop, covered)}
    usable = [r for r, users in pairs.items() if len(users) >= 2]
    if not usable:
        return
    rows = []
    for _ in range(d.int(1, 2)):
        a, b = d.subset(pairs[d.pick(usable)], 2, 2)
        rows.append(f"{a} {b}" if d.chance(0.5) else f"{b} {a}")
    rules.add(d, "consecutive", "", list(dict.fromkeys(rows)))


def _ties(d: Draw, shop: Shop, rules: Rules, covered: list[str]) -> None:
    """``same|different A B`` rows over activities with unary resources."""
    names = [a.name for a in shop.acts if any(shop.resources[r][0] == "unary" for m in a.modes for r in m.uses)]
    if len(names) < 2:
        return
    rows, keys = [], set()
    for _ in range(d.int(1, 2)):
        a, b = d.subset(names, 2, 2)
        if (a, b) not in keys:
            keys.add((a, b))
            rows.append(f"{d.pick(('same', 'different'))} {a} {b}")
    rules.add(d, "resource_ties", "", rows)


def _same_sequence(d: Draw, shop: Shop, rules: Rules, covered: list[str]) -> None:
    """``resources=all|[A B ...]`` (pairs by job) or two resources and a table ``FIRST SECOND``."""
    unary = shop.unary()
    if len(covered) < 2:
        return
    if shop.jobs and d.chance(0.6) and all(
            sum(1 for n in names if any(r in m.uses for m in shop.act(n).modes)) <= 1 for names in shop.jobs.values()
            for r in covered):
        scope = "" if covered == unary and d.chance(0.3) else \
            ("resources=all" if covered == unary else f"resources=[{' '.join(covered)}]")
        rules.add(d, "same_sequence", scope, hard=not rules.rare(d, "same_sequence", 0.05))
        return
    first, second = d.subset(covered, 2, 2)
    on_first = [n for n in shop.users(first) if any(shop.act(n).modes[k].duration > 0 and first in m.uses
                                                    for k, m in enumerate(shop.act(n).modes))]
    on_second = [n for n in shop.users(second) if any(shop.act(n).modes[k].duration > 0 and second in m.uses
                                                      for k, m in enumerate(shop.act(n).modes))]
    size = min(len(on_first), len(on_second), 3)
    if size < 1:
        return
    pairs = zip(d.subset(on_first, size, size), d.shuffled(d.subset(on_second, size, size)), strict=True)
    rules.add(d, "same_sequence", f"resources=[{first} {second}]", [f"{a} {b}" for a, b in pairs],
              hard=not rules.rare(d, "same_sequence", 0.05))


SKILL_POOL = ("lab", "exam", "weld")


def _skill_requirements(d: Draw, shop: Shop, rules: Rules, covered: list[str]) -> None:
    """Workers (``worker (crew skills)``: W1 with 1–2 skills, the others with 0–2) and ``ACTIVITY SKILL COUNT``
    rows: for 1–3 activities a team of distinct selected workers, each member filling one skill it has (so a
    team covering every row exists); the selector (the class, W1's crew, or listed names) always selects W1."""
    for k in range(1, d.int(1, 3) + 1):
        shop.workers[f"W{k}"] = (d.pick(("c1", "c2")), tuple(d.subset(SKILL_POOL, 1 if k == 1 else 0, 2)))
    form = d.pick(("class", "where", "names"))
    if form == "where":
        crew = shop.workers["W1"][0]
        selector, chosen = f"worker[crew={crew}]", [w for w, (c, _) in shop.workers.items() if c == crew]
    elif form == "names":
        chosen = ["W1", *d.subset([w for w in shop.workers if w != "W1"], 0)]
        selector = f"worker[{','.join(chosen)}]"
    else:
        selector, chosen = "worker", list(shop.workers)
    skilled = [w for w in chosen if shop.workers[w][1]]
    rows: list[str] = []
    for a in d.subset([a.name for a in shop.acts], 1, 3):
        counts: dict[str, int] = {}
        for w in d.subset(skilled, 1, min(2, len(skilled))):
            skill = d.pick(shop.workers[w][1])
            counts[skill] = counts.get(skill, 0) + 1
        rows += [f"{a} {skill} {n}" for skill, n in counts.items()]
    params = f"workers={selector}" + (" skills=skills" if d.chance(0.3) else "")
    rules.add(d, "skill_requirements", params, rows, hard=not rules.rare(d, "skill_requirements", 0.05))


def _interval_objective(d: Draw, objectives: Sequence[str], shop: Shop, rules: Rules,
                        measure: str | None = None) -> str:
    """One measure, or a weighted sum of two or three (``minimize 2*makespan + tardiness``)."""
    if measure is not None and measure != "sum":
        return measure
    allowed = list(objectives)
    if "setup_time" in allowed and "setup_times" not in rules.kinds and d.chance(0.7):
        allowed.remove("setup_time")
    if measure == "sum" or d.chance(0.25):
        terms = d.subset(allowed, 2, 3)
        return " + ".join(f"{d.int(0, 3)}*{t}" if d.chance(0.7) else t for t in terms)
    if rules.focus != "objective_bound" and any(not line.startswith("hard") for line in rules.lines) \
            and d.chance(0.5):
        return "penalty" if "penalty" in allowed else allowed[0]
    return d.pick(allowed)


def _objective_bound(d: Draw, rules: Rules, objective: str, shop: Shop) -> None:
    """``hard objective_bound ID measure=M max=N`` on the instance's own measure."""
    measure = "sum" if "+" in objective or "*" in objective else objective
    rules.add(d, "objective_bound", f"measure={measure} max={d.int(0, shop.makespan() + 4)}", hard=True,
              inactive_ok=False)


#: The class a user family of a job shop may name its steps' machines by in the answer (a resource role).
ROLE = "line"


def _interval_family_text(d: Draw, family: str, shop: Shop, kinds: set[str], objective: str) -> str:
    """A family spec of built-in kinds for the drawn data: its answer line, names, roles and background."""
    multi = any(len(a.modes) > 1 for a in shop.acts)
    used = [t.split("*")[-1] for t in objective.split(" + ")]
    measures = list(dict.fromkeys([*used, *d.subset(INTERVAL_MEASURES, 0, 3)]))
    extra = d.subset([k for k in ALL_INTERVAL_KINDS if k not in kinds and k not in _DATA_KINDS], 0, 2)
    kind_list = " ".join([k for k in ALL_INTERVAL_KINDS if k in kinds or k in extra])
    if shop.layout == "jobs":
        answer = d.pick(("<job> step <step>: start=<start>, machine=<machine>",
                         "<job> op <step> starts <start> on <machine>",
                         f"<job> step <step>: start=<start>, {ROLE}=<{ROLE}>")) if multi else \
            d.pick(("<job> step <step>: start=<start>", "<job>/<step> at <start>"))
        role_pairs = [("job", d.pick(("order", "batch", "job"))), ("operation", d.pick(("stage", "step", "task"))),
                      ("machine", d.pick(("station", "oven", "machine")))]
        if d.chance(0.2):
            role_pairs = role_pairs[1:]  # a family without a job role
        rename = d.pick(("", '  rename [J "Order " M "Station "]\n', '  rename [M "Line "]\n'))
    else:
        answer = d.pick(("<activity>: start=<start>, mode=<mode>", "<activity> starts at <start> in mode <mode>")) \
            if multi else d.pick(("<activity>: <start>", "<activity>: start=<start>"))
        role_pairs = [("activity", d.pick(("task", "activity", "surgery"))),
                      ("resource", d.pick(("crew", "resource", "team")))]
        if multi:
            role_pairs.append(("mode", d.pick(("option", "mode"))))
        rename = d.pick(("", '  rename [A "Task " R "Crew "]\n', '  rename [U "Room "]\n'))
    classes = ""
    if shop.workers:  # the team is part of each answer line
        answer += ", workers=<workers>"
        classes = "  class worker (crew:name skills:names)\n"
        role_pairs.append(("worker", d.pick(("worker", "fitter"))))
    roles = " ".join(f'{k} "{v}"' for k, v in role_pairs)
    words = dict(role_pairs)
    background = "Work is planned on a small site."
    if "job" in words and d.chance(0.5):
        background += " Every {{ w.job }} follows its own route."
    elif "activity" in words and d.chance(0.5):
        background += " Each {{ w.activity }} runs without interruption."
    title = d.pick(("Bakery line scheduling", "Surgery planning", "Workshop plan"))
    # a resource role (docs/language.md): every mode of a job shop's step uses exactly one machine, all unary
    role = f"  class {ROLE} ()\n" if f"<{ROLE}>" in answer else ""
    return (f"family {family} {{\n  title \"{title}\"\n  structure interval\n"
            f"  objective [{' '.join(measures)}]\n  kinds [{kind_list}]\n{role}{classes}  answer \"{answer}\"\n{rename}"
            f"  roles [{roles}]\n  background \"\"\"\n    {background}\n  \"\"\"\n}}\n")


# =============================================================================== slot specs


@dataclass
class Roster:
    """The slot data drawn so far (classes and their entities), and a witness assignment."""

    agent_cls: str
    value_cls: str
    group_cls: str | None
    agents: dict[str, dict[str, Any]]
    values: dict[str, dict[str, Any]]
    groups: dict[str, list[str]]
    days: int
    periods: int
    free: str | None
    weekday0: str | None
    #: (agent, day, period) -> value of the witness
    held: dict[tuple[str, int, int], str] = field(default_factory=dict)
    int_attrs: tuple[str, ...] = ()  # int attributes of the agent class
    name_attr: str | None = None  # a name attribute of the agent class (for by= and where selectors)
    value_int: str | None = None  # an int attribute of the value class (capacity)
    agent_int: str | None = None  # an int attribute of the agent class (demand)
    group_int: str | None = None  # an int attribute of the group class (a weight)

    def working(self) -> list[str]:
        return [v for v in self.values if v != self.free]

    def cells(self, agent: str) -> list[tuple[int, int]]:
        return [(day, p) for (a, day, p) in self.held if a == agent]

    def works(self, agent: str, day: int) -> bool:
        return any(self.held.get((agent, day, p), self.free) != self.free for p in range(self.periods))

    def count(self, agent: str, values: set[str] | None = None) -> int:
        return sum(1 for (a, _, _), v in self.held.items() if a == agent and v != self.free
                   and (values is None or v in values))


@st.composite
def slot_specs(draw: Callable[[st.SearchStrategy[Any]], Any], user: bool | None = None,
               focus: str | None = None) -> Spec:
    """A timetable or roster of 2–4 agents over 2–7 days (1–3 periods), in a built-in family
    (itc2007, inrc2010, nsplib) or a user family; constraints of every slot kind the family allows."""
    d = Draw(draw)
    if user is None:
        user = d.chance(0.5)
    name = f"s{d.int(0, 999)}"
    builtin = [f for f in ("itc2007", "inrc2010", "nsplib") if focus is None or focus in SLOT_FAMILY_KINDS[f]]
    user = user or not builtin  # a kind no built-in family allows: a user family
    family = f"uf{d.int(0, 99)}" if user else d.pick(builtin)
    roster, tables, calendar = _draw_roster(d, family, user)
    _draw_assignment(d, roster)
    rules = Rules(focus=focus)
    allowed = SLOT_FAMILY_KINDS.get(family, ALL_SLOT_KINDS)
    _slot_rules(d, roster, rules, allowed)
    if "objective_bound" in allowed and rules.chance(d, "objective_bound", 0.1):
        rules.add(d, "objective_bound", f"measure=penalty max={d.int(0, 6)}", hard=True, inactive_ok=False)
    lines = [f"instance {name} family {family}", calendar, *tables, *rules.lines, "minimize penalty"]
    family_text = _slot_family_text(d, family, roster, rules.kinds) if user else None
    witness = tuple((agent, day, period, value) for (agent, day, period), value in roster.held.items())
    return Spec(name=name, structure="slot", family=family, text="\n".join(lines) + "\n", family_text=family_text,
                witness=witness)


ALL_SLOT_KINDS = ("one_per_slot", "coverage", "count_bounds", "slot_conflict", "unavailability",
                  "consecutive_run_bounds", "pattern_prohibition", "window_pattern_cost", "assignment_cost",
                  "capacity_overflow", "spread", "stability", "compactness", "skill_eligibility", "skill_demand",
                  "spacing", "slot_order", "shared_capacity", "value_mix", "slot_cost", "objective_bound")
SLOT_FAMILY_KINDS = {
    "itc2007": ("count_bounds", "one_per_slot", "slot_conflict", "unavailability", "capacity_overflow", "spread",
                "compactness", "stability", "objective_bound"),
    "inrc2010": ("one_per_slot", "coverage", "count_bounds", "consecutive_run_bounds", "window_pattern_cost",
                 "pattern_prohibition", "assignment_cost", "skill_eligibility", "objective_bound"),
    "nsplib": ("one_per_slot", "coverage", "count_bounds", "consecutive_run_bounds", "assignment_cost",
               "objective_bound"),
}


def _draw_roster(d: Draw, family: str, user: bool) -> tuple[Roster, list[str], str]:
    """The entity tables and the calendar line of a slot spec."""
    n_agents = d.int(2, 4)
    if family == "itc2007":
        days, periods = d.int(2, 4), d.int(1, 3)
        teachers = [f"t{k}" for k in range(1, d.int(1, n_agents) + 1)]
        agents = {f"c{k}": {"teacher": d.pick(teachers), "lectures": d.int(1, 3), "min_days": d.int(0, 3),
                            "students": d.int(10, 50)} for k in range(1, n_agents + 1)}
        values = {f"r{k}": {"capacity": d.int(10, 50)} for k in range(1, d.int(1, 3) + 1)}
        groups = {f"q{k}": d.subset(list(agents), 1, 3) for k in range(1, d.int(1, 2) + 1)}
        roster = Roster("course", "room", "curriculum", agents, values, groups, days, periods, None, None,
                        int_attrs=("lectures", "min_days", "students"), name_attr="teacher", value_int="capacity",
                        agent_int="students")
        tables = ["course (teacher lectures min_days students) table",
                  *(f"  {a} {v['teacher']} {v['lectures']} {v['min_days']} {v['students']}" for a, v in agents.items()),
                  "end", "room (capacity) table", *(f"  {r} {v['capacity']}" for r, v in values.items()), "end",
                  "curriculum (members) table", *(f"  {g} {','.join(m)}" for g, m in groups.items()), "end"]
        return roster, tables, f"calendar days={days} periods_per_day={periods}"
    if family == "inrc2010":
        days = d.int(3, 7)
        weekday0 = d.pick(WEEKDAYS)
        shifts = ["E", "L", "N"][:d.int(1, 3)]
        contracts = {f"k{k}": d.pick(WEEKENDS) for k in range(1, d.int(1, 2) + 1)}
        agents = {f"e{k}": {"contract": d.pick(list(contracts)), "skills": _skills(d, ("Nurse", "Head"), 1)}
                  for k in range(1, n_agents + 1)}
        values: dict[str, dict[str, Any]] = {s: {"skills": _skills(d, ("Nurse", "Head"), 0)} for s in shifts}
        roster = Roster("employee", "shift", None, agents, values, {}, days, 1, None, weekday0, name_attr="contract")
        tables = ["shift (start end skills description) table",
                  *(f"  {s} {6 + 4 * k:02d}:00:00 {10 + 4 * k:02d}:00:00 {_cell(values[s]['skills'])} \"{s} shift\""
                    for k, s in enumerate(shifts)),
                  "end", "contract (description weekend) table",
                  *(f'  {c} "contract {c}" {w}' for c, w in contracts.items()), "end",
                  "employee (contract skills) table",
                  *(f"  {a} {v['contract']} {_cell(v['skills'])}" for a, v in agents.items()), "end"]
        return roster, tables, f"calendar days={days} start_date={START_DATES[weekday0]}"
    if family == "nsplib":
        days = d.int(2, 7)
        shifts = [f"S{k}" for k in range(1, d.int(1, 3) + 1)]
        agents = {f"N{k}": {} for k in range(1, n_agents + 1)}
        values = {s: {} for s in [*shifts, "Off"]}
        roster = Roster("nurse", "shift", None, agents, values, {}, days, 1, "Off", None)
        tables = ["shift () table", "  " + " ".join(values), "end", "nurse () table", "  " + " ".join(agents), "end"]
        return roster, tables, f"calendar days={days}"
    # a user family: an agent class with int and name attributes, a value class, a group class
    grain = d.pick(("day", "period"))
    days, periods = d.int(2, 6), (1 if grain == "day" else d.int(2, 3))
    free = "Off" if grain == "day" and d.chance(0.4) else None
    weekday0 = d.pick(WEEKDAYS) if d.chance(0.6) else None
    teams = ["red", "blue"][:d.int(1, 2)]
    agents = {f"a{k}": {"team": d.pick(teams), "load": d.int(0, 4), "size": d.int(1, 5),
                        "skills": _skills(d, SKILLS, 1 if k == 1 else 0)} for k in range(1, n_agents + 1)}
    values = {f"v{k}": {"room": d.int(1, 5), "skills": _skills(d, SKILLS[:2], 0)} for k in range(1, d.int(1, 3) + 1)}
    if free:
        values[free] = {"room": 9, "skills": ()}
    groups = {f"g{k}": d.subset(list(agents), 1, 3) for k in range(1, d.int(1, 2) + 1)}
    roster = Roster("staff", "post", "unit", agents, values, groups, days, periods, free, weekday0,
                    int_attrs=("load", "size"), name_attr="team", value_int="room", agent_int="size",
                    group_int="weight")
    tables = ["staff (team load size skills) table",
              *(f"  {a} {v['team']} {v['load']} {v['size']} {_cell(v['skills'])}" for a, v in agents.items()), "end",
              "post (room skills) table", *(f"  {p} {v['room']} {_cell(v['skills'])}" for p, v in values.items()),
              "end",
              "unit (members weight) table", *(f"  {g} {','.join(m)} {len(m)}" for g, m in groups.items()), "end"]
    start = ""
    if weekday0 is not None:
        start = f" start_date={START_DATES[weekday0]}" if d.chance(0.5) else f" start_weekday={weekday0}"
    return roster, tables, f"calendar days={days}" + (f" periods_per_day={periods}" if periods > 1 else "") + start


#: the skills of a user family's staff (a post requires one of the first two, or none)
SKILLS = ("lead", "med", "lang")


def _skills(d: Draw, pool: Sequence[str], lo: int) -> tuple[str, ...]:
    """A skill list of ``lo``..all names of ``pool`` (pool order)."""
    return tuple(d.subset(pool, lo))


def _cell(skills: Sequence[str]) -> str:
    """A names cell: ``a,b``, or ``-`` for an empty list."""
    return ",".join(skills) or "-"


def _draw_assignment(d: Draw, roster: Roster) -> None:
    """A witness: per slot, a random set of agents each holding a distinct working value (the
    free value, when the family has one, for every other agent)."""
    density = d.pick((0.3, 0.6, 1.0))
    for day in range(roster.days):
        for p in range(roster.periods):
            spare = d.shuffled(roster.working())
            for agent in roster.agents:
                if spare and d.chance(density):
                    roster.held[(agent, day, p)] = spare.pop()
                elif roster.free is not None:
                    roster.held[(agent, day, p)] = roster.free


def _selector(d: Draw, roster: Roster) -> str:
    """``class``, ``class[attr=value]``, ``class[n1,n2]`` — rarely a class that is not the agents'."""
    form = d.int(0, 9)
    if form <= 4:
        return roster.agent_cls
    if form <= 6 and roster.name_attr is not None:
        value = d.pick(sorted({str(v[roster.name_attr]) for v in roster.agents.values()}))
        return f"{roster.agent_cls}[{roster.name_attr}={value}]"
    if form <= 8:
        return f"{roster.agent_cls}[{','.join(d.subset(list(roster.agents), 1, 3))}]"
    return roster.group_cls or roster.agent_cls


def _chosen(roster: Roster, selector: str) -> list[str]:
    """The agents a selector written by :func:`_selector` denotes."""
    if "[" not in selector:
        return list(roster.agents) if selector == roster.agent_cls else []
    inside = selector[selector.index("[") + 1:-1]
    if "=" in inside:
        attr, value = inside.split("=")
        return [a for a, v in roster.agents.items() if str(v.get(attr)) == value]
    return inside.split(",")


def _value_filter(d: Draw, roster: Roster) -> tuple[str, set[str] | None]:
    """``work``, ``free``, a value, or a list ``[v1 v2]`` (the text, and the values it counts; None: work)."""
    form = d.int(0, 5)
    working = roster.working()
    if form <= 1:
        return ("values=work" if form else ""), None
    if form == 2:
        return "values=free", set()
    chosen = d.subset(working, 1, 2)
    if len(chosen) == 1 and d.chance(0.5):
        return f"values={chosen[0]}", set(chosen)
    return f"values=[{' '.join(chosen)}]", set(chosen)


def _bounds(d: Draw, lo: int, hi: int, witness: tuple[int, int] | None) -> tuple[int | None, int | None]:
    """A min, a max or both (never neither); around the witness's [lo, hi] counts when given."""
    shape = d.pick(("min", "max", "both", "exact"))
    if witness is not None:
        wlo, whi = witness
        low, high = d.int(max(0, wlo - 2), wlo), d.int(whi, whi + 2)
    else:
        low, high = d.int(lo, hi), d.int(lo, hi)
        low, high = min(low, high), max(low, high)
    if shape == "min":
        return low, None
    if shape == "max":
        return None, high
    if shape == "exact":
        return (low, low) if witness is None or wlo == whi else (low, high)
    return low, high


def _slot_rules(d: Draw, roster: Roster, rules: Rules, allowed: Sequence[str]) -> None:
    table: list[tuple[str, Callable[[Draw, Roster, Rules], None], float]] = [
        ("one_per_slot", _one_per_slot, 0.9), ("coverage", _coverage, 0.6), ("count_bounds", _count_bounds, 0.7),
        ("slot_conflict", _slot_conflict, 0.4), ("unavailability", _unavailability, 0.4),
        ("consecutive_run_bounds", _runs, 0.5), ("pattern_prohibition", _pattern, 0.4),
        ("window_pattern_cost", _window, 0.4), ("assignment_cost", _assignment_cost, 0.5),
        ("capacity_overflow", _capacity, 0.4), ("spread", _spread, 0.4), ("stability", _stability, 0.4),
        ("compactness", _compactness, 0.4), ("skill_eligibility", _skill_eligibility, 0.3),
        ("skill_demand", _skill_demand, 0.3), ("spacing", _spacing, 0.3), ("slot_order", _slot_order, 0.3),
        ("shared_capacity", _shared_capacity, 0.3), ("value_mix", _value_mix, 0.3), ("slot_cost", _slot_cost, 0.3),
    ]
    for kind, make, p in table:
        # a kind added after the fixed-seed slices were tuned is drawn in its focused draws only, so that the
        # other draws (and the forms they reach) stay as they were
        if kind in _DATA_KINDS and rules.focus != kind:
            continue
        if kind in allowed and rules.chance(d, kind, p):
            make(d, roster, rules)


def _one_per_slot(d: Draw, roster: Roster, rules: Rules) -> None:
    """``per=agent`` (default) or ``per=value``, ``exactly=true`` or not."""
    params = []
    per_value = d.chance(0.3)
    if per_value:
        params.append("per=value")
    elif d.chance(0.2):
        params.append("per=agent")
    full = all((a, day, p) in roster.held for a in roster.agents for day in range(roster.days)
               for p in range(roster.periods))
    if not per_value and (full or not d.chance(WITNESS_SHARE)) and d.chance(0.5):
        params.append("exactly=true")
    elif d.chance(0.1):
        params.append("exactly=false")
    rules.add(d, "one_per_slot", " ".join(params), hard=not d.chance(0.1))
    if per_value and d.chance(0.5):  # both, as ITC-2007 has
        rules.add(d, "one_per_slot", "", hard=True)


def _coverage(d: Draw, roster: Roster, rules: Rules) -> None:
    """Rows ``day VALUE=N VALUE=LO..HI VALUE=LO.. VALUE=..HI`` or ``day [period] value min max``;
    ``complete=true`` or not."""
    long_form = roster.periods > 1 or d.chance(0.3)
    rows = []
    for day in d.subset(range(roster.days), 1, 3):
        for p in (d.subset(range(roster.periods), 1, 2) if roster.periods > 1 else [0]):
            cells = []
            for value in d.subset(roster.working(), 1, 2):
                n = sum(1 for (a, dd, pp), v in roster.held.items() if dd == day and pp == p and v == value)
                lo, hi = _bounds(d, 0, len(roster.agents), (n, n) if d.chance(WITNESS_SHARE) else None)
                if long_form:
                    slot = f"{day} {p}" if roster.periods > 1 else f"{day}"
                    rows.append(f"{slot} {value} {'-' if lo is None else lo} {'-' if hi is None else hi}")
                elif lo is not None and lo == hi:
                    cells.append(f"{value}={lo}")
                else:
                    cells.append(f"{value}={'' if lo is None else lo}..{'' if hi is None else hi}")
            if cells:
                rows.append(f"{day} " + " ".join(cells))
    params = "complete=true" if d.chance(0.2) else ""
    rules.add(d, "coverage", params, rows)


def _count_bounds(d: Draw, roster: Roster, rules: Rules) -> None:
    """``agents= values= min= max=`` with constant or ``@attribute`` bounds."""
    selector = _selector(d, roster)
    vf, values = _value_filter(d, roster)
    chosen = _chosen(roster, selector)
    slots = roster.days * roster.periods
    if values == set():
        counts = [slots - sum(1 for day in range(roster.days) for p in range(roster.periods)
                              if roster.held.get((a, day, p), roster.free) != roster.free) for a in chosen]
    else:
        counts = [roster.count(a, values) for a in chosen]
    witness = (min(counts), max(counts)) if counts and d.chance(WITNESS_SHARE) else None
    lo, hi = _bounds(d, 0, slots, witness)
    params = [f"agents={selector}", vf]
    if roster.int_attrs and _chosen(roster, selector) and d.chance(0.2):  # @attr: an attribute of the agents
        attr = d.pick(roster.int_attrs)
        if lo is not None or hi is None:
            lo = None
            params.append(f"min=@{attr}")
        else:
            hi = None
            params.append(f"max=@{attr}")
    params += [f"min={lo}"] if lo is not None else []
    params += [f"max={hi}"] if hi is not None else []
    rules.add(d, "count_bounds", " ".join(p for p in params if p))


def _slot_conflict(d: Draw, roster: Roster, rules: Rules) -> None:
    """``groups=CLASS [members=ATTR]``, ``by=ATTR``, or both."""
    params = []
    form = d.int(0, 2)
    if roster.group_cls is not None and form != 1:
        params.append(f"groups={roster.group_cls}")
        if d.chance(0.3):
            params.append("members=members")
    if roster.name_attr is not None and (form != 0 or not params):
        params.append(f"by={roster.name_attr}")
    if params:
        rules.add(d, "slot_conflict", " ".join(params))


def _unavailability(d: Draw, roster: Roster, rules: Rules) -> None:
    """``agent day`` (the whole day) or ``agent day period`` rows, where the witness is idle when it keeps them."""
    rows, keys = [], set()
    for _ in range(d.int(1, 4)):
        agent, day = d.pick(list(roster.agents)), d.int(0, roster.days - 1)
        period = d.int(0, roster.periods - 1) if roster.periods > 1 and d.chance(0.7) else None
        periods = [period] if period is not None else range(roster.periods)
        idle = all(roster.held.get((agent, day, p), roster.free) == roster.free for p in periods)
        if (agent, day, period) in keys or (not idle and d.chance(WITNESS_SHARE)):
            continue
        keys.add((agent, day, period))
        rows.append(f"{agent} {day}" + ("" if period is None else f" {period}"))
    if rows:
        rules.add(d, "unavailability", "", rows)


def _weekend(d: Draw, roster: Roster) -> str | None:
    return f"weekends({d.pick(WEEKENDS)})" if roster.weekday0 is not None else None


def _runs(d: Draw, roster: Roster, rules: Rules) -> None:
    """``agents= values= over=days|weekends(...) min= max=``."""
    params = [f"agents={_selector(d, roster)}"]
    vf, _ = _value_filter(d, roster)
    params.append(vf)
    weekend = _weekend(d, roster)
    if weekend is not None and d.chance(0.45):
        params.append(f"over={weekend}")
    elif d.chance(0.2):
        params.append("over=days")
    lo, hi = _bounds(d, 0, 4, None)
    params += [f"min={lo}"] if lo is not None else []
    params += [f"max={hi}"] if hi is not None else []
    if d.chance(0.1):
        params.append("boundary=observed")
    rules.add(d, "consecutive_run_bounds", " ".join(p for p in params if p))


def _pattern(d: Draw, roster: Roster, rules: Rules) -> None:
    """``agents= pattern=[free work V ...] [anchor=Weekday]``."""
    entries = ["free", "work", *roster.working()]
    pattern = [d.pick(entries) for _ in range(d.int(1, 3))]
    params = [f"agents={_selector(d, roster)}", f"pattern=[{' '.join(pattern)}]"]
    if roster.weekday0 is not None and d.chance(0.4):
        params.append(f"anchor={d.pick(WEEKDAYS)}")
    rules.add(d, "pattern_prohibition", " ".join(params))


def _window(d: Draw, roster: Roster, rules: Rules) -> None:
    """``agents= windows=weekends(...) cost=table|mixed_values [min_length=]`` (a table of W/F patterns)."""
    weekend = _weekend(d, roster)
    days = d.chance(0.15)  # every day a window of its own (with min_length=1)
    if weekend is None and not days:
        return
    params = [f"agents={_selector(d, roster)}", "windows=days" if days else f"windows={weekend}"]
    rows = None
    if d.chance(0.35):
        params.append("cost=mixed_values")
    else:
        if d.chance(0.2):
            params.append("cost=table")
        size = 1 if days else d.int(2, 4)
        patterns = sorted({"".join(d.pick("WF") for _ in range(size)) for _ in range(d.int(1, 3))})
        rows = [f"{p} {d.int(0, 3)}" for p in patterns]
    if days:
        params.append("min_length=1")
    elif d.chance(0.3):
        params.append(f"min_length={d.int(1, 3)}")
    rules.add(d, "window_pattern_cost", " ".join(params), rows)


def _assignment_cost(d: Draw, roster: Roster, rules: Rules) -> None:
    """``layout=sparse`` rows ``agent day|* value|*|!value cost`` or a dense ``layout=dense`` grid."""
    if roster.periods == 1 and d.chance(0.25):
        rows = [f"{a} " + " ".join(str(d.int(0, 3)) for _ in range(roster.days * len(roster.values)))
                for a in d.subset(list(roster.agents), 1)]
        rules.add(d, "assignment_cost", "layout=dense", rows, hard=False if d.chance(0.9) else None)
        return
    rows, keys = [], set()
    for _ in range(d.int(1, 4)):
        agent = d.pick(list(roster.agents))
        day = "*" if d.chance(0.2) else str(d.int(0, roster.days - 1))
        value = d.pick(["*", *roster.working()])
        if value != "*" and d.chance(0.25):
            value = "!" + value
        if (agent, day, value.lstrip("!"), value.startswith("!")) in keys:
            continue
        keys.add((agent, day, value.lstrip("!"), value.startswith("!")))
        rows.append(f"{agent} {day} {value} {d.int(-2, 3) if d.chance(0.2) else d.int(0, 3)}")
    params = "layout=sparse" if d.chance(0.2) else ""
    rules.add(d, "assignment_cost", params, rows, hard=False if d.chance(0.85) else None)


def _capacity(d: Draw, roster: Roster, rules: Rules) -> None:
    if roster.agent_int is None or roster.value_int is None:
        return
    rules.add(d, "capacity_overflow", f"demand={roster.agent_int} capacity={roster.value_int}",
              hard=False if d.chance(0.8) else None)


def _spread(d: Draw, roster: Roster, rules: Rules) -> None:
    """``agents= min=N|@attr [members=ATTR]``."""
    selector = _selector(d, roster)
    bound = f"@{d.pick(roster.int_attrs)}" if roster.int_attrs and selector.startswith(roster.agent_cls) \
        and d.chance(0.4) else str(d.int(0, roster.days))
    minimum = "" if d.chance(0.1) else f" min={bound}"
    # a group class lists its agents in ``members``: the days of any member count (named or by default)
    members = " members=members" if not selector.startswith(roster.agent_cls) and d.chance(0.5) else ""
    rules.add(d, "spread", f"agents={selector}{minimum}{members}", hard=False if d.chance(0.8) else None)


def _stability(d: Draw, roster: Roster, rules: Rules) -> None:
    """``agents= [max=N]``."""
    params = f"agents={_selector(d, roster)}" + (f" max={d.int(0, 2)}" if d.chance(0.5) else "")
    rules.add(d, "stability", params, hard=False if d.chance(0.8) else None)


def _compactness(d: Draw, roster: Roster, rules: Rules) -> None:
    """``groups=CLASS [members=ATTR]`` (soft: isolated assignments cost)."""
    if roster.group_cls is None:
        return
    params = f"groups={roster.group_cls}" + (" members=members" if d.chance(0.3) else "")
    rules.add(d, "compactness", params, hard=False if d.chance(0.95) else True)


def _spacing(d: Draw, roster: Roster, rules: Rules) -> None:
    """``groups=CLASS [members=ATTR] [size=ATTR] [within=row|day|gap] [gap=N]``."""
    if roster.group_cls is None:
        return
    params = [f"groups={roster.group_cls}"] + (["members=members"] if d.chance(0.3) else [])
    if roster.group_int is not None and d.chance(0.5):
        params.append(f"size={roster.group_int}")
    within = d.pick(("row", "day", "gap", None))
    if within is not None:
        params.append(f"within={within}")
    if within == "gap" or d.chance(0.1):
        params.append(f"gap={d.int(1, 3)}")
    rows = None
    if roster.periods > 1 and d.chance(0.3):  # days with fewer periods (t counts only those)
        rows = [f"{day} {d.int(1, roster.periods - 1)}" for day in d.subset(list(range(roster.days)), 1, 2)]
    rules.add(d, "spacing", " ".join(params), rows, hard=False if d.chance(0.8) else None)


def _slot_order(d: Draw, roster: Roster, rules: Rules) -> None:
    """Rows ``agent after|exclusion|coincidence agent`` (distinct rows)."""
    agents = list(roster.agents)
    rows = list(dict.fromkeys(f"{d.pick(agents)} {d.pick(('after', 'exclusion', 'coincidence'))} {d.pick(agents)}"
                              for _ in range(d.int(1, 3))))
    rules.add(d, "slot_order", "", rows, hard=False if d.chance(0.5) else None)


def _shared_capacity(d: Draw, roster: Roster, rules: Rules) -> None:
    """``demand=ATTR capacity=ATTR [exclusive=ATTR]`` (an int attribute of the agents as the flag)."""
    if roster.agent_int is None or roster.value_int is None:
        return
    params = f"demand={roster.agent_int} capacity={roster.value_int}"
    if roster.int_attrs and d.chance(0.4):
        params += f" exclusive={d.pick(roster.int_attrs)}"
    rules.add(d, "shared_capacity", params, hard=False if d.chance(0.6) else None)


def _value_mix(d: Draw, roster: Roster, rules: Rules) -> None:
    """``attr=ATTR`` (a name or an int attribute of the agents)."""
    attrs = [a for a in (roster.name_attr, *roster.int_attrs) if a is not None]
    if attrs:
        rules.add(d, "value_mix", f"attr={d.pick(attrs)}", hard=False if d.chance(0.8) else None)


def _slot_cost(d: Draw, roster: Roster, rules: Rules) -> None:
    """Rows ``agent|* day|* period|* value|* cost`` (distinct keys, costs possibly negative)."""
    rows, keys = [], set()
    for _ in range(d.int(1, 3)):
        key = (d.pick(["*", *roster.agents]), "*" if d.chance(0.3) else str(d.int(0, roster.days - 1)),
               "*" if d.chance(0.3) else str(d.int(0, roster.periods - 1)), d.pick(["*", *roster.working()]))
        if key not in keys:
            keys.add(key)
            rows.append(" ".join(key) + f" {d.int(-2, 3) if d.chance(0.2) else d.int(0, 4)}")
    rules.add(d, "slot_cost", "", rows, hard=False if d.chance(0.85) else None)


def _has_skills(roster: Roster, agent: str, value: str) -> bool:
    return set(roster.values[value].get("skills", ())) <= set(roster.agents[agent].get("skills", ()))


def _skill_eligibility(d: Draw, roster: Roster, rules: Rules) -> None:
    """``agents= [skills=skills] [requires=skills]``; hard mostly when the witness keeps it."""
    selector = _selector(d, roster)
    params = [f"agents={selector}"]
    if d.chance(0.2):
        params.append("skills=skills")
    if d.chance(0.2):
        params.append("requires=skills")
    kept = all(_has_skills(roster, a, v) for (a, _, _), v in roster.held.items() if a in _chosen(roster, selector))
    hard = None if kept or not d.chance(WITNESS_SHARE) else False
    rules.add(d, "skill_eligibility", " ".join(params), hard=hard)


def _skill_demand(d: Draw, roster: Roster, rules: Rules) -> None:
    """Rows ``day [period] value skill min max`` over skills some agent has (bounds around the witness's
    count of skilled holders, mostly); a day row counts every period of its day."""
    known = sorted({s for v in roster.agents.values() for s in v.get("skills", ())})
    if not known:
        return
    rows, keys = [], set()
    for _ in range(d.int(1, 3)):
        day, value, skill = d.int(0, roster.days - 1), d.pick(roster.working()), d.pick(known)
        period = d.int(0, roster.periods - 1) if roster.periods > 1 and d.chance(0.7) else None
        if (day, period, value, skill) in keys:
            continue
        keys.add((day, period, value, skill))
        holders = [a for a, v in roster.agents.items() if skill in v.get("skills", ())]
        periods = range(roster.periods) if period is None else [period]
        n = sum(roster.held.get((a, day, p)) == value for a in holders for p in periods)
        lo, hi = _bounds(d, 0, len(holders), (n, n) if d.chance(WITNESS_SHARE) else None)
        slot = f"{day}" if period is None else f"{day} {period}"
        rows.append(f"{slot} {value} {skill} {'-' if lo is None else lo} {'-' if hi is None else hi}")
    params = "skills=skills" if d.chance(0.2) else ""
    rules.add(d, "skill_demand", params, rows)


def _slot_family_text(d: Draw, family: str, roster: Roster, kinds: set[str]) -> str:
    """A family spec of built-in kinds for the drawn slot data."""
    extra = d.subset([k for k in ALL_SLOT_KINDS if k not in kinds], 0, 2)
    kind_list = " ".join(k for k in ALL_SLOT_KINDS if k in kinds or k in extra)
    grain = "period" if roster.periods > 1 else "day"
    free = f" free={roster.free}" if roster.free else ""
    if grain == "period":
        answer = d.pick(("<agent>|<value>|<day>|<period>", "<agent> in <value> on day <day> period <period>"))
    else:
        answer = d.pick(("<agent>|<day>|<value>", "<day>,<agent>,<value>;", "<agent> works <value> on day <day>"))
    day_names = d.pick(("", "  day_names index1\n"))
    roles = (f'[staff "{d.pick(("surgeon", "worker", "nurse"))}" post "{d.pick(("room", "post", "shift"))}" '
             f'unit "{d.pick(("team", "unit"))}"]')
    rename = d.pick(("", '  rename [a "Crew " v "Post "]\n'))
    return (f"family {family} {{\n  title \"{d.pick(('Call centre roster', 'Exam timetable', 'Theatre rota'))}\"\n"
            f"  structure slot\n  objective penalty\n  kinds [{kind_list}]\n"
            f"  class staff (team:name load:int size:int skills:names)\n  class post (room:int skills:names)\n"
            f"  class unit (members:names weight:int)\n"
            f"  decision agent=staff value=post grain={grain}{free}\n  answer \"{answer}\"\n{day_names}{rename}"
            f"  roles {roles}\n  background \"\"\"\n    Staff are given posts.\n  \"\"\"\n}}\n")


# =============================================================================== all specs


def specs(focus: str | None = None, measure: str | None = None) -> st.SearchStrategy[Spec]:
    """Any spec: interval or slot, built-in or user family; with ``focus``, one that has rules of that kind;
    with ``measure``, an interval spec minimising it."""
    if measure is not None:
        return interval_specs(focus=focus, measure=measure)
    if focus in ALL_INTERVAL_KINDS and focus != "objective_bound":
        return interval_specs(focus=focus)
    if focus in ALL_SLOT_KINDS and focus != "objective_bound":
        return slot_specs(focus=focus)
    return st.one_of(interval_specs(focus=focus), slot_specs(focus=focus))
