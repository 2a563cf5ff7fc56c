"""Statement builders of the interval families (job shop, flexible job shop, RCPSP, MRCPSP).

One builder per plan category; each returns the items of its statements with the facts they
express (ids from :mod:`schedc.render.facts`) and the data their templates print. Route
order within a job is never permuted: a job is one statement listing its steps in order.
"""

from __future__ import annotations

from typing import Any

from schedc.ir import Activity, Family, Mode, PlanStep
from schedc.ir.answer_roles import role_fields, role_members
from schedc.kinds import PrecedenceLag, ResourceDowntime, Tardiness, TimeWindow
from schedc.render import rules
from schedc.render.context import BuildContext, Builder, Item, unsupported
from schedc.render.facts import FactId, is_multi_mode
from schedc.render.rows import EdgeHomes, all_routed, job_steps, route_edges, routing
from schedc.render.slot import role as role_word
from schedc.render.slot import roles as roles_word
from schedc.render.themes import plural


def framing(ctx: BuildContext) -> list[Item]:
    """Sizes: jobs and machines, or activities (entity tables are sized by their own statements)."""
    classes = {c.name for c in ctx.family.classes}
    sizes = {key[1]: value[0] for key, value in ctx.facts.items() if key[0] == "size" and key[1] not in classes}
    ids: list[FactId] = [("size", key) for key in sizes]
    # classes stated one entity each by a plan step of their own (the workers of skill_requirements) are
    # counted here; machines and events count themselves
    stated = {step.category for step in ctx.family.plan}
    teams = [{"count": ctx.facts[("size", c.name)][0], "one": role_word(ctx, c.name), "many": roles_word(ctx, c.name)}
             for c in ctx.family.classes if ("size", c.name) in ctx.facts and c.name not in BUILDERS
             and plural(c.name) not in BUILDERS and (c.name in stated or plural(c.name) in stated)]
    ids += [("size", c.name) for c in ctx.family.classes if ("size", c.name) in ctx.facts and c.name not in BUILDERS
            and plural(c.name) not in BUILDERS and (c.name in stated or plural(c.name) in stated)]
    return [Item("framing", {"sizes": sizes, "routes": all_routed(ctx.instance), "staff": teams}, ctx.claim(ids))]


# --------------------------------------------------------------------------- job shops


def jobs(ctx: BuildContext) -> list[Item]:
    """One statement per job: its operations with their machine option(s), in route order when one hard
    precedence rule chains them (:func:`schedc.render.rows.routing`), else as a set of steps whose timing
    the rule sentences state."""
    multi = is_multi_mode(ctx.instance)
    routed = routing(ctx.instance)
    chained = route_edges(ctx.instance)
    return [_job_item(ctx, job, acts, job in routed, chained, multi)
            for job, acts in job_steps(ctx.instance).items()]


def _job_item(ctx: BuildContext, job: str, acts: list[Activity], ordered: bool,
              chained: dict[tuple[str, str], str], multi: bool) -> Item:
    if [a.step for a in acts] != list(range(1, len(acts) + 1)):
        raise unsupported(f"the steps of job {job} are numbered {[a.step for a in acts]}, not 1..{len(acts)}",
                          hint="write the job as one row of a jobs table (its steps are numbered in row order)")
    kinds = {r.name: r.kind for r in ctx.instance.resources}
    ids: list[FactId] = []
    ops = []
    for a in acts:
        ids += _mode_fact_ids(a, multi)
        ops.append({"step": a.step, "options": [_option(ctx, mode, kinds) for mode in a.modes]})
        ops[-1].update(ops[-1]["options"][0])
    if ordered:  # the job statement states the lag-free edges of its chain
        ids += [("edge", a.name, b.name) for a, b in zip(acts, acts[1:], strict=False) if (a.name, b.name) in chained]
    machines = list(dict.fromkeys(n for op in ops for o in op["options"] for n in o["names"]))
    context = {"job": ctx.show(job), "ops": ops, "size": len(ops), "ordered": ordered,
               "flexible": any(len(op["options"]) > 1 for op in ops),
               "shared": any(len(o["names"]) > 1 for op in ops for o in op["options"])}
    return Item(f"jobs:{job}", context, ctx.claim(ids), (ctx.show(job), *machines))


def _option(ctx: BuildContext, mode: Mode, kinds: dict[str, str]) -> dict[str, Any]:
    """A mode of a job step: the resources it uses (a unary machine by its name, another resource with its
    amount) and its duration; ``machine`` is what templates print."""
    names = [ctx.show(u.resource) for u in mode.uses]
    if len(names) == 1 and kinds.get(mode.uses[0].resource) == "unary":  # a job shop's step: one machine
        return {"machine": names[0], "duration": mode.duration, "names": names}
    parts = [name if kinds.get(u.resource) == "unary" else f"{u.amount} {'unit' if u.amount == 1 else 'units'} of "
             f"{name}" for u, name in zip(mode.uses, names, strict=True)]
    together = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " together with " + parts[-1]
    return {"machine": together, "duration": mode.duration, "names": names}


def _mode_fact_ids(activity: Activity, multi: bool) -> list[FactId]:
    """Duration, uses and choice facts of an activity (mode numbers in multi-mode instances)."""
    ids: list[FactId] = [("choice", activity.name)] if len(activity.modes) > 1 else []
    for number, mode in enumerate(activity.modes, start=1):
        where: FactId = (activity.name, number) if multi else (activity.name,)
        ids.append(("duration", *where))
        ids += [("uses", *where, u.resource) for u in mode.uses]
    return ids


# --------------------------------------------------------------------------- projects


def resources(ctx: BuildContext) -> list[Item]:
    """Renewable capacities and non-renewable budgets of the constrained resources."""
    renewable, nonrenewable, ids = [], [], []
    for r in ctx.instance.resources:
        if ("capacity", r.name) in ctx.facts:
            renewable.append({"name": ctx.show(r.name), "capacity": r.capacity})
            ids.append(("capacity", r.name))
        elif ("budget", r.name) in ctx.facts:
            nonrenewable.append({"name": ctx.show(r.name), "budget": r.capacity})
            ids.append(("budget", r.name))
    verbatim = tuple(x["name"] for x in renewable + nonrenewable)
    return [Item("resources", {"renewable": renewable, "nonrenewable": nonrenewable}, ctx.claim(ids), verbatim)]


def activities(ctx: BuildContext) -> list[Item]:
    """One statement per activity: its duration and resource use in each of its modes."""
    kinds = {r.name: r.kind for r in ctx.instance.resources}
    multi = is_multi_mode(ctx.instance)
    # resource → role, when the answer names modes by their resources per role (the statement then does too)
    members = role_members(ctx.instance, role_fields(ctx.family))
    items = []
    for a in ctx.instance.activities:
        if a.job is not None:
            continue
        modes = [_mode_context(ctx, number, mode, kinds, members) for number, mode in enumerate(a.modes, start=1)]
        verbatim = (ctx.show(a.name), *dict.fromkeys(u["name"] for m in modes for u in m["renewable"] +
                                                       m["nonrenewable"] + m["pair"]))
        # "uses no resources" tells something only where other activities use some (an MSPSP activity's staff
        # are no resources of the table, and its rule sentence states them)
        context = {"name": ctx.show(a.name), "modes": modes, "multi": multi, "named": bool(members),
                   "resources_exist": bool(kinds),
                   "pair_words": [ctx.words.get(r, r) for r in role_fields(ctx.family)], **modes[0]}
        items.append(Item(f"activities:{a.name}", context, ctx.claim(_mode_fact_ids(a, multi)), verbatim))
    return items


def _mode_context(ctx: BuildContext, number: int, mode: Mode, kinds: dict[str, str],
                  members: dict[str, str] | None = None) -> dict[str, Any]:
    """A mode's duration and the resources it holds while it runs (a unary one by its name alone: its
    amount is no datum) and consumes; ``pair``: the resources of the answer's roles (``members``: resource →
    role), each with its role word, which the other lists then leave out."""
    members = members or {}
    pair = [{"word": ctx.words.get(members[u.resource], members[u.resource]), "name": ctx.show(u.resource)}
            for u in mode.uses if u.resource in members]
    renewable = [{"name": ctx.show(u.resource), "amount": None if kinds.get(u.resource) == "unary" else u.amount}
                 for u in mode.uses if kinds.get(u.resource) != "nonrenewable" and u.resource not in members]
    nonrenewable = [{"name": ctx.show(u.resource), "amount": u.amount} for u in mode.uses
                    if kinds.get(u.resource) == "nonrenewable"]
    return {"number": number, "duration": mode.duration, "renewable": renewable, "nonrenewable": nonrenewable,
            "pair": pair}


def precedences(ctx: BuildContext) -> list[Item]:
    """One statement per activity with successors: which activities wait for it to finish (the hard
    end-to-start edges no job statement states)."""
    successors: dict[str, list[tuple[str, int]]] = {}
    homes = EdgeHomes(ctx)
    for c in ctx.instance.constraints:
        if isinstance(c, PrecedenceLag) and c.active and c.hard:
            for e in c.edges:
                if e.end_start and homes.home(c, e.before, e.after) == "precedences":
                    successors.setdefault(e.before, []).append((e.after, e.lag))
    items = []
    for a in ctx.instance.activities:
        if a.name not in successors:
            continue
        after = [{"name": ctx.show(b), "lag": lag} for b, lag in dict(successors[a.name]).items()]
        ids = [("edge", a.name, b) for b, _ in successors[a.name]]
        context = {"name": ctx.show(a.name), "successors": after, "lags": any(x["lag"] for x in after)}
        items.append(Item(f"precedences:{a.name}", context, ctx.claim(ids),
                          (ctx.show(a.name), *(x["name"] for x in after))))
    return items


# --------------------------------------------------------------------------- dynamic shops


def machines(ctx: BuildContext) -> list[Item]:
    """The machine entities: each machine's group and speed (percent of the nominal rate)."""
    rows = [e for e in ctx.instance.entities if e.cls == "machine"]
    if not rows:
        return []
    listed = [{"name": ctx.show(e.name), "group": ctx.show(str(e.attrs.get("group")), "group"),
               "speed": e.attrs.get("speed")} for e in rows]
    ids: list[FactId] = [("size", "machine")]
    for e in rows:
        ids += ctx.about("machine", e.name)
    return [Item("machines", {"machines": listed, "size": len(rows)}, ctx.claim(ids),
                 tuple(dict.fromkeys([*(m["name"] for m in listed), *(m["group"] for m in listed)])))]


def roles(ctx: BuildContext) -> list[Item]:
    """The resource roles an answer names a mode by (:mod:`schedc.ir.answer_roles`): one statement listing
    the members of every role (``The rooms are OR1, OR2 and OR3.``)."""
    listed = []
    ids: list[FactId] = []
    for role in role_fields(ctx.family):
        members = [ctx.show(e.name) for e in ctx.instance.entities if e.cls == role]
        if members:
            one = ctx.words.get(role, role)
            listed.append({"role": role, "one": one, "many": ctx.words.get(plural(role), plural(one)),
                           "members": members})
            ids += [("size", role)]
            ids += [f for e in ctx.instance.entities if e.cls == role for f in ctx.about(role, e.name)]
    if not listed:
        return []
    return [Item("roles", {"roles": listed}, ctx.claim(ids), tuple(m for r in listed for m in r["members"]))]


def releases(ctx: BuildContext) -> list[Item]:
    """Release dates (and deadlines, latest starts, earliest ends) of jobs and of single operations, in time
    order: the rows of the hard time windows (a soft rule's rows are listed by its own sentence)."""
    rows = [w for c in ctx.instance.constraints if isinstance(c, TimeWindow) and c.active and c.hard
            for w in c.windows]
    if not rows:
        return []
    listed = [{**_target(ctx, w.target), "release": w.release, "deadline": w.deadline,
               "latest_start": w.latest_start, "earliest_end": w.earliest_end}
              for w in sorted(rows, key=lambda w: (w.release, _order(ctx, w.target)))]
    ids = [(bound, w.target) for w in rows for bound in ("release", "deadline", "latest_start", "earliest_end")]
    # the rows name jobs when the instance has jobs, else activities: "unlisted jobs" would be false of surgeries
    of_jobs = any(a.job is not None for a in ctx.instance.activities)
    return [Item("releases", {"rows": listed, "of_jobs": of_jobs}, ctx.claim(ids), _verbatim(listed))]


def due_dates(ctx: BuildContext) -> list[Item]:
    """Due dates and lateness weights of jobs, hard or soft (the costing rule itself is stated by its rule
    sentence)."""
    rows = [d for c in ctx.instance.constraints if isinstance(c, Tardiness) and c.active for d in c.due_dates]
    if not rows:
        return []
    listed = [{**_target(ctx, d.target), "due": d.due, "weight": d.weight}
              for d in sorted(rows, key=lambda d: _order(ctx, d.target))]
    return [Item("due_dates", {"rows": listed, "weighted": any(d.weight != 1 for d in rows)},
                 ctx.claim([("due", d.target) for d in rows]), _verbatim(listed))]


def downtime(ctx: BuildContext) -> list[Item]:
    """Downtime windows per machine, in time order (of the hard rules; a soft rule lists its own)."""
    ids: list[FactId] = []
    listed = []
    for c in ctx.instance.constraints:
        if isinstance(c, ResourceDowntime) and c.active and c.hard:
            count: dict[str, int] = {}
            for w in c.windows:
                count[w.resource] = count.get(w.resource, 0) + 1
                ids.append(("downtime", w.resource, count[w.resource]))
                listed.append({"machine": ctx.show(w.resource), "start": w.start, "end": w.end, "label": w.label})
    if not listed:
        return []
    listed.sort(key=lambda x: (x["start"], x["machine"]))
    return [Item("downtime", {"rows": listed}, ctx.claim(ids), tuple(dict.fromkeys(x["machine"] for x in listed)))]


def events(ctx: BuildContext) -> list[Item]:
    """The event log, one statement per event in time order: when what became known."""
    rows = sorted((e for e in ctx.instance.entities if e.cls == "event"), key=lambda e: (e.attrs.get("time", 0),
                                                                                          e.name))
    items = []
    for e in rows:
        subject = str(e.attrs.get("subject", ""))
        detail = [ctx.show(str(x)) for x in e.attrs.get("detail", ())]  # type: ignore[union-attr]
        context = {"event": ctx.show(e.name), "time": e.attrs.get("time"), "kind": e.attrs.get("kind"),
                   "who": ctx.show(subject), "detail": detail}
        ids = [*ctx.about("event", e.name), *([("size", "event")] if not items else [])]
        verbatim = (context["event"], context["who"], *detail)
        items.append(Item(f"events:{e.name}", {**context, "first": not items, "size": len(rows)}, ctx.claim(ids),
                          verbatim))
    return items


def _target(ctx: BuildContext, target: str) -> dict[str, Any]:
    """How a job-or-operation target is shown: ``job`` always, ``step`` for an operation."""
    activity = ctx.instance.activities
    found = next((a for a in activity if a.name == target), None)
    if found is not None and found.job is not None:
        return {"job": ctx.show(found.job), "step": found.step}
    return {"job": ctx.show(target), "step": None}


def _order(ctx: BuildContext, target: str) -> int:
    """Declaration position of a target's first activity (jobs in file order)."""
    for index, a in enumerate(ctx.instance.activities):
        if target in (a.name, a.job):
            return index
    return len(ctx.instance.activities)


def _verbatim(rows: list[dict[str, Any]]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(r["job"] for r in rows))


BUILDERS: dict[str, Builder] = {
    "framing": framing,
    "machines": machines,
    "roles": roles,
    "releases": releases,
    "due_dates": due_dates,
    "downtime": downtime,
    "events": events,
    "jobs": jobs,
    "resources": resources,
    "activities": activities,
    "precedences": precedences,
    "rules": rules.rules,
    "closing": rules.closing,
}
"""Plan category → builder, for the interval families."""


def builder(step: PlanStep, family: Family) -> Builder | None:
    """The builder of a plan step: a fixed category, or an entity class the family declares (the workers of
    ``skill_requirements``), stated one entity each when the step may be shuffled."""
    from schedc.render.slot import class_builder  # the entity statements are shared with the slot families

    return BUILDERS.get(step.category) or class_builder(step, family)
