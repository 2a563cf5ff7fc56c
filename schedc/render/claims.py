"""Rule sentences from claims: each kind's templates word the claim of each active constraint.

A constraint's kind derives its :class:`~schedc.kinds.claims.Claim` (modality, parameters
with only the bounds that exist); :func:`claim_view` turns it into what the kind's templates
see — the claim's parameters in the rendering's display names and role words, never the
constraint itself — and :class:`ClaimWriter` renders one sentence per claim in the paraphrase
the statement around it uses, recording every sentence it wrote so that ``schedc render
--json`` can list the sentences stating each claim.

Templates: ``templates/kinds/<kind>/<n>_<style>.j2`` (at least three paraphrases per kind),
overridden by ``templates/<family>/kinds/<kind>/`` beside a user's family spec or among the
built-in ones, with shared phrasing in ``templates/_claims.j2``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedc.ir import Family, Instance
from schedc.ir.answer_roles import role_fields
from schedc.kinds import Constraint, kind_name
from schedc.kinds.claims import Claim
from schedc.kinds.counting import bounds_text
from schedc.kinds.setup_times import FORMS, RowForm, Setup, row_form
from schedc.render.context import BuildContext
from schedc.render.facts import day_number, per_instance, row_key, weekend_days
from schedc.render.rows import in_sentence, precedence_split
from schedc.render.templates import KindTemplates
from schedc.render.themes import attribute_role, many, plural

TABLE_PARAMS = frozenset({"requirements", "slots", "entries", "edges", "windows", "due_dates", "setups",
                          "selections", "pairs", "ties", "needs", "rows", "lengths"})
"""Parameters that hold a table of data: stated by their own statements, not by the rule sentence."""


@per_instance
def claims(instance: Instance) -> list[tuple[Constraint, Claim]]:
    """Every active constraint of ``instance`` with its claim, in declaration order."""
    # soft penalties count toward a weighted sum that has a penalty term as they do toward ``penalty``
    measure = "penalty" if "penalty" in instance.objective.measures() else instance.objective.measure
    return [(c, c.claim(measure)) for c in instance.constraints if c.active]


class ClaimWriter:
    """Writes the rule sentences of one rendering and remembers which sentence states which claim."""

    def __init__(self, ctx: BuildContext, templates: KindTemplates):
        self.ctx = ctx
        self.templates = templates
        self.by_id: dict[str, Claim] = {claim.constraint: claim for _, claim in claims(ctx.instance)}
        self.constraints: dict[str, Constraint] = {c.id: c for c in ctx.instance.constraints if c.active}
        self.texts: dict[str, list[str]] = {cid: [] for cid in self.by_id}
        self.log: list[tuple[str, str]] = []  # (constraint, sentence) in the order written
        self._views: dict[str, dict[str, Any]] = {}
        self.words = role_words(ctx.instance, ctx.family, ctx.words, ctx.names)

    def view(self, constraint_id: str) -> dict[str, Any]:
        """The template view of a claim (computed once per rendering)."""
        found = self._views.get(constraint_id)
        if found is None:
            found = claim_view(self.by_id[constraint_id], self.constraints[constraint_id], self.ctx)
            self._views[constraint_id] = found
        return found

    def verbatim(self, constraint_id: str) -> list[str]:
        """Display names a claim's sentence may print (their digits are names, not data)."""
        return list(self.view(constraint_id)["verbatim"])

    def sentence(self, constraint_id: str, style: int) -> str:
        """The sentence of paraphrase ``style`` stating the claim (recorded for the claim's text)."""
        view = self.view(constraint_id)
        text = self.templates.sentence(view["kind"], style, {"c": view, "w": self.ctx.words, "r": view["r"]})
        self.texts[constraint_id].append(text)
        self.log.append((constraint_id, text))
        return text

    def say(self, style: int) -> Any:
        """A template function ``say(rule)`` writing the sentence of ``rule`` in paraphrase ``style``."""

        def say(rule: dict[str, Any]) -> str:
            return self.sentence(str(rule["id"]), style)

        return say


# --------------------------------------------------------------------------- the view


def claim_view(claim: Claim, constraint: Constraint, ctx: BuildContext) -> dict[str, Any]:
    """What a kind's templates see: the claim's modality and parameters in display names and role words.

    Table parameters (edges, requirements, …) are left out: their rows are data statements of
    their own. Derived wording facts (``routes``, ``choice``, ``deadlines``, ``free``) are
    computed from the claim's parameters and the instance's structure, never from ``check``.
    """
    verbatim: list[str] = []
    view: dict[str, Any] = {"kind": claim.kind, "id": claim.constraint, "hard": claim.hard,
                            "weight": claim.weight, "scored": claim.scored, "verbatim": verbatim}
    for key, value in claim.params.items():
        if key in TABLE_PARAMS and isinstance(value, list):
            continue
        view[key] = _shown(key, value, ctx, verbatim)
    view["r"] = words_for(ctx)
    view.update(_derived(claim, constraint, ctx))
    verbatim += [ctx.show(name) for name in _row_names(claim)]
    # display names the sentence prints (their digits are names, not data)
    verbatim += [*view.get("scope", ()), *view.get("route_jobs", ()), *view.get("names", ())]
    return view


#: kinds whose rule sentence lists its own rows: the parameter holding them and the row cells that
#: name entities (an operation shown as ``Job 4 step 1`` carries numbers that are names, not data)
_LISTED_NAMES = {"setup_times": ("setups", (0, 1, 2)), "consecutive": ("pairs", (0, 1)),
                 "same_sequence": ("pairs", (0, 1)),
                 "resource_ties": ("ties", (1, 2)), "time_window": ("windows", (0,))}


def _row_names(claim: Claim) -> list[str]:
    """The entity names a rule sentence prints from its rows (recorded verbatim for the number audit)."""
    if claim.kind == "optional":
        return [a for _, members in claim.params.get("selections", []) for a in members]
    key, cells = _LISTED_NAMES.get(claim.kind, ("", ()))
    return [row[i] for row in claim.params.get(key, []) for i in cells if row[i] != "*"]  # * of setup rows


def _shown(key: str, value: Any, ctx: BuildContext, verbatim: list[str]) -> Any:
    """One parameter in display form: selectors, value filters and patterns get display names."""
    if key == "agents":
        return selector_view(value, ctx, verbatim)
    if key == "values" and isinstance(value, dict):
        word = words_for(ctx)["value"]
        names = [ctx.show(v) for v in value.get("values", ())]
        verbatim += [ctx.mention(v, word) for v in value.get("values", ())]
        return {"mode": value["mode"], "names": names, "labels": [labelled(n, word) for n in names]}
    if key == "pattern":
        shown = [e if e in ("work", "free") else ctx.show(e) for e in value]
        verbatim += [ctx.mention(e, words_for(ctx)["value"]) for e in value if e not in ("work", "free")]
        return shown
    if key in ("over", "windows") and isinstance(value, dict):
        return {**value, "days": weekend_days(value.get("weekend"))}
    if key in ("groups", "by", "demand", "capacity", "members", "skills", "requires", "attr", "exclusive"):
        return {"name": value, "one": _role(ctx, value), "many": _roles(ctx, value)}
    return value


def labelled(name: str, word: str) -> str:
    """A value named with its role word unless the name already starts with it: ``shift N``, ``Shift 1``."""
    return name if name.casefold().startswith(word.casefold()) else f"{word} {name}"


def selector_view(sel: dict[str, Any], ctx: BuildContext, verbatim: list[str]) -> dict[str, Any]:
    """A selector as templates word it: role words, attribute filters and listed names, displayed."""
    cls = sel["cls"]
    where = [{"attr": _role(ctx, k), "value": ctx.show(v, attribute_role(k, False))} for k, v in sel.get("where", ())]
    names = [ctx.show(n) for n in sel.get("names", ())]
    verbatim += [ctx.mention(v, _role(ctx, k), attribute_role(k, False)) for k, v in sel.get("where", ())]
    verbatim += [ctx.mention(n, _role(ctx, cls)) for n in sel.get("names", ())]
    return {"one": _role(ctx, cls), "many": _roles(ctx, cls), "where": where, "names": names}


def _role(ctx: BuildContext, name: str) -> str:
    return ctx.words.get(name, name.replace("_", " "))


def _roles(ctx: BuildContext, name: str) -> str:
    return many(ctx.words, name, _role(ctx, name))


def words_for(ctx: BuildContext) -> dict[str, str]:
    """The role words of rule sentences (the writer's, computed once per rendering)."""
    if ctx.writer is not None:
        return ctx.writer.words
    return role_words(ctx.instance, ctx.family, ctx.words, ctx.names)


def role_words(instance: Instance, family: Family, vocabulary: dict[str, str],
               names: dict[str, str]) -> dict[str, str]:
    """The role words of rule sentences: who is assigned what and when (slot families), or what is
    scheduled on what (interval families); units for durations."""
    decision = family.decision
    words = dict(vocabulary)

    def one(name: str) -> str:
        return vocabulary.get(name, name.replace("_", " "))

    if decision is not None:
        agent, value = decision.agent, decision.value
        unit = vocabulary.get("lecture") or one(value)
        words.update(agent=one(agent), agent_many=many(vocabulary, agent, one(agent)), value=one(value),
                     value_many=many(vocabulary, value, one(value)),
                     slot="period" if decision.grain == "period" else "day",
                     slots="periods" if decision.grain == "period" else "days", unit=unit, units=plural(unit),
                     free=names.get(decision.free, decision.free) if decision.free else "")
        return words
    jobs = any(a.job is not None for a in instance.activities)
    task = vocabulary.get("operation", "step") if jobs else vocabulary.get("activity", "activity")
    # without jobs nothing introduces "machines": a sequencing rule speaks of the resources the rows name
    equipment = "machine" if jobs or "machine" in vocabulary else "resource"
    machine = vocabulary.get(equipment, equipment)
    words.update(task=task, tasks=plural(task), job=vocabulary.get("job", "job"), jobs=vocabulary.get("jobs", "jobs"),
                 machine=machine, machines=vocabulary.get(plural(equipment), plural(machine)),
                 time=vocabulary.get("unit", "time unit"), times=vocabulary.get("units", "time units"))
    return words


def _derived(claim: Claim, constraint: Constraint, ctx: BuildContext) -> dict[str, Any]:
    """Wording facts of interval claims that follow from their tables and the instance's structure, and the
    rows the sentence lists itself (:mod:`schedc.render.rows`: a soft rule's rows, or rows whose category
    the plan lacks)."""
    derive = _DERIVED.get(kind_name(constraint))
    return {} if derive is None else derive(claim.params, constraint, ctx)


def _listed(ctx: BuildContext, c: Constraint, *key: str | int, keyed: bool = True) -> bool:
    """Whether the row fact ``key`` of ``c`` is listed by its rule sentence (``keyed``: the kind's row facts
    are qualified by the rule when it is soft, :func:`schedc.render.facts.row_key`)."""
    return in_sentence(ctx, c, row_key(c, *key) if keyed else key)


def _precedence_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    """``routes``: this rule chains jobs whose statements list their steps in route order (``route_jobs``
    names them when other jobs are not chained by it); ``classic``: end-to-start edges the
    ``precedences`` statements list (``lags``: some with a delay); ``general``: one clause per edge the
    sentence states itself (other relations, negative delays, a soft rule's edges, edges no statement of
    the plan lists), with ``names`` the activities those clauses name; ``empty``: no edge at all
    (:func:`schedc.render.rows.precedence_split`)."""
    split = precedence_split(ctx, c)  # type: ignore[arg-type]
    general = [_relation_words(ctx.show(a), ctx.show(b), lag, relation) for a, b, lag, relation in split.clauses]
    names = list(dict.fromkeys(ctx.show(x) for a, b, _, _ in split.clauses for x in (a, b)))
    return {"routes": bool(split.routes), "route_jobs": [] if split.all_routes else [ctx.show(j) for j in split.routes],
            "classic": split.classic, "lags": split.lags, "general": general, "names": names,
            "empty": not params.get("edges")}


def _mode_choice_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    multi = any(len(a.modes) > 1 for a in ctx.instance.activities)
    machines = all(len(m.uses) == 1 for a in ctx.instance.activities for m in a.modes) and any(
        a.job is not None for a in ctx.instance.activities)
    # an answer naming the mode by its resources per role: the rule speaks of the listed combinations of them
    roles = [ctx.words.get(r, r) for r in role_fields(ctx.family)]
    pairs = ("pairs" if len(roles) == 2 else "combinations") + " of " + " and ".join(roles) if roles else ""
    return {"choice": multi, "machines": machines, "pairs": pairs}


def _time_window_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    """Which bounds the windows have, whether targets are jobs, the objective data, and the rows the
    sentence lists (``listed``)."""
    windows = params.get("windows", [])
    jobs = {a.job for a in ctx.instance.activities if a.job is not None}
    listed = []
    for target, release, deadline, latest_start, earliest_end, _due, _weight in windows:
        if _listed(ctx, c, "release", target):
            bounds = [f"release date {release}", *([f"deadline {deadline}"] if deadline is not None else []),
                      *([f"latest start {latest_start}"] if latest_start is not None else []),
                      *([f"earliest end {earliest_end}"] if earliest_end is not None else [])]
            listed.append(f"{ctx.show(target)}: {', '.join(bounds)}")
    on_jobs = all(w[0] in jobs for w in windows)
    return {"deadlines": any(w[2] is not None for w in windows), "on_jobs": on_jobs,
            "on_tasks": not any(w[0] in jobs for w in windows),
            "latest_starts": any(w[3] is not None for w in windows),
            "earliest_ends": any(w[4] is not None for w in windows), "listed": listed,
            # due dates and weights are data of the objective, stated with the rule that carries them
            "dues": [f"{ctx.show(w[0])}: " + ", ".join(
                ([f"due date {w[5]}"] if w[5] is not None else []) + ([f"weight {w[6]}"] if w[6] is not None else []))
                     for w in windows if w[5] is not None or w[6] is not None]}


def _downtime_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    count: dict[str, int] = {}
    listed, names = [], []
    for resource, start, end, label in params.get("windows", []):
        count[resource] = count.get(resource, 0) + 1
        if _listed(ctx, c, "downtime", resource, count[resource]):
            names.append(ctx.show(resource))
            listed.append(f"{names[-1]} from {start} to {end}" + (f" ({label})" if label else ""))
    return {"listed": listed, "names": names}


def _tardiness_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    rows = [row for row in params.get("due_dates", []) if _listed(ctx, c, "due", row[0], keyed=False)]
    listed = [f"{ctx.show(target)} due at {due}" + (f" (weight {weight})" if weight != 1 else "")
              for target, due, weight in rows]
    return {"weighted": any(row[2] != 1 for row in params.get("due_dates", [])), "listed": listed,
            "names": [ctx.show(row[0]) for row in rows]}


def _scope_view(kind: str) -> Callable[[dict[str, Any], Constraint, BuildContext], dict[str, Any]]:
    """Unary, renewable and non-renewable rules: the resources named (``scope``: all of the kind is left
    unnamed in a shop whose job statements introduce the machines, or where no other kind of resource
    exists) and amounts the sentence lists."""
    fact = {"renewable": "capacity", "nonrenewable": "budget"}.get(kind)

    def view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
        scope = params.get("resources", "all")
        names = [r.name for r in ctx.instance.resources if r.kind == kind] if scope == "all" else list(scope)
        # "a machine" / "a resource" covers them all where the word means nothing else: in a shop of jobs,
        # or when every resource is of this kind; otherwise (exams holding cohorts and a hall) name them
        alone = all(r.kind == kind for r in ctx.instance.resources)
        jobs = any(a.job is not None for a in ctx.instance.activities)
        shown = [] if scope == "all" and (jobs or alone or kind != "unary") else [ctx.show(n) for n in names]
        capacity = {r.name: r.capacity for r in ctx.instance.resources}
        listed = [f"{ctx.show(n)}: {capacity[n]}" for n in names if fact and _listed(ctx, c, fact, n)]
        return {"scope": shown, "listed": listed}

    return view


def _window_cost_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    table = params.get("table", [])
    return {"priced": [{"pattern": p, "cost": cost} for p, cost in table],
            "patterns": [p for p, cost in table if cost]}


def _setup_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    """The rows are stated in the rule sentence itself (``listed``), a constant row as one clause for
    every changeover and a class row as one for the operations of two jobs; ``order``: the precedence of
    the row forms when one resource has rows of several forms (:mod:`schedc.kinds.setup_times`);
    ``complete``: every resource of the rule has a ``* *`` row, so no pair goes without a setup."""
    words = words_for(ctx)
    activities = {a.name for a in ctx.instance.activities}
    listed: list[str] = []
    forms: dict[str, set[RowForm | None]] = {}
    for r, a, b, t in params.get("setups", []):
        form = row_form(Setup(resource=r, before=a, after=b, time=t), activities)
        forms.setdefault(r, set()).add(form)
        amount = f"{t} {words['time'] if t == 1 else words['times']}"
        if form == "constant":
            listed.append(f"on {ctx.show(r)}, every changeover between two {words['tasks']} takes {amount}")
        elif form == "class" and a == b:
            listed.append(f"on {ctx.show(r)}, a changeover between two {words['tasks']} of "
                          f"{labelled(ctx.show(a), words['job'])} takes {amount}")
        elif form == "class":
            job = words["job"]
            listed.append(f"on {ctx.show(r)}, a changeover from any {words['task']} of {labelled(ctx.show(a), job)} "
                          f"to any {words['task']} of {labelled(ctx.show(b), job)} takes {amount}")
        else:
            listed.append(f"on {ctx.show(r)}, {ctx.show(b)} right after {ctx.show(a)}: {t}")
    mixed = {f for seen in forms.values() if len(seen) > 1 for f in seen}
    present = [f for f in FORMS if f in mixed]
    first = {"activity": f"a setup listed for one pair of {words['tasks']}",
             "class": f"a setup listed for one pair of {words['jobs']}"}
    later = {"class": f"the one listed for their {words['jobs']}", "constant": "the one for every changeover"}
    order = [" overrides ".join([first[present[0]], ", which overrides ".join(later[f] for f in present[1:])])
             ] if present else []
    # every resource of the rule has a * * row: no pair is left without a setup
    complete = bool(forms) and all("constant" in seen for seen in forms.values())
    return {"listed": listed, "order": order, "complete": complete}


def _resource_list(params: dict[str, Any], ctx: BuildContext) -> list[str]:
    scope = params.get("resources", "all")
    return [] if scope == "all" else [ctx.show(r) for r in scope]


def _ties_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    r = words_for(ctx)
    return {"listed": [f"{ctx.show(a)} and {ctx.show(b)} on {'the same' if rule == 'same' else 'different'} "
                       f"{r['machines'] if rule == 'different' else r['machine']}"
                       for rule, a, b in params.get("ties", [])]}


def _optional_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    words = {"optional": "any number of", "all_or_none": "all or none of", "at_least_one": "at least one of",
             "exactly_one": "exactly one of"}
    return {"groups": [f"{words[rule]} {', '.join(ctx.show(a) for a in members)}"
                       for rule, members in params.get("selections", [])]}


def _coverage_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    """``bounds``: what the requirement rows bound — ``min`` (minimums only), ``max`` (maximums only),
    ``exact`` (every row an exact number) or ``range`` (rows with both bounds, or a mixture) — so that no
    paraphrase reads a minimum as an exact number ("as many as listed")."""
    return {"bounds": bounds_shape([(row[3], row[4]) for row in params.get("requirements", [])])}


def bounds_shape(rows: list[tuple[int | None, int | None]]) -> str:
    """``exact``, ``min``, ``max`` or ``range`` for a list of (lower, upper) bounds (``None``: absent)."""
    if all(lo is not None and lo == hi for lo, hi in rows):
        return "exact"
    if all(hi is None for _, hi in rows):
        return "min"
    if all(lo is None for lo, _ in rows):
        return "max"
    return "range"


def _skill_demand_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    """``listed``: one clause per row ("at least 1 nurse with skill Senior on shift N on day 3"), ``bounds``: what
    the rows bound (as coverage's), ``names``: the values and skills the clauses print."""
    r = words_for(ctx)
    decision = ctx.family.decision
    listed, names = [], []
    for day, period, value, skill, lo, hi in params.get("needs", []):
        shown_value = labelled(ctx.show(value, decision.value if decision else None), r["value"])
        shown_skill = labelled(ctx.show(skill, "skill"), "skill")
        when = f"day {day_number(ctx.family, ctx.instance, day)}" + ("" if period is None else f" period {period}")
        who = r["agent"] if lo in (None, 1) and hi in (None, 1) else r["agent_many"]
        listed.append(f"{bounds_text(lo, hi)} {who} with {shown_skill} on {shown_value} on {when}")
        names += [shown_value, shown_skill]
    return {"listed": listed, "names": list(dict.fromkeys(names)),
            "bounds": bounds_shape([(row[4], row[5]) for row in params.get("needs", [])])}


def _skill_requirements_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    """``listed``: one clause per activity ("Activity 3 needs 1 worker with the skill welding and 1 worker with
    the skill wiring"), ``who``: the workers as a selector, ``names``: the activities and skills printed."""
    verbatim: list[str] = []
    who = selector_view(params["workers"], ctx, verbatim)
    rows: dict[str, list[tuple[str, int]]] = {}
    for activity, skill, count in params.get("needs", []):
        rows.setdefault(activity, []).append((skill, count))
    listed, names = [], list(verbatim)
    for activity, needs in rows.items():
        shown = ctx.show(activity)
        parts = [f"{count} {who['one'] if count == 1 else who['many']} with the skill {ctx.show(skill, 'skill')}"
                 for skill, count in needs]
        listed.append(f"{shown} needs {' and '.join(parts)}")
        names += [shown, *(ctx.show(skill, "skill") for skill, _count in needs)]
    return {"listed": listed, "who": who, "names": list(dict.fromkeys(names))}


def _spread_view(params: dict[str, Any], c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    """``group``: a group's days are those of any of its members (kinds/costs.py Spread)."""
    decision = ctx.family.decision
    return {"group": decision is not None and params["agents"]["cls"] != decision.agent}


_DERIVED: dict[str, Callable[[dict[str, Any], Constraint, BuildContext], dict[str, Any]]] = {
    "coverage": _coverage_view,
    "precedence_lag": _precedence_view,
    "mode_choice": _mode_choice_view,
    "time_window": _time_window_view,
    "resource_downtime": _downtime_view,
    "tardiness": _tardiness_view,
    "unary_no_overlap": _scope_view("unary"),
    "cumulative_renewable": _scope_view("renewable"),
    "nonrenewable_budget": _scope_view("nonrenewable"),
    "window_pattern_cost": _window_cost_view,
    "assignment_cost": lambda p, c, ctx: {"unassigned": any(e[4] == "unassigned" for e in p.get("entries", []))},
    "setup_times": _setup_view,
    "no_idle": lambda p, c, ctx: {"scope": _resource_list(p, ctx)},
    "same_sequence": lambda p, c, ctx: {"scope": _resource_list(p, ctx),
                                        "listed": [f"{ctx.show(a)} with {ctx.show(b)}" for a, b in p.get("pairs", [])]},
    "consecutive": lambda p, c, ctx: {"listed": [f"{ctx.show(a)} directly after {ctx.show(b)}"
                                                 for b, a in p.get("pairs", [])]},
    "resource_ties": _ties_view,
    "optional": _optional_view,
    "spread": _spread_view,
    "skill_demand": _skill_demand_view,
    "skill_requirements": _skill_requirements_view,
    "slot_order": lambda p, c, ctx: _slot_order_view(p, ctx),
    "spacing": lambda p, c, ctx: {"short": [f"day {day_number(ctx.family, ctx.instance, day)} has only {n} "
                                            f"period{'s' if n != 1 else ''}" for day, n in p.get("lengths", [])]},
    "slot_cost": lambda p, c, ctx: _slot_cost_view(p, ctx),
}
"""Kind → the wording facts its sentences need beyond the claim's parameters (a new kind adds one line)."""


def _slot_order_view(params: dict[str, Any], ctx: BuildContext) -> dict[str, Any]:
    """``listed``: one clause per row ("A later than B", "A apart from B", "A together with B")."""
    words = {"after": "later than", "exclusion": "apart from", "coincidence": "together with"}
    rows = params.get("rows", [])
    return {"listed": [f"{ctx.show(a)} {words[rel]} {ctx.show(b)}" for a, rel, b in rows],
            "names": list(dict.fromkeys(ctx.show(x) for a, _, b in rows for x in (a, b)))}


def _slot_cost_view(params: dict[str, Any], ctx: BuildContext) -> dict[str, Any]:
    """``listed``: one clause per row ("any exam in period 2 of day 1 in any room: 50")."""
    r = words_for(ctx)
    decision = ctx.family.decision
    listed, names = [], []
    for agent, day, period, value, cost in params.get("rows", []):
        who = f"any {r['agent']}" if agent == "*" else ctx.show(agent)
        when = ("any " + r["slot"] if period < 0 else f"{r['slot']} {period}") + (
            "" if day < 0 else f" of day {day_number(ctx.family, ctx.instance, day)}")
        where = f"any {r['value']}" if value == "*" else labelled(ctx.show(value, decision.value if decision else None),
                                                                   r["value"])
        listed.append(f"{who} in {when} in {where}: {cost}")
        names += [x for x in (agent, value) if x != "*"]
    return {"listed": listed, "names": list(dict.fromkeys(ctx.show(n) for n in names))}


def _relation_words(a: str, b: str, lag: int, relation: str) -> str:
    """One generalized precedence in words: "the start of A plus 2 is at or before the end of B"."""
    point = {"s": "start", "e": "end"}
    delay = f" plus {lag}" if lag > 0 else (f" minus {-lag}" if lag < 0 else "")
    compare = "is exactly" if "=" in relation else "is at or before"
    return f"the {point[relation[0]]} of {a}{delay} {compare} the {point[relation[-1]]} of {b}"
