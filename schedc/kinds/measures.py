"""The objective measures of interval families and their weighted sums (``minimize 1*makespan + 10*tardiness``).

Notation: the *objective targets* are the jobs of the instance, or its activities when it has no
jobs; ``C_j = max E_a`` over the performed activities of target j; ``w_j`` and ``d_j`` are the
``weight=`` (1 when absent) and ``due=`` (none when absent) of its ``time_window`` rows, ``r_j``
its release date (the largest ``RELEASE`` of its rows, 0 when none).

* ``makespan``: ``max_a E_a``; ``penalty``: ``Σ weight · penalty`` of the active soft rules;
* ``completion``: ``Σ_j w_j C_j``; ``flow_time``: ``Σ_j w_j (C_j − r_j)``;
* ``tardy_jobs``: ``Σ_j w_j [C_j > d_j]``; ``tardiness``: ``Σ_j w_j max(0, C_j − d_j)``;
  ``earliness``: ``Σ_j w_j max(0, d_j − C_j)`` (over the targets with a due date);
* ``max_tardiness``: ``max_j max(0, C_j − d_j)``; ``max_lateness``: ``max_j (C_j − d_j)``
  (unweighted, over the targets with a due date; 0 when there is none);
* ``setup_time``: the setup times of every pair of consecutive activities on every resource
  (:mod:`schedc.kinds.setup_times`).

A sum is ``Σ W_k · measure_k``; its value is None when a term needs every activity scheduled and
some is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View
    from schedc.kinds.shapes import InstanceShape

Measure = Literal["makespan", "penalty", "completion", "flow_time", "tardy_jobs", "tardiness", "earliness",
                  "max_tardiness", "max_lateness", "setup_time", "sum"]
MEASURES: tuple[str, ...] = ("makespan", "penalty", "completion", "flow_time", "tardy_jobs", "tardiness",
                             "earliness", "max_tardiness", "max_lateness", "setup_time")
#: measures that read due dates
DUE_MEASURES = frozenset({"tardy_jobs", "tardiness", "earliness", "max_tardiness", "max_lateness"})


class Term(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """``weight × measure`` in a weighted-sum objective."""

    weight: int
    measure: str


class TargetData(msgspec.Struct, frozen=True, kw_only=True):
    """What the objective knows of one target: its activities, weight, due date and release date."""

    name: str
    activities: tuple[str, ...]
    weight: int = 1
    due: int | None = None
    release: int = 0


def targets(instance: InstanceShape) -> list[TargetData]:
    """The objective targets with their weights, due dates and release dates (from hard, active
    ``time_window`` rows), in declaration order."""
    from schedc.kinds.timing import TimeWindow

    groups: dict[str, list[str]] = {}
    for a in instance.activities:
        groups.setdefault(a.job if a.job is not None else a.name, []).append(a.name)
    data: dict[str, dict[str, int]] = {name: {} for name in groups}
    for c in instance.constraints:
        if isinstance(c, TimeWindow) and c.active:
            for w in c.windows:
                row = data.get(w.target)
                if row is None:
                    continue
                if c.hard:
                    row["release"] = max(row.get("release", 0), w.release)
                if w.due is not None:
                    row["due"] = w.due
                if w.weight is not None:
                    row["weight"] = w.weight
    return [TargetData(name=name, activities=tuple(acts), weight=data[name].get("weight", 1),
                       due=data[name].get("due"), release=data[name].get("release", 0))
            for name, acts in groups.items()]


def terms_of(measure: str, terms: tuple[Term, ...]) -> tuple[Term, ...]:
    """The weighted terms an objective minimises (a single measure is one term of weight 1)."""
    return terms if measure == "sum" else (Term(weight=1, measure=measure),)


def measure_value(ctx: EvalContext, view: View, measure: str, components: dict[str, int]) -> int | None:
    """The value of one measure on a schedule (None: makespan of an incomplete schedule)."""
    if measure == "penalty":
        return sum(components.values())
    if measure == "makespan":
        if any(a not in view.end and a not in ctx.optional for a in ctx.activities):
            return None
        return max(view.end.values(), default=0)
    if measure == "setup_time":
        from schedc.kinds.setup_times import total_setup_time

        return total_setup_time(ctx, view)
    return _target_measure(ctx, view, measure)


def _target_measure(ctx: EvalContext, view: View, measure: str) -> int:
    values: list[int] = []
    for t in ctx.targets:
        ends = [view.end[a] for a in t.activities if a in view.end]
        if not ends:
            continue
        completion = max(ends)
        if measure == "completion":
            values.append(t.weight * completion)
        elif measure == "flow_time":
            values.append(t.weight * (completion - t.release))
        elif t.due is None:
            continue
        elif measure == "tardy_jobs":
            values.append(t.weight * int(completion > t.due))
        elif measure == "tardiness":
            values.append(t.weight * max(0, completion - t.due))
        elif measure == "earliness":
            values.append(t.weight * max(0, t.due - completion))
        elif measure == "max_tardiness":
            values.append(max(0, completion - t.due))
        elif measure == "max_lateness":
            values.append(completion - t.due)
    if measure in ("max_tardiness", "max_lateness"):
        return max(values, default=0)
    return sum(values)


def objective_value(ctx: EvalContext, view: View, components: dict[str, int]) -> tuple[int | None, dict[str, int]]:
    """The objective of a schedule and, for anything but a lone makespan or penalty, each term's
    value keyed ``objective:<measure>`` (the components the verifier reports)."""
    objective = ctx.instance.objective
    terms = terms_of(objective.measure, objective.terms)
    total: int | None = 0
    parts: dict[str, int] = {}
    for term in terms:
        value = measure_value(ctx, view, term.measure, components)
        if value is None:
            total = None
            continue
        if objective.measure not in ("makespan", "penalty"):
            parts[f"objective:{term.measure}"] = value
        if total is not None:
            total += term.weight * value
    return total, parts


#: each measure in words, for the objective sentence of renderings ("job": the objective target's word)
MEASURE_WORDS = {
    "makespan": "the makespan (the time the last {task} ends)",
    "penalty": "the total penalty of the soft rules",
    "completion": "the total weighted completion time (each {job}'s weight × the time its last {task} ends)",
    "flow_time": "the total weighted flow time (each {job}'s weight × the time from its release date to the end "
                 "of its last {task}, where only a required release date counts: 0 without one)",
    "tardy_jobs": "the weighted number of late {jobs} (a {job} is late when its last {task} ends after its due date)",
    "tardiness": "the total weighted tardiness (each {job}'s weight × the time its last {task} ends after its due "
                 "date, nothing when on time)",
    "earliness": "the total weighted earliness (each {job}'s weight × the time its last {task} ends before its due "
                 "date, nothing when not early)",
    "max_tardiness": "the largest tardiness of any {job} (the time its last {task} ends after its due date)",
    "max_lateness": "the largest lateness of any {job} (the end of its last {task} minus its due date, negative "
                    "when early)",
    "setup_time": "the total setup time between consecutive {tasks} on the machines",
}


def describe_objective(measure: str, terms: tuple[Term, ...], words: dict[str, str]) -> str:
    """The objective in words: one measure, or "2 × … plus 1 × …" for a weighted sum."""
    parts = [(t.weight, MEASURE_WORDS[t.measure].format(**words)) for t in terms_of(measure, terms)]
    if len(parts) == 1 and parts[0][0] == 1:
        return parts[0][1]
    return " plus ".join(f"{w} × {text}" for w, text in parts)


def format_objective(measure: str, terms: tuple[Term, ...]) -> str:
    """The canonical text after ``minimize``."""
    if measure != "sum":
        return measure
    return " + ".join(f"{t.weight}*{t.measure}" for t in terms)
