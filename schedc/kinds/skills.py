"""Skill kinds of slot families: ``skill_eligibility`` and ``skill_demand``.

A skill is a name an entity lists in a ``names`` attribute: an agent (nurse, call-centre agent)
lists the skills it *has* (its ``skills`` attribute, by default), a value (shift, post) the skills
it *requires* (its ``requires`` attribute; INRC-2010 calls it ``skills`` too). Skills mean nothing
by themselves: only these kinds read them.

Notation: ``S(e)`` is the set of skills agent e lists, ``R(v)`` the set value v requires, and
``x[e,s,v] ∈ {0,1}`` says whether agent e holds value v in slot s. An assignment that an answer
writes twice is one assignment (x is 0 or 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import msgspec

from schedc.kinds.base import Constraint, NonNegative, Row, Selector, TableContext, fmt_opt
from schedc.kinds.counting import bounds_text

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation


def skill_set(ctx: EvalContext, cls: str, name: str, attr: str) -> frozenset[str]:
    """The skills entity ``name`` of class ``cls`` lists in its attribute ``attr`` (none when absent)."""
    value = ctx.attrs(cls, name).get(attr, ())
    return frozenset(value) if isinstance(value, tuple) else frozenset()


class SkillEligibility(Constraint, frozen=True, kw_only=True, tag="skill_eligibility"):
    """An agent may hold a value only if it has every skill the value requires.

    Formal meaning: for every agent e selected by ``agents`` and every value v with
    ``R(v) ⊄ S(e)`` (``S`` read from the agent's attribute ``skills``, ``R`` from the value's
    attribute ``requires``), ``Σ_s x[e,s,v] = 0``. Penalty of the soft form:
    ``Σ_{e selected} Σ_s Σ_{v : R(v) ⊄ S(e)} x[e,s,v]`` — one unit per assignment lacking at least
    one required skill, however many it lacks (INRC-2010 NR-S14, AlternativeSkillCategory, with
    the contract's weight; ``reference/inrc2010.md``). A value that requires nothing is open to
    every agent; an agent that lists no skills may hold only such values.

    Counting rule (hard): one violation per such assignment (agent, slot, value); amount 1.
    """

    COUNTS = "assignments to a value requiring a skill the agent lacks"
    UNIT = "assignment without a required skill"

    agents: Selector
    skills: str = "skills"
    requires: str = "skills"

    def ineligible(self, ctx: EvalContext) -> list[tuple[str, str]]:
        """The (agent, value) pairs this rule forbids (or prices): selected agents lacking a required skill,
        in declaration order."""
        needs = {v: skill_set(ctx, ctx.value_cls, v, self.requires) for v in ctx.values}
        out = []
        for agent in ctx.select(self.agents):
            has = skill_set(ctx, ctx.agent_cls, agent, self.skills)
            out += [(agent, v) for v in ctx.values if not needs[v] <= has]
        return out

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        banned = set(self.ineligible(ctx))
        out = []
        seen: set[tuple[str, int, int, str]] = set()
        for a in view.assignments:
            key = (a.agent, a.day, a.period, a.value)
            if (a.agent, a.value) not in banned or key in seen:
                continue
            seen.add(key)
            need = skill_set(ctx, ctx.value_cls, a.value, self.requires)
            lacking = sorted(need - skill_set(ctx, ctx.agent_cls, a.agent, self.skills))
            shown = ", ".join(ctx.show(s) for s in lacking)
            out.append(self.violation(
                f"{ctx.show(a.agent)} has {ctx.show(a.value)} on {ctx.day_label(a.day, a.period)} without the "
                f"required skill{'s' if len(lacking) > 1 else ''} {shown}",
                entities=(ctx.show(a.agent), ctx.show(a.value)), day=a.day))
        return out


class SkillNeed(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """Between ``min`` and ``max`` agents with skill ``skill`` on (slot, value); None = unbounded.

    ``day`` is 0-based; ``period`` is None for a whole day (every period of it counts)."""

    day: int
    period: int | None
    value: str
    skill: str
    min: NonNegative | None
    max: NonNegative | None

    KEY: ClassVar[tuple[str, ...]] = ("day", "period", "value", "skill")


class SkillDemand(Constraint, frozen=True, kw_only=True, tag="skill_demand"):
    """Staffing by skill: how many of the agents holding a value in a slot have a given skill.

    Formal meaning: for every row (d, p, v, σ, lo, hi),
    ``lo ≤ Σ_{e : σ ∈ S(e)} Σ_{q ∈ P} x[e,(d,q),v] ≤ hi`` with ``P = {p}``, or every period of
    day d when the row gives no period, and ``S(e)`` the agent's attribute ``skills`` (exact when
    lo = hi). Agents without σ do not count, neither towards the minimum nor the maximum; a
    (slot, value, skill) without a row has no requirement. "At least one senior on every night
    shift" is one row per night with ``min = 1``.

    Counting rule: each missing or surplus skilled agent is one violation unit; one violation
    record per row with amount = deficit + excess.

    Table rows: ``day value skill min max`` (the whole day) or ``day period value skill min max``;
    ``-`` for an absent bound.
    """

    COUNTS = "agents with the skill per slot and value"
    UNIT = "skilled agent missing or in excess"

    needs: tuple[SkillNeed, ...] = ()
    skills: str = "skills"

    TABLE_FIELD = "needs"

    def holders(self, ctx: EvalContext, skill: str) -> list[str]:
        """The agents that have ``skill``, in declaration order."""
        return [e for e in ctx.agents if skill in skill_set(ctx, ctx.agent_cls, e, self.skills)]

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        held = {(a.agent, a.day, a.period, a.value) for a in view.assignments}
        out = []
        for r in self.needs:
            periods = range(ctx.periods) if r.period is None else (r.period,)
            n = sum((e, r.day, q, r.value) in held for e in self.holders(ctx, r.skill) for q in periods)
            gap = (r.min - n if r.min is not None and n < r.min else 0) + (n - r.max if r.max is not None
                                                                              and n > r.max else 0)
            if gap:
                out.append(self.violation(
                    f"{ctx.show(r.value)} on {ctx.day_label(r.day, r.period)} has {n} assigned with the skill "
                    f"{ctx.show(r.skill)}, needs {bounds_text(r.min, r.max)}",
                    amount=gap, entities=(ctx.show(r.value),), day=r.day))
        return out

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[SkillNeed, ...]:
        return tuple(_parse_need(row) for row in rows)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [_format_need(r) for r in self.needs]


def _parse_need(row: Row) -> SkillNeed:
    if len(row) == 5:
        return SkillNeed(day=row.int(0, "a day"), period=None, value=row.cells[1], skill=row.cells[2],
                         min=row.opt_int(3, "a minimum"), max=row.opt_int(4, "a maximum"))
    if len(row) == 6:
        return SkillNeed(day=row.int(0, "a day"), period=row.int(1, "a period"), value=row.cells[2],
                         skill=row.cells[3], min=row.opt_int(4, "a minimum"), max=row.opt_int(5, "a maximum"))
    raise row.error(f"expected 'day value skill min max' or 'day period value skill min max', found {len(row)} "
                    "cells", min(len(row) - 1, 6) if len(row) else 0)


def _format_need(r: SkillNeed) -> str:
    slot = str(r.day) if r.period is None else f"{r.day} {r.period}"
    return f"{slot} {r.value} {r.skill} {fmt_opt(r.min)} {fmt_opt(r.max)}"
