"""Rostering levers of the CP-SAT backend: the kind pattern that selects them, a constructive
first-feasible start, and the search parameters measured on INRC-2010 and NSPLib.

A *roster* is a slot instance (no activities) with a penalty objective and at least one soft or
hard sequence kind (``consecutive_run_bounds``, ``pattern_prohibition``, ``window_pattern_cost``).
It is *open* when its only hard rules are at most one value per agent-slot, staffing bounds
(``coverage``), forbidden slots (``unavailability``) and forbidden assignments (a hard
``assignment_cost`` or ``skill_eligibility``): then a feasible roster is built greedily, slot by slot, by giving each
staffing minimum to the cheapest agents still free in that slot. The choice looks only at
the instance's IR (kinds and their parameters), never at an instance's name.

Why: CP-SAT with one search worker (what the portfolio leaves it next to HiGHS) and the LP at
``linearization_level=2`` proves the small INRC instances optimal (the linear relaxation of
these rules is tight), but that search alone often finds no first roster within 20 s; the
greedy start gives it one at once (docs/solving.md has the numbers).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from schedc.core.solution import Assignment, Solution
from schedc.ir import Instance
from schedc.kinds import (
    AssignmentCost,
    ConsecutiveRunBounds,
    Constraint,
    CountBounds,
    Coverage,
    OnePerSlot,
    PatternProhibition,
    SkillEligibility,
    Unavailability,
    WindowPatternCost,
)
from schedc.kinds.context import EvalContext
from schedc.kinds.costs import ANY_DAY
from schedc.verify.evaluate import evaluate

if TYPE_CHECKING:
    from schedc.backends.cpsat.model import CpsatModel

SEQUENCE_KINDS = (ConsecutiveRunBounds, PatternProhibition, WindowPatternCost)
ROSTER_PARAMETERS: dict[str, object] = {"linearization_level": 2}
"""CP-SAT parameters of a roster solved with one worker (see the module docstring)."""
ROSTER_LNS_SHARE = 0.95
"""Share of what is left of the time limit after the model build and the greedy start that the
agent-row LNS of :mod:`~schedc.backends.cpsat.roster_lns` takes (when a local search is on at
all, ``SolveOptions.local_search > 0``); CP-SAT's own search, hinted with its result, gets the
rest. On INRC-2010 the LNS improves the roster where CP-SAT's own search stalls: medium_late01,
CP-SAT alone with one worker for 60 s, 326 with 28 % of the budget, 238 with 66 %, 208 with
94.5 % (docs/solving.md)."""


def _active(instance: Instance) -> list[Constraint]:
    return [c for c in instance.constraints if c.active]


def is_roster(instance: Instance) -> bool:
    """A slot instance with a penalty objective and at least one sequence kind."""
    return (not instance.activities and instance.objective.measure == "penalty"
            and any(isinstance(c, SEQUENCE_KINDS) for c in _active(instance)))


def is_open_roster(instance: Instance) -> bool:
    """A roster whose hard rules a slot-by-slot greedy always satisfies when staffing allows it."""
    if not is_roster(instance):
        return False
    for c in _active(instance):
        if not c.hard:
            continue
        if isinstance(c, OnePerSlot) and c.per == "agent" and not c.exactly:
            continue
        if isinstance(c, Coverage | Unavailability | AssignmentCost | SkillEligibility):
            continue
        return False
    return True


def roster_parameters(m: CpsatModel, workers: int) -> dict[str, object]:
    """:data:`ROSTER_PARAMETERS` for a roster solved with one worker, nothing otherwise."""
    return dict(ROSTER_PARAMETERS) if workers == 1 and is_roster(m.instance) else {}


class _Costs:
    """Cheap per-(agent, day, value) scores read from the soft rules, for the greedy only."""

    def __init__(self, ctx: EvalContext, constraints: Iterable[Constraint]):
        self.ctx = ctx
        self.request: dict[tuple[str, int, str], int] = {}
        self.forbidden: set[tuple[str, int, str]] = set()
        self.max_work = dict.fromkeys(ctx.agents, ctx.days * ctx.periods)
        self.max_run = dict.fromkeys(ctx.agents, ctx.days)
        for c in constraints:
            if isinstance(c, AssignmentCost):
                self._requests(c)
            elif isinstance(c, SkillEligibility):
                self._skills(c)
            elif isinstance(c, CountBounds) and c.values.mode == "work" and c.max is not None:
                for agent in ctx.select(c.agents):
                    self.max_work[agent] = min(self.max_work[agent], ctx.bound(c.max, agent) or 0)
            elif (isinstance(c, ConsecutiveRunBounds) and c.values.mode == "work" and c.over.over == "days"
                  and c.max is not None):
                for agent in ctx.select(c.agents):
                    self.max_run[agent] = min(self.max_run[agent], c.max)

    def _requests(self, c: AssignmentCost) -> None:
        for e in c.entries:
            if e.when != "assigned":
                continue
            days = range(self.ctx.days) if e.day == ANY_DAY else (e.day,)
            for d in days:
                if c.hard:
                    self.forbidden.add((e.agent, d, e.value))
                elif e.cost:
                    key = (e.agent, d, e.value)
                    self.request[key] = self.request.get(key, 0) + e.cost * c.weight

    def _skills(self, c: SkillEligibility) -> None:
        """An agent lacking a skill of a value: forbidden on every day (hard), or that rule's weight (soft)."""
        for agent, value in c.ineligible(self.ctx):
            for d in range(self.ctx.days):
                key = (agent, d, value)
                if c.hard:
                    self.forbidden.add(key)
                elif c.weight:
                    self.request[key] = self.request.get(key, 0) + c.weight

    def allowed(self, agent: str, day: int, value: str) -> bool:
        return (agent, day, value) not in self.forbidden and (agent, day, "*") not in self.forbidden

    def score(self, agent: str, day: int, value: str, worked: int, run: int, last: str | None) -> float:
        """Lower is better: requests against it, load beyond the agent's maximum, a run at its
        maximum; continuing a run (with the same value) is slightly preferred."""
        cost = 10.0 * (self.request.get((agent, day, value), 0) + self.request.get((agent, day, "*"), 0))
        cost += 4.0 * max(0, worked + 1 - self.max_work[agent]) + worked / max(1, self.max_work[agent])
        if run >= self.max_run[agent]:
            cost += 4.0
        elif run:
            cost -= 0.5 + 0.25 * (last == value)
        return cost


def greedy_start(ctx: EvalContext) -> Solution | None:
    """A roster meeting every staffing minimum of an open roster, or None when the greedy fails
    (some slot has fewer free, allowed agents than its minimum) or the result does not verify."""
    instance = ctx.instance
    constraints = _active(instance)
    costs = _Costs(ctx, constraints)
    blocked = {(u.agent, u.day, p) for c in constraints if isinstance(c, Unavailability) and c.hard
               for u in c.slots for p in (range(ctx.periods) if u.period is None else (u.period,))}
    needs: dict[tuple[int, int], list[tuple[str, int]]] = {}
    for c in constraints:
        if isinstance(c, Coverage) and c.hard:
            for r in c.requirements:
                for p in range(ctx.periods) if r.period is None else (r.period,):
                    if r.min:
                        needs.setdefault((r.day, p), []).append((r.value, r.min))
    worked = dict.fromkeys(ctx.agents, 0)
    run = dict.fromkeys(ctx.agents, 0)
    last: dict[str, str | None] = dict.fromkeys(ctx.agents, None)
    out: list[Assignment] = []
    for d in range(ctx.days):
        today: set[str] = set()
        for p in range(ctx.periods):
            taken: set[str] = set()
            for value, need in sorted(needs.get((d, p), ()), key=lambda t: -t[1]):
                free = [e for e in ctx.agents if e not in taken and (e, d, p) not in blocked
                        and costs.allowed(e, d, value)]
                if len(free) < need:
                    return None
                free.sort(key=lambda e: (costs.score(e, d, value, worked[e], run[e], last[e]), e))
                for e in free[:need]:
                    taken.add(e)
                    out.append(Assignment(e, d, p, value))
                    last[e] = value
            today |= taken
        for e in ctx.agents:
            worked[e] += e in today
            run[e] = run[e] + 1 if e in today else 0
    solution = Solution(assignments=tuple(out))
    return solution if evaluate(ctx, solution).feasible else None


def roster_start(m: CpsatModel, start: Solution | None) -> Solution | None:
    """``start`` when given; else the greedy roster of an open roster (None otherwise)."""
    if start is not None or not is_open_roster(m.instance):
        return start
    return greedy_start(m.ctx)


def hint_slots(m: CpsatModel, solution: Solution) -> None:
    """Hint every assignment variable of a slot model with its value in ``solution``."""
    chosen = {(a.agent, a.day, a.period, a.value) for a in solution.assignments}
    for key, var in m.x.items():
        if var is not m.zero:
            m.model.add_hint(var, int(key in chosen))
