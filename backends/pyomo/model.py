"""The Pyomo MILP of an instance: decision variables, linearisation helpers, encoder dispatch.

Interval families: per activity an integer start ``S_a ∈ [est_a, lst_a]`` (earliest start from
the hard precedences, latest from a horizon minus the activity's tail) and, for activities
with several modes, binaries ``y[a,k]`` with ``Σ_k y[a,k] = 1``; the duration is the linear
expression ``d_a = Σ_k d_{a,k}·y[a,k]`` (a constant for a single mode) and ``E_a = S_a + d_a``;
an activity whose work pauses over breaks has an end variable instead (``pausable.py``).
The horizon is the best serial-heuristic makespan (as in the CP-SAT model), which keeps
every big-M of ``interval.py`` small, capped by the instance's ``horizon`` H when it states one:
then every activity must end by H (rows ``c_horizon``, as :func:`~schedc.kinds.timing.horizon_violations`
checks).

Slot families: one binary ``x[e,d,p,v]`` per possible assignment.

Constraint kinds are encoded by the functions registered in :data:`ENCODERS`
(``interval.py``, ``slot.py``). Soft ones add weighted penalty terms through
:meth:`PyomoModel.penalize`, which keeps each constraint's own penalty expressions so the
model's value of a component can be compared with the evaluator's. Every constraint row is
owned by the schedc constraint id (``c_<id>``), so an emitted LP/MPS file shows which rule each
row comes from.

Where the variables and rows go is the model's *store*: by default the light linear layer
(:mod:`schedc.backends.pyomo.linear`: columns, coefficient maps, rows appended to CSR arrays,
handed to HiGHS without Pyomo), or with ``store="pyomo"`` a Pyomo ``ConcreteModel``
(:mod:`schedc.backends.pyomo.pyomo_store`: other solvers, LP/MPS files). The encoders are the
same for both: they use the operators both kinds of expressions share and :func:`quicksum`.

Boolean algebra over binaries (the literal "day d of agent e matches a filter", ORs over
days of a weekend, ANDs of pattern cells) is linearised exactly — ``w ≥ l_i`` for every
literal and ``w ≤ Σ l_i`` — unless a sign argument shows one side is enough (documented at
the call). When a hard ``one_per_slot per=agent`` rule makes the literals of one
agent-slot mutually exclusive, their OR is simply their sum (no auxiliary variable, a
tighter LP).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

from schedc.backends.base import encode_all, registrar
from schedc.backends.pyomo.linear import LinearStore, Store, quicksum
from schedc.backends.pyomo.pausable import pausable_variables
from schedc.backends.search.heuristics import capacity_kept, earliest_starts, schedule_horizon, tails
from schedc.core.solution import Solution
from schedc.ir import Family, Instance
from schedc.kinds import Constraint, OnePerSlot, PrecedenceLag, SkillRequirements, ValueFilter, Windows
from schedc.kinds.context import EvalContext

Literal01 = Any
"""A linear expression worth 0 or 1 in every integer solution: a binary, ``1 − binary``, a
sum of mutually exclusive binaries, or the constant 0 or 1."""
Sides = Literal["both", "geq", "leq"]

Encoder = Callable[["PyomoModel", Any], None]
ENCODERS: dict[type[Constraint], Encoder] = {}

WORK = ValueFilter(mode="work")


encoder = registrar(ENCODERS)

#: The objective of a measure other than makespan and penalty (due dates, setups, weighted sums). It is
#: registered by ``measures.py`` (:func:`measure_objective`), which builds on this module's variables;
#: the package imports it with the encoders.
_MEASURE_OBJECTIVE: list[Callable[[Any], Any]] = []


def measure_objective(build: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Register the builder of measure objectives (a decorator)."""
    _MEASURE_OBJECTIVE[:] = [build]
    return build
"""``@encoder(Kind)`` registers the Pyomo encoder of a constraint kind."""


StoreName = Literal["light", "pyomo"]


def make_store(kind: StoreName, name: str) -> Store:
    """The light store, or the Pyomo one (imported only when asked for: Pyomo takes a second to load)."""
    if kind == "pyomo":
        from schedc.backends.pyomo.pyomo_store import PyomoStore

        return PyomoStore(name)
    return LinearStore(name)


class PyomoModel:
    """Builds and holds the MILP of one instance (``fixed``: every decision fixed) in a store:
    the light linear layer by default, a Pyomo ``ConcreteModel`` with ``store="pyomo"``
    (``.model`` is then that ``ConcreteModel``)."""

    def __init__(self, instance: Instance, family: Family, fixed: Solution | None = None,
                 store: StoreName = "light"):
        self.instance = instance
        self.family = family
        self.ctx = EvalContext(instance, family)
        self.store = make_store(store, instance.name)
        self.model = self.store.model
        self.fixed = fixed
        self.terms: list[tuple[int, Any]] = []
        self.components: dict[str, list[Any]] = {}
        self.hint: Solution | None = None
        self.makespan: Any = None
        self.objective: Any = 0
        self.cache: dict[tuple, Any] = {}  # shared literals and auxiliaries, built once per key
        #: rows that need the whole model first (a bound on the total penalty), added before the objective
        self.finishers: list[Callable[[], None]] = []
        if instance.activities:
            self._interval_variables()
        else:
            self._slot_variables()
        encode_all("pyomo", self, ENCODERS)
        self._objective()
        if fixed is not None:
            self.fix(fixed)

    # ------------------------------------------------------------------ rows and auxiliary variables

    def require(self, constraint: Constraint, relation: Any) -> None:
        """Add a hard linear relation on behalf of ``constraint``."""
        self.add(constraint.id, relation)

    def add(self, owner: str, relation: Any) -> None:
        """Add one row to the list of ``owner`` (a constraint id or a structural name).

        A relation without variables is a Python bool: true ones are dropped, false ones
        make the model infeasible through an explicit impossible row (so that an emitted
        LP still shows it).
        """
        if isinstance(relation, bool):
            if not relation:
                self.add_infeasible(owner)
            return
        self.store.add(owner, relation)

    def add_infeasible(self, owner: str) -> None:
        """A row no solution satisfies (``z ≥ 1`` for a variable fixed to 0 by its bounds)."""
        self.add(owner, self.new_var("never", 0, 0) >= 1)

    def new_var(self, role: str, lb: int, ub: int, binary: bool = False) -> Any:
        """A fresh integer (or binary) variable of the list called ``role`` (numbered from 1)."""
        return self.store.new_var(role, lb, ub, binary)

    # ------------------------------------------------------------------ penalties

    def penalize(self, constraint: Constraint, expr: Any) -> None:
        """Add ``weight × expr`` to the objective as part of ``constraint``'s component."""
        self.components.setdefault(constraint.id, []).append(expr)
        self.terms.append((constraint.weight, expr))

    def bounded(self, constraint: Constraint, expr: Any, lo: int | None, hi: int | None, upper: int) -> None:
        """``lo ≤ expr ≤ hi``: rows when hard; soft: ``deficit ≥ lo − expr`` and ``excess ≥ expr − hi``
        (integers ≥ 0, tight under minimisation), both penalised. ``upper`` bounds ``expr``."""
        if constraint.hard:
            if lo is not None:
                self.add(constraint.id, expr >= lo)
            if hi is not None:
                self.add(constraint.id, expr <= hi)
            return
        if lo is not None and lo > 0:
            deficit = self.new_var("deficit", 0, lo)
            self.add(constraint.id, deficit >= lo - expr)
            self.penalize(constraint, deficit)
        if hi is not None and hi < upper:
            excess = self.new_var("excess", 0, upper - hi)
            self.add(constraint.id, excess >= expr - hi)
            self.penalize(constraint, excess)

    def forbid_or_penalize(self, constraint: Constraint, literals: list[Literal01], cost: int = 1) -> None:
        """The AND of ``literals`` must not hold: ``Σ l_i ≤ n − 1``; soft: an indicator
        ``w ≥ Σ l_i − (n − 1)`` costs ``cost`` (tight under minimisation as cost > 0).

        The literals must be exact 0/1 expressions: a negated one (``1 − w``) would let the
        solver dodge the rule if ``w`` could rise above the truth."""
        size = len(literals)
        if constraint.hard:
            self.add(constraint.id, quicksum(literals) <= size - 1)
            return
        if size == 1:  # the literal is exact: it is its own indicator
            self.penalize(constraint, cost * literals[0])
            return
        indicator = self.new_var("occurs", 0, 1, binary=True)
        self.add(constraint.id, indicator >= quicksum(literals) - (size - 1))
        self.penalize(constraint, cost * indicator)

    def any_of(self, literals: list[Literal01], role: str, owner: str = "logic", sides: Sides = "both") -> Literal01:
        """A 0/1 expression equal to the OR of ``literals``.

        ``both``: ``w ≥ l_i`` for each i and ``w ≤ Σ l_i`` (exact). ``geq`` keeps only the
        first family (w can only be pushed *down* to the OR: for uses where minimisation or
        an upper bound does that), ``leq`` only the second (for uses that push w *up*).
        """
        literals = [lit for lit in literals if not (isinstance(lit, int) and lit == 0)]
        if any(isinstance(lit, int) and lit == 1 for lit in literals):
            return 1
        if not literals:
            return 0
        if len(literals) == 1:
            return literals[0]
        var = self.new_var(role, 0, 1, binary=True)
        if sides in ("both", "geq"):
            self.store.add_dominating(owner, var, literals)
        if sides in ("both", "leq"):
            self.add(owner, var <= quicksum(literals))
        return var

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
        self.est = earliest_starts(self.instance, self.preds)
        tail = tails(self.instance)
        self.horizon, self.hint = schedule_horizon(self.ctx, self.preds, self.fixed, tail)
        if self.instance.horizon is not None:  # every activity ends by the instance's horizon
            self.horizon = min(self.horizon, self.instance.horizon)
        self.lst = {a.name: max(self.est[a.name], self.horizon - tail[a.name]) for a in acts}
        names = [a.name for a in acts]
        self.start = self.store.indexed("S", names, [self.est[a] for a in names], [self.lst[a] for a in names])
        multi = [(a.name, k) for a in acts if len(a.modes) > 1 for k in range(1, len(a.modes) + 1)]
        self.y = self.store.indexed("y", multi, None, None)  # binaries
        self.present: dict[tuple[str, int], Literal01] = {}
        self.duration: dict[str, Any] = {}
        #: presence binary ``p_a`` of every optional activity (its mode binaries sum to it)
        self.performed: dict[str, Any] = {}
        for a in acts:
            if a.name in self.ctx.optional:
                self._optional_variables(a)
                continue
            if len(a.modes) == 1:
                self.present[(a.name, 1)] = 1
                self.duration[a.name] = a.modes[0].duration
                continue
            for k in range(1, len(a.modes) + 1):
                self.present[(a.name, k)] = self.y[(a.name, k)]
            self.add("modes", quicksum(self.y[(a.name, k)] for k in range(1, len(a.modes) + 1)) == 1)
            self.duration[a.name] = quicksum(m.duration * self.y[(a.name, k)]
                                                 for k, m in enumerate(a.modes, start=1))
        self.end = {a: self.start[a] + self.duration[a] for a in names}
        #: the (activity, mode) pairs whose work pauses over breaks: the end is a variable (pausable.py)
        self.pausing = {(a.name, k) for a in acts for k, mode in enumerate(a.modes, start=1)
                        if mode.duration > 0 and self.ctx.breaks and self.ctx.mode_breaks(mode)}
        for a in acts:
            if any((a.name, k) in self.pausing for k in range(1, len(a.modes) + 1)):
                pausable_variables(self, a)
        if self.instance.horizon is not None:
            self._within_horizon(self.instance.horizon)

    def _within_horizon(self, limit: int) -> None:
        """``E_a ≤ H`` in every mode an activity may end after H: ``E_{a,k} ≤ H + M·(1 − present_{a,k})``,
        M the mode's latest end beyond H (the row is void for a mode not chosen and a left-out activity)."""
        for a in self.instance.activities:
            for k, mode in enumerate(a.modes, start=1):
                reach = self.ctx.stretched(mode, self.lst[a.name]) - limit
                if reach > 0:
                    self.add("horizon", self.mode_end(a.name, k) <= limit + reach * (1 - self.present[(a.name, k)]))

    def _optional_variables(self, a: Any) -> None:
        """An optional activity: ``p_a`` binary; one mode: its presence is ``p_a`` (the duration stays
        the constant); several: ``Σ_k y[a,k] = p_a``."""
        performed = self.performed[a.name] = self.new_var("performed", 0, 1, binary=True)
        if len(a.modes) == 1:
            self.present[(a.name, 1)] = performed
            self.duration[a.name] = a.modes[0].duration
            return
        for k in range(1, len(a.modes) + 1):
            self.present[(a.name, k)] = self.y[(a.name, k)]
        self.add("modes", quicksum(self.y[(a.name, k)] for k in range(1, len(a.modes) + 1)) == performed)
        self.duration[a.name] = quicksum(m.duration * self.y[(a.name, k)]
                                             for k, m in enumerate(a.modes, start=1))

    def latest_end(self, name: str) -> int:
        """The latest end of an activity in any mode (its work stretched over breaks from ``lst``)."""
        return max(self.ctx.stretched(mode, self.lst[name]) for mode in self.ctx.activities[name].modes)

    def mode_end(self, name: str, k: int) -> Any:
        """``E_a`` when mode k is chosen: ``S_a + d_{a,k}``, or the end variable of a mode pausing over breaks."""
        if (name, k) in self.pausing:
            return self.end[name]
        return self.start[name] + self.ctx.activities[name].modes[k - 1].duration

    def left_out(self, *names: str) -> Any:
        """``Σ (1 − p_a)`` over those of ``names`` that are optional: 0 exactly when all are performed
        (a rule of them is relaxed by ``M·left_out``)."""
        return sum(1 - self.performed[n] for n in names if n in self.performed)

    def makespan_lower_bound(self) -> int:
        """max(critical path, load / capacity of every resource a hard rule keeps): a valid lower bound of C."""
        required = [a for a in self.instance.activities if a.name not in self.ctx.optional]
        best = max((self.est[a.name] + min(m.duration for m in a.modes) for a in required), default=0)
        kept = capacity_kept(self.instance)  # a resource no rule keeps may run all its activities at once
        for r in self.instance.resources:
            if r.name not in kept or not r.capacity:
                continue
            load = sum(min(m.duration * next((u.amount for u in m.uses if u.resource == r.name), 0) for m in a.modes)
                       for a in required)
            best = max(best, -(-load // r.capacity))
        # the workers of skill_requirements: their load over their number
        return max([best, *(c.makespan_bound(self.ctx) for c in self.instance.constraints
                            if isinstance(c, SkillRequirements) and c.hard and c.active)])

    # ------------------------------------------------------------------ slot variables

    def _slot_variables(self) -> None:
        ctx = self.ctx
        keys = [(e, d, p, v) for e in ctx.agents for d in range(ctx.days) for p in range(ctx.periods)
                for v in ctx.values]
        self.x: dict[tuple[str, int, int, str], Any] = self.store.indexed("x", keys, None, None)  # binaries
        # A hard "at most one value per agent-slot" makes the x of one agent-slot exclusive.
        self.exclusive_slots = any(isinstance(c, OnePerSlot) and c.active and c.hard and c.per == "agent"
                                   for c in self.instance.constraints)

    def slot_vars(self, agent: str, day: int, values: Iterable[str] | None = None) -> list[Any]:
        """Assignment variables of an agent on a day (all periods), optionally for some values."""
        chosen = self.ctx.values if values is None else list(values)
        return [self.x[(agent, day, p, v)] for p in range(self.ctx.periods) for v in chosen if (agent, day, p, v)
                in self.x]

    def or_of_slot(self, agent: str, day: int, periods: Iterable[int], values: Iterable[str], role: str) -> Literal01:
        """The OR of ``x[agent, day, p, v]`` over the given periods and values (cached)."""
        periods, values = tuple(periods), tuple(values)
        key = ("or", agent, day, periods, values)
        if key not in self.cache:
            xs = [self.x[(agent, day, p, v)] for p in periods for v in values if (agent, day, p, v) in self.x]
            if self.exclusive_slots and len(periods) == 1:
                self.cache[key] = quicksum(xs) if xs else 0  # at most one of them is 1
            else:
                self.cache[key] = self.any_of(xs, role)
        return self.cache[key]

    def working_values(self) -> list[str]:
        return [v for v in self.ctx.values if v != self.ctx.free]

    def matches(self, agent: str, day: int, vf: ValueFilter) -> Literal01:
        """Exactly "the agent's day matches the filter" (see ValueFilter)."""
        if vf.mode == "free":
            return 1 - self.matches(agent, day, WORK)
        values = self.working_values() if vf.mode == "work" else list(vf.values)
        return self.or_of_slot(agent, day, range(self.ctx.periods), values, "day_matches")

    def occupied(self, agent: str, day: int, period: int) -> Literal01:
        """Exactly "the agent holds some value in this slot" (``u[e, s]``)."""
        return self.or_of_slot(agent, day, (period,), self.ctx.values, "occupied")

    def sequence(self, agent: str, vf: ValueFilter, windows: Windows) -> list[Literal01]:
        """Exact 0/1 elements of the agent's sequence: one per day, or one per weekend (any day
        matches; for ``free``, all days free) — the evaluator's definition."""
        out = []
        for window in self.ctx.windows(windows):
            key = ("seq", agent, vf, window)
            if key not in self.cache:
                if vf.mode == "free":
                    worked = self.any_of([self.matches(agent, d, WORK) for d in window], "window_matches")
                    self.cache[key] = 1 - worked
                else:
                    self.cache[key] = self.any_of([self.matches(agent, d, vf) for d in window], "window_matches")
            out.append(self.cache[key])
        return out

    # ------------------------------------------------------------------ objective and fixing

    def penalty(self) -> Any:
        """The weighted sum of every penalty term."""
        return quicksum(w * expr for w, expr in self.terms) if self.terms else 0

    def _objective(self) -> None:
        for finish in self.finishers:
            finish()
        measure = self.instance.objective.measure
        if measure == "makespan" and self.instance.activities:
            self.objective = self.makespan_var()
        elif measure != "penalty" and self.instance.activities:
            self.objective = self.objective_expr = _MEASURE_OBJECTIVE[0](self)
        else:
            self.objective = self.penalty()
        self.store.set_objective(self.objective, "objective")

    def makespan_var(self) -> Any:
        """The makespan variable ``C ≥ E_a`` (built once; tight under minimisation)."""
        if self.makespan is None:
            lower = self.makespan_lower_bound()
            self.makespan = self.store.scalar("C", lower, max(lower, self.horizon))
            # the project ends when its last activities end: only those without successors matter
            has_successor = {p for preds in self.preds.values() for p, _lag in preds}
            for name, end in self.end.items():
                if name not in has_successor:
                    self.add("makespan", self.makespan >= end - self.latest_end(name) * self.left_out(name))
        return self.makespan

    def fix(self, solution: Solution) -> None:
        """Fix every decision to ``solution`` by equality rows (an impossible value then makes
        the model infeasible instead of failing to build)."""
        for var, value in self.decisions(solution):
            self.add("fixed", var == value)
        if any(not 1 <= solution.modes.get(a.name, 1) <= len(a.modes) for a in self.instance.activities
               if a.name in solution.starts):
            self.add_infeasible("fixed")

    def decisions(self, solution: Solution) -> list[tuple[Any, int]]:
        """(variable, value) for every decision variable ``solution`` determines: the presence
        binary of each optional activity, the start and mode binaries of each performed one, and
        every assignment binary ``x``. The auxiliaries (order binaries, penalty slacks, the
        makespan) are not listed: they follow from these."""
        if not self.instance.activities:
            chosen_keys = {(x.agent, x.day, x.period, x.value) for x in solution.assignments}
            return [(var, int(key in chosen_keys)) for key, var in self.x.items()]
        pairs: list[tuple[Any, int]] = []
        for a in self.instance.activities:
            if a.name in self.performed:
                pairs.append((self.performed[a.name], int(a.name in solution.starts)))
            if a.name not in solution.starts:
                continue
            pairs.append((self.start[a.name], solution.starts[a.name]))
            chosen = solution.modes.get(a.name, 1)
            pairs += [(literal, int(k == chosen)) for k in range(1, len(a.modes) + 1)
                      if not isinstance(literal := self.present[(a.name, k)], int)]
        for activity, members in self.__dict__.get("teams", {}).items():  # skill_requirements' teams
            team = solution.workers.get(activity, ())
            pairs += [(var, int(worker in team)) for worker, var in members]
        return pairs

    def value(self, expr: Any) -> float | None:
        """The value of a number or expression of this model at the solution loaded into it."""
        return self.store.value(expr)
