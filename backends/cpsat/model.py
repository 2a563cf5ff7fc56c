"""The CP-SAT model of an instance: decision variables, penalty bookkeeping, encoder dispatch.

Interval families: per activity a start variable and, per mode, an optional fixed-size
interval whose presence literal says the mode is chosen (one literal fixed true for
single-mode activities). Slot families: one Boolean ``x[agent, day, period, value]`` per
possible assignment. Constraint kinds are encoded by the functions registered in
:data:`ENCODERS` (``backends/cpsat/interval.py`` and ``slot.py``); soft ones add weighted
penalty terms through :meth:`CpsatModel.penalize`, which also keeps each constraint's own
penalty expression so its value can be compared with the evaluator's component.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ortools.sat.python import cp_model

from schedc.backends.base import encode_all, registrar
from schedc.backends.cpsat.pausable import pausable_variables
from schedc.backends.search.heuristics import capacity_kept, earliest_starts, schedule_horizon, tails
from schedc.core.solution import Assignment, Solution
from schedc.ir import Family, Instance
from schedc.kinds import (
    Constraint,
    ObjectiveBound,
    OnePerSlot,
    PrecedenceLag,
    ResourceDowntime,
    SkillRequirements,
    Unavailability,
    ValueFilter,
    Windows,
)
from schedc.kinds.context import EvalContext
from schedc.kinds.timing import HORIZON

Encoder = Callable[["CpsatModel", Any], None]
ENCODERS: dict[type[Constraint], Encoder] = {}


encoder = registrar(ENCODERS)

#: The objective of a measure other than makespan and penalty (due dates, setups, weighted sums). It is
#: registered by ``measures.py`` (:func:`measure_objective`), which builds on this module's variables;
#: the package imports it with the encoders.
_MEASURE_OBJECTIVE: list[Callable[[Any], cp_model.LinearExprT]] = []


def measure_objective(build: Callable[[Any], cp_model.LinearExprT]) -> Callable[[Any], cp_model.LinearExprT]:
    """Register the builder of measure objectives (a decorator)."""
    _MEASURE_OBJECTIVE[:] = [build]
    return build
"""``@encoder(Kind)`` registers the CP-SAT encoder of a constraint kind."""


def _as_linear(row: Any, refs: list[int], exactly: bool) -> None:
    """Rewrite an at-most-one (exactly-one) row over literal ``refs`` as ``Σ literals ≤ 1`` (``= 1``).

    A negated literal ``¬x`` is written ``-x-1`` in the proto; its value is ``1 - x``.
    """
    positive = [r for r in refs if r >= 0]
    negated = [-r - 1 for r in refs if r < 0]
    row.linear.vars.extend(positive + negated)
    row.linear.coeffs.extend([1] * len(positive) + [-1] * len(negated))
    high = 1 - len(negated)
    row.linear.domain.extend([high if exactly else -len(negated), high])


class CpsatModel:
    """Builds and holds the CP-SAT model of one instance."""

    def __init__(self, instance: Instance, family: Family, fixed: Solution | None = None, named: bool = True,
                 explain: bool = False):
        """``named``: give the assignment variables readable names (for an emitted model);
        solving does not need them and builds faster without.

        ``explain``: the model for explaining infeasibility (:mod:`schedc.backends.cpsat.explain`).
        Every hard constraint gets an enforcement literal (:attr:`enforce`) that switches all of
        its rows off together; nothing a constraint implies is built into the variables instead
        (domains from precedences and releases, cells fixed to 0 by unavailability, occupancy
        shortcuts of one_per_slot), soft constraints and the objective are left out.
        """
        self.instance = instance
        self.family = family
        self.named = named
        self.explain = explain
        #: explain mode: constraint id → its enforcement literal
        self.enforce: dict[str, cp_model.IntVar] = {}
        #: explain mode: ids of hard constraints with a row CP-SAT cannot enforce conditionally (always on)
        self.unconditional: list[str] = []
        #: proto indices of rows that define auxiliary variables (never switched off: other rules reuse them)
        self.definitions: set[int] = set()
        self._gate: Any = None
        self.ctx = EvalContext(instance, family)
        self.model = cp_model.CpModel()
        self.fixed = fixed
        self.terms: list[tuple[int, cp_model.LinearExprT]] = []
        self.components: dict[str, list[cp_model.LinearExprT]] = {}
        self._bools: dict[tuple, cp_model.IntVar] = {}
        self.hint: Solution | None = None
        #: rows that need the whole model first (a bound on the total penalty), added before the objective
        self.finishers: list[Callable[[], None]] = []
        if instance.activities:
            self._interval_variables()
        else:
            self._slot_variables()
        if explain:
            self._encode_switchable()
            return
        encode_all("cpsat", self, ENCODERS)
        self._objective()
        if fixed is not None:
            self.fix(fixed)

    # ------------------------------------------------------------------ explain mode

    def _encode_switchable(self) -> None:
        """Encode each active hard constraint with its rows under one enforcement literal."""
        from schedc.backends.base import unsupported

        rows = self.model.proto.constraints
        if any(isinstance(c, ObjectiveBound) and c.active and c.hard and c.measure != "makespan"
               for c in self.instance.constraints):
            # a bound on the penalty (alone or in a weighted sum) needs the soft rules' terms: built
            # unswitched, they only define penalties
            for c in self.instance.constraints:
                if c.active and not c.hard and type(c) in ENCODERS:
                    ENCODERS[type(c)](self, c)
        for c in self.instance.constraints:
            if not (c.active and c.hard):
                continue
            encode = ENCODERS.get(type(c))
            if encode is None:
                raise unsupported("cpsat", c)
            literal = self.enforce[c.id] = self.model.new_bool_var(f"enforce_{c.id}")
            first = len(rows)
            self._gate = literal
            encode(self, c)
            self._gate = None
            if not all(self._switch(k, literal) for k in range(first, len(rows)) if k not in self.definitions):
                self.unconditional.append(c.id)
            elif isinstance(c, ResourceDowntime) and c.pausable and self.ctx.breaks:
                # its pauses stretch the activities' ends, built into their variables: never switched off
                self.unconditional.append(c.id)
        for finish in self.finishers:  # bounds on a measure, once every hard rule is built (each enforced)
            finish()

    def _switch(self, index: int, literal: cp_model.IntVar) -> bool:
        """Make row ``index`` hold only when ``literal`` does; False if CP-SAT cannot (it stays on).

        CP-SAT enforces ``bool_or``, ``bool_and`` and ``linear`` rows conditionally
        (https://github.com/google/or-tools/blob/stable/ortools/sat/cp_model.proto, ``enforcement_literal``);
        ``at_most_one``/``exactly_one`` rows are rewritten as linear ones; interval rows are variables,
        and ``no_overlap``/``cumulative`` are switched through their intervals (:meth:`interval_of`).
        """
        row = self.model.proto.constraints[index]
        for kind in ("at_most_one", "exactly_one"):
            if getattr(row, f"has_{kind}")():
                refs = list(getattr(row, kind).literals)
                getattr(row, f"clear_{kind}")()
                _as_linear(row, refs, exactly=kind == "exactly_one")
        if row.has_bool_or() or row.has_bool_and() or row.has_linear():
            row.enforcement_literal.append(literal.Index())
            return True
        return row.has_interval() or row.has_no_overlap() or row.has_cumulative()

    @contextmanager
    def defining(self) -> Iterator[None]:
        """Rows added inside define auxiliary variables: they stay on in explain mode."""
        first = len(self.model.proto.constraints)
        try:
            yield
        finally:
            self.definitions.update(range(first, len(self.model.proto.constraints)))

    def interval_of(self, activity: str, mode: int, duration: int) -> Any:
        """The interval of an activity's mode as a resource rule sees it.

        In explain mode, a copy present only when the mode is chosen and the rule being encoded is
        enforced, so that switching the rule off takes the activity out of its ``no_overlap`` or
        ``cumulative`` row.
        """
        interval = self.intervals[(activity, mode)]
        if self._gate is None:
            return interval
        present = self.present[(activity, mode)]
        with self.defining():
            if isinstance(present, int):
                gate = self._gate
            else:
                gate = self.model.new_bool_var(f"uses_{activity}_{mode}")
                self.model.add_bool_and([present, self._gate]).only_enforce_if(gate)
                self.model.add_bool_or([present.Not(), self._gate.Not(), gate])
            size = self.__dict__.get("sizes", {}).get((activity, mode))  # work pausing over breaks: a variable size
            if size is not None:
                return self.model.new_optional_interval_var(self.start[activity], size, self.end[activity], gate,
                                                            f"I_{activity}_{mode}_{self._gate.Name()}")
            return self.model.new_optional_fixed_size_interval_var(self.start[activity], duration, gate,
                                                                   f"I_{activity}_{mode}_{self._gate.Name()}")

    # ------------------------------------------------------------------ penalties

    def penalize(self, constraint: Constraint, expr: cp_model.LinearExprT) -> None:
        """Add ``weight × expr`` to the objective as part of ``constraint``'s component."""
        self.components.setdefault(constraint.id, []).append(expr)
        self.terms.append((constraint.weight, expr))

    def require(self, constraint: Constraint, relation: Any) -> None:
        """Add a hard linear relation on behalf of ``constraint``."""
        self.model.add(relation)

    def bounded(self, constraint: Constraint, expr: cp_model.LinearExprT, lo: int | None, hi: int | None,
                upper: int) -> None:
        """``lo ≤ expr ≤ hi``: a constraint when hard, a deficit + excess penalty when soft.

        ``upper`` is an upper bound on ``expr`` (sizes the slack variables).
        """
        if constraint.hard:
            if lo is not None:
                self.model.add(expr >= lo)
            if hi is not None:
                self.model.add(expr <= hi)
            return
        if lo is not None and lo > 0:
            deficit = self.model.new_int_var(0, lo, f"deficit_{constraint.id}")
            self.model.add(deficit >= lo - expr)
            self.penalize(constraint, deficit)
        if hi is not None and hi < upper:
            excess = self.model.new_int_var(0, max(0, upper - hi), f"excess_{constraint.id}")
            self.model.add(excess >= expr - hi)
            self.penalize(constraint, excess)

    def forbid_or_penalize(self, constraint: Constraint, literals: list[cp_model.LinearExprT], cost: int = 1) -> None:
        """The conjunction of ``literals`` (0/1 expressions) must not hold; soft: costs ``cost``."""
        size = len(literals)
        # LinearExpr.sum builds the sum in C++: Python's sum() makes one intermediate expression per term
        if constraint.hard:
            self.model.add(cp_model.LinearExpr.sum(literals) <= size - 1)
            return
        indicator = self.model.new_bool_var(f"occ_{constraint.id}")
        self.model.add(indicator >= cp_model.LinearExpr.sum(literals) - (size - 1))
        self.penalize(constraint, cost * indicator)

    # ------------------------------------------------------------------ interval variables

    def _interval_variables(self) -> None:
        acts = self.instance.activities
        self.preds: dict[str, list[tuple[str, int]]] = {a.name: [] for a in acts}
        for c in self.instance.constraints:
            if isinstance(c, PrecedenceLag) and c.active and c.hard:  # soft ones do not bound starts
                for e in c.edges:
                    # the other relations, and edges of activities that may be left out, do not order activities
                    if e.end_start and e.before not in self.ctx.optional and e.after not in self.ctx.optional:
                        self.preds[e.after].append((e.before, e.lag))
        est = earliest_starts(self.instance, self.preds)
        tail = tails(self.instance)
        horizon, self.hint = schedule_horizon(self.ctx, self.preds, self.fixed, tail)
        if self.explain:  # bounds implied by precedences and releases would hold even when those are off
            horizon = max(horizon, max(est.values(), default=0) + sum(max(m.duration for m in a.modes) for a in acts))
            est = dict.fromkeys(est, 0)
            tail = dict.fromkeys(tail, 0)
            self.hint = None
        limit = self.instance.horizon
        if limit is not None:  # every activity ends by the instance's horizon: a bound for everything below
            horizon = min(horizon, limit)
            if self.explain:
                self.unconditional.append(HORIZON)
        self.est = est
        self.horizon = horizon
        #: :func:`~schedc.backends.search.heuristics.tails` of every activity (zeros in explain mode)
        self.tail = tail
        # for each resource, the (activity, mode number, mode, amount) that use it — one pass
        self.users: dict[str, list[tuple[str, int, Any, int]]] = {r.name: [] for r in self.instance.resources}
        for a in acts:
            for k, mode in enumerate(a.modes, start=1):
                for use in mode.uses:
                    if use.amount:
                        self.users.setdefault(use.resource, []).append((a.name, k, mode, use.amount))
        self.start: dict[str, cp_model.IntVar] = {}
        self.end: dict[str, cp_model.IntVar] = {}
        self.present: dict[tuple[str, int], Any] = {}
        self.intervals: dict[tuple[str, int], cp_model.IntervalVar] = {}
        #: presence literal of every optional activity
        self.performed: dict[str, cp_model.IntVar] = {}
        for a in acts:
            shortest = min(m.duration for m in a.modes)
            earliest_end = est[a.name] + (0 if a.name in self.ctx.optional else shortest)  # left out: E = S
            latest = max(est[a.name], horizon - tail[a.name])  # room for the longest path after it
            start = self.model.new_int_var(est[a.name], latest, f"S_{a.name}")
            # the tail counts the shortest mode: a performed optional activity may end that late too
            end = self.model.new_int_var(earliest_end, max(earliest_end, latest + shortest), f"E_{a.name}")
            self.start[a.name], self.end[a.name] = start, end
            if self.ctx.breaks and any(self.ctx.mode_breaks(mode) for mode in a.modes):
                pausable_variables(self, a, est[a.name], latest)
                continue
            if a.name in self.ctx.optional:
                self._optional_variables(a, start, end)
                continue
            if len(a.modes) == 1:
                self.present[(a.name, 1)] = 1
                self.intervals[(a.name, 1)] = self.model.new_fixed_size_interval_var(start, a.modes[0].duration,
                                                                                 f"I_{a.name}")
                self.model.add(end == start + a.modes[0].duration)
                continue
            literals = [self.model.new_bool_var(f"mode_{a.name}_{k}") for k in range(1, len(a.modes) + 1)]
            self.model.add_exactly_one(literals)
            for k, (mode, literal) in enumerate(zip(a.modes, literals, strict=True), start=1):
                self.present[(a.name, k)] = literal
                self.intervals[(a.name, k)] = self.model.new_optional_fixed_size_interval_var(
                    start, mode.duration, literal, f"I_{a.name}_{k}")
            self.model.add(end == start + sum(m.duration * lit for m, lit in zip(a.modes, literals, strict=True)))
        if limit is not None:
            self._within_horizon(limit)

    def _within_horizon(self, limit: int) -> None:
        """``E_a ≤ H`` for every activity (an optional one only when performed: left out, it has no end)."""
        for name, end in self.end.items():
            row = self.model.add(end <= limit)
            if name in self.performed:
                row.only_enforce_if(self.performed[name])

    def _optional_variables(self, a: Any, start: cp_model.IntVar, end: cp_model.IntVar) -> None:
        """An optional activity: a presence literal ``p_a`` equal to the sum of its mode literals
        (no mode when not performed, and then ``E_a = S_a``); its intervals are optional."""
        performed = self.performed[a.name] = self.model.new_bool_var(f"performed_{a.name}")
        literals = [self.model.new_bool_var(f"mode_{a.name}_{k}") for k in range(1, len(a.modes) + 1)]
        self.model.add(sum(literals) == performed)
        for k, (mode, literal) in enumerate(zip(a.modes, literals, strict=True), start=1):
            self.present[(a.name, k)] = literal
            self.intervals[(a.name, k)] = self.model.new_optional_fixed_size_interval_var(
                start, mode.duration, literal, f"I_{a.name}_{k}")
        self.model.add(end == start + sum(m.duration * lit for m, lit in zip(a.modes, literals, strict=True)))

    def when_performed(self, *names: str) -> list[cp_model.IntVar]:
        """The presence literals of those of ``names`` that are optional (enforce a rule only if all hold)."""
        return [self.performed[n] for n in names if n in self.performed]

    def makespan_lower_bound(self) -> int:
        """max(critical path, load / capacity of every resource a hard rule keeps) — used to tighten the makespan."""
        required = [a for a in self.instance.activities if a.name not in self.ctx.optional]
        best = max((self.est[a.name] + min(m.duration for m in a.modes) for a in required), default=0)
        acts = {a.name: a for a in required}
        kept = capacity_kept(self.instance)  # a resource no rule keeps may run all its activities at once
        for r in self.instance.resources:
            if r.name not in kept or not r.capacity:
                continue
            energy: dict[str, list[int]] = {}
            for name, _k, mode, amount in self.users.get(r.name, ()):
                if name in acts:  # an optional activity may be left out
                    energy.setdefault(name, []).append(mode.duration * amount)
            # an activity with a mode that does not use r contributes nothing for sure
            load = sum(min(e) for name, e in energy.items() if len(e) == len(acts[name].modes))
            best = max(best, -(-load // r.capacity))
        if not self.explain:  # workers of skill_requirements: their load over their number (a switchable rule's
            # bound would outlive switching it off)
            best = max([best, *(c.makespan_bound(self.ctx) for c in self.instance.constraints
                                if isinstance(c, SkillRequirements) and c.hard and c.active)])
        return best

    # ------------------------------------------------------------------ slot variables

    def _slot_variables(self) -> None:
        ctx = self.ctx
        # a hard one_per_slot per agent: an agent holds at most one value in a slot, so the sum of
        # its slot variables is already the 0/1 occupancy (and a day indicator with one period a day)
        self.exclusive_slots = not self.explain and any(
            isinstance(c, OnePerSlot) and c.per == "agent" and c.hard and c.active for c in self.instance.constraints)
        self.exclusive_days = ctx.periods == 1 and self.exclusive_slots
        self.x: dict[tuple[str, int, int, str], cp_model.IntVar] = {}
        # a hard unavailability forbids the agent's whole slot: those cells are the constant 0
        # instead of variables (a third of all cells in some ITC instances)
        self.cells_forbidden = not self.explain  # explain mode: unavailability is a row that can be switched off
        forbidden = {(u.agent, u.day, p) for c in self.instance.constraints
                     if self.cells_forbidden and isinstance(c, Unavailability) and c.hard and c.active
                     for u in c.slots for p in (range(ctx.periods) if u.period is None else (u.period,))}
        zero = self.zero = self.model.new_constant(0)
        for e in ctx.agents:
            for d in range(ctx.days):
                for p in range(ctx.periods):
                    if (e, d, p) in forbidden:
                        self.x.update({(e, d, p, v): zero for v in ctx.values})
                        continue
                    for v in ctx.values:
                        self.x[(e, d, p, v)] = self.model.new_bool_var(f"x_{e}_{d}_{p}_{v}" if self.named else "")

    def slot_vars(self, agent: str, day: int, values: Iterable[str] | None = None) -> list[cp_model.IntVar]:
        """Assignment variables of an agent on a day (all periods), optionally for some values."""
        chosen = self.ctx.values if values is None else list(values)
        return [self.x[(agent, day, p, v)] for p in range(self.ctx.periods) for v in chosen]

    def matches(self, agent: str, day: int, vf: ValueFilter) -> Any:
        """A 0/1 expression equal to "the agent's day matches the filter" (see ValueFilter).

        When an agent holds at most one value per day (a hard ``one_per_slot`` and one period
        a day), the sum of the day's assignment variables is that indicator already — a
        linear expression with a tighter relaxation than a separate OR variable.
        """
        key = ("match", agent, day, vf)
        if key not in self._bools:
            if vf.mode == "free":
                self._bools[key] = 1 - self.matches(agent, day, ValueFilter(mode="work"))
            else:
                values = [v for v in self.ctx.values if v != self.ctx.free] if vf.mode == "work" else vf.values
                cells = self.slot_vars(agent, day, values)
                if self.exclusive_days:
                    self._bools[key] = cp_model.LinearExpr.sum(cells) if cells else 0
                else:
                    self._bools[key] = self.any_of(cells, f"m_{agent}_{day}")
        return self._bools[key]

    def occupied(self, agent: str, day: int, period: int) -> Any:
        """A Boolean equal to "the agent holds some value in this slot" (``u[e, s]``)."""
        key = ("occ", agent, day, period)
        if key not in self._bools:
            with self.defining():
                self._bools[key] = self._occupancy(agent, day, period)
        return self._bools[key]

    def _occupancy(self, agent: str, day: int, period: int) -> Any:
        cells = [self.x[(agent, day, period, v)] for v in self.ctx.values]
        if all(cell is self.zero for cell in cells):  # a forbidden slot
            return self.zero
        if self.exclusive_slots and len(cells) > 1:
            # at most one value: a channelled Boolean equal to the sum keeps later sums short
            var = self.model.new_bool_var(f"u_{agent}_{day}_{period}")
            self.model.add(var == cp_model.LinearExpr.sum(cells))
            return var
        if self.exclusive_slots:
            return cells[0]
        return self.any_of(cells, f"u_{agent}_{day}_{period}")

    def any_of(self, literals: list, name: str) -> Any:
        """A Boolean equal to the OR of ``literals`` (0/1 variables or expressions):
        ``b ≥ l`` for each, ``b ≤ Σ l``."""
        if not literals:
            return 0
        if len(literals) == 1:
            return literals[0]
        var = self.model.new_bool_var(name)
        with self.defining():
            if all(isinstance(literal, cp_model.IntVar) for literal in literals):
                self.model.add_max_equality(var, literals)  # one constraint for plain Booleans
                return var
            for literal in literals:
                self.model.add(var >= literal)
            self.model.add(var <= cp_model.LinearExpr.sum(literals))
        return var

    def sequence(self, agent: str, vf: ValueFilter, windows: Windows) -> list[Any]:
        """Booleans of the agent's sequence: one per day, or one per weekend (any day matches;
        for ``free``, all days free) — the same definition as the evaluator's."""
        out = []
        for window in self.ctx.windows(windows):
            if vf.mode == "free":
                work = [self.matches(agent, d, ValueFilter(mode="work")) for d in window]
                out.append(1 - self.any_of(work, f"w_{agent}_{window[0]}") if len(work) > 1 else
                           self.matches(agent, window[0], vf))
            else:
                out.append(self.any_of([self.matches(agent, d, vf) for d in window], f"w_{agent}_{window[0]}"))
        return out

    # ------------------------------------------------------------------ objective and fixing

    def _objective(self) -> None:
        for finish in self.finishers:
            finish()
        measure = self.instance.objective.measure
        if measure == "makespan" and self.instance.activities:
            self.model.minimize(self.makespan_var())
        elif measure != "penalty" and self.instance.activities:
            self.objective_expr = _MEASURE_OBJECTIVE[0](self)
            self.model.minimize(self.objective_expr)
        else:
            self.model.minimize(self.penalty())

    def penalty(self) -> cp_model.LinearExprT:
        """The weighted sum of every penalty term (built in one call: a model may have 10⁵ terms)."""
        return cp_model.LinearExpr.weighted_sum([expr for _w, expr in self.terms], [w for w, _expr in self.terms])

    def makespan_var(self) -> cp_model.IntVar:
        """The makespan variable ``max_a E_a`` (built once)."""
        if getattr(self, "makespan", None) is None:
            bound = self.makespan_lower_bound()
            # a bound past the horizon is an infeasible model, not an empty domain (CP-SAT: MODEL_INVALID)
            self.makespan = self.model.new_int_var(min(bound, self.horizon), self.horizon, "makespan")
            if bound > self.horizon:
                self.model.add(self.makespan >= bound)
            # the project ends when its last activities end: only those without successors matter
            has_successor = {p for preds in self.preds.values() for p, _lag in preds}
            for name, end in self.end.items():
                if name not in has_successor:
                    self.model.add(self.makespan >= end).only_enforce_if(self.when_performed(name))
        return self.makespan

    def fix(self, solution: Solution) -> None:
        """Fix every decision to ``solution`` (for checking the model against the evaluator)."""
        if self.instance.activities:
            for a in self.instance.activities:
                if a.name in self.performed:
                    self.model.add(self.performed[a.name] == int(a.name in solution.starts))
                if a.name in solution.starts:
                    self.model.add(self.start[a.name] == solution.starts[a.name])
                    chosen = solution.modes.get(a.name, 1)
                    for k in range(1, len(a.modes) + 1):
                        literal = self.present[(a.name, k)]
                        if isinstance(literal, int):
                            if k != chosen:
                                self.model.add_bool_or([])  # a single-mode activity given another mode
                        else:
                            self.model.add(literal == int(k == chosen))
            for activity, members in self.__dict__.get("teams", {}).items():  # skill_requirements' teams
                team = solution.workers.get(activity, ())
                for worker, literal in members:
                    self.model.add(literal == int(worker in team))
            return
        chosen = {(x.agent, x.day, x.period, x.value) for x in solution.assignments}
        for key, var in self.x.items():
            self.model.add(var == int(key in chosen))

    def add_hint(self, solution: Solution) -> None:
        """Give CP-SAT a starting solution."""
        for a in self.instance.activities:
            if a.name in solution.starts:
                self.model.add_hint(self.start[a.name], solution.starts[a.name])
                for k in range(1, len(a.modes) + 1):
                    literal = self.present[(a.name, k)]
                    if not isinstance(literal, int) and len(a.modes) > 1:
                        self.model.add_hint(literal, int(k == solution.modes.get(a.name, 1)))
        for activity, members in self.__dict__.get("teams", {}).items():  # skill_requirements' teams
            if activity in solution.starts:
                for worker, literal in members:
                    self.model.add_hint(literal, int(worker in solution.workers.get(activity, ())))


def extract_solution(m: CpsatModel, solver: cp_model.CpSolver) -> Solution:
    """The decisions of the solver's best solution."""
    if m.instance.activities:
        performed = [a for a in m.instance.activities  # an optional activity left out has no line
                     if a.name not in m.performed or solver.boolean_value(m.performed[a.name])]
        starts = {a.name: solver.value(m.start[a.name]) for a in performed}
        modes = {a.name: next((k for k in range(1, len(a.modes) + 1) if _chosen(solver, m.present[(a.name, k)])), 1)
                 for a in performed}
        teams = {a: tuple(w for w, literal in members if solver.boolean_value(literal))  # skill_requirements
                 for a, members in m.__dict__.get("teams", {}).items() if a in starts}
        return Solution(starts=starts, modes=modes, workers={a: t for a, t in teams.items() if t})
    assignments = tuple(Assignment(e, d, p, v) for (e, d, p, v), var in m.x.items() if solver.boolean_value(var))
    return Solution(assignments=assignments)


def _chosen(solver: cp_model.CpSolver, literal: object) -> bool:
    return literal == 1 if isinstance(literal, int) else solver.boolean_value(literal)
