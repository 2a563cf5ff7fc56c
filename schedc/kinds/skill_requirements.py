"""Multi-skill requirements of activities (the MSPSP): ``skill_requirements``.

Workers are the entities of a class (``workers=worker``) whose ``names`` attribute (``skills=``,
``skills`` by default) lists the skills each has; every worker is unary. An activity needs, for the
whole of its run, a number of distinct workers with each of some skills, and every worker given to an
activity serves at most one of its skill units (Bellenguez-Morineau & Néron's multi-skill project
scheduling problem, MSPSP; the iMOPSE MS-RCPSP is the case of one unit per activity, its skill levels
written as skills of their own, :mod:`schedc.importers.mspsp`).

Notation: ``W`` the selected workers, ``S(w)`` the skills of worker w, ``R`` the rows
``(a, σ, k)`` ("activity a needs k workers with skill σ"), ``T_a = {w : a's answer line names w}`` the
team of a performed activity a, ``[S_a, E_a)`` its interval. An answer names each activity's team
(``workers=W1,W4``); which worker serves which skill is not written: it is any assignment that the
verifier can find, a maximum bipartite matching of the team onto the units.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

import msgspec

from schedc.kinds.base import Constraint, Positive, Row, Selector, TableContext

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation


class SkillNeedUnit(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """Activity ``activity`` needs ``count`` distinct workers having ``skill`` while it runs."""

    activity: str
    skill: str
    count: Positive

    KEY: ClassVar[tuple[str, ...]] = ("activity", "skill")


class SkillRequirements(Constraint, frozen=True, kw_only=True, tag="skill_requirements"):
    """Activities need k workers with skill σ; each worker works on one activity at a time.

    Formal meaning, with the decision ``y[a,w] ∈ {0,1}`` (w is in a's team) and an assignment
    ``z[a,w,σ] ∈ {0,1}`` of team members to skills that the answer does not write:

    1. cover: for every performed activity a there is z with ``z[a,w,σ] ≤ y[a,w]``,
       ``z[a,w,σ] = 0`` when ``σ ∉ S(w)``, ``Σ_σ z[a,w,σ] ≤ 1`` for every w (a worker serves one skill
       unit of an activity), and ``Σ_w z[a,w,σ] ≥ k`` for every row (a, σ, k);
    2. unary workers: for every worker w and performed activities a ≠ b with ``y[a,w] = y[b,w] = 1``,
       ``E_a ≤ S_b`` or ``E_b ≤ S_a`` (half-open intervals; zero-length ones never overlap).

    A team may hold more workers than its rows need (they are occupied all the same); an activity
    without rows needs nobody. An activity that is left out (``optional``) needs nobody.

    Counting rule: one violation per skill unit left uncovered by a maximum matching of the named team
    onto the units (amount 1), and one per pair of overlapping activities of a worker (amount: the
    length of the overlap). Unknown worker names are structural issues of the answer, not violations of
    this rule.
    """

    COUNTS = "workers with the skill on each activity, and activities of a worker at one time"
    UNIT = "skill unit without a worker, or pair of overlapping activities of one worker"

    workers: Selector
    skills: str = "skills"
    needs: tuple[SkillNeedUnit, ...] = ()

    TABLE_FIELD = "needs"

    # ---------------------------------------------------------------- data

    def staff(self, ctx: EvalContext) -> list[str]:
        """The selected workers, in declaration order."""
        return ctx.select(self.workers)

    def skill_set(self, ctx: EvalContext, worker: str) -> frozenset[str]:
        """``S(w)``: the skills worker ``worker`` lists."""
        value = ctx.attrs(self.workers.cls, worker).get(self.skills, ())
        return frozenset(value) if isinstance(value, tuple) else frozenset()

    def by_activity(self) -> dict[str, list[SkillNeedUnit]]:
        """The rows of each activity, in table order."""
        out: dict[str, list[SkillNeedUnit]] = {}
        for r in self.needs:
            out.setdefault(r.activity, []).append(r)
        return out

    def eligible(self, ctx: EvalContext) -> dict[tuple[str, str], list[str]]:
        """(activity, worker) → the skills of the activity's rows the worker has (pairs with none left out)."""
        out: dict[tuple[str, str], list[str]] = {}
        for worker in self.staff(ctx):
            has = self.skill_set(ctx, worker)
            for r in self.needs:
                if r.skill in has:
                    out.setdefault((r.activity, worker), []).append(r.skill)
        return out

    def candidate_pairs(self, ctx: EvalContext, placed: Collection[str],
                        fixed: Mapping[str, Sequence[str]]) -> dict[tuple[str, str], list[str]]:
        """The (activity, worker) pairs a solver model decides on, with the skills the worker may fill there: the
        eligible pairs of the activities it places, and every selected member a fixed answer names for a placed
        activity (a member without a needed skill fills nothing but still occupies the worker)."""
        pairs = {k: v for k, v in self.eligible(ctx).items() if k[0] in placed}
        staff = set(self.staff(ctx))
        for activity, team in fixed.items():
            for w in team:
                if w in staff and activity in placed:
                    pairs.setdefault((activity, w), [])
        return pairs

    def makespan_bound(self, ctx: EvalContext) -> int:
        """A lower bound on the makespan of every schedule this rule accepts: at any time the running activities
        hold distinct workers, so ``Σ_a d_a · Σ_rows(a) k ≤ |W| · C_max`` over the activities that are always
        performed (shortest mode), and likewise per skill with the number of its holders."""
        staff = self.staff(ctx)
        holders: dict[str, int] = {}
        for w in staff:
            for s in self.skill_set(ctx, w):
                holders[s] = holders.get(s, 0) + 1
        load: dict[str | None, int] = {}
        for r in self.needs:
            activity = ctx.activities.get(r.activity)
            if activity is None or r.activity in ctx.optional:
                continue
            work = min(m.duration for m in activity.modes) * r.count
            for key in (None, r.skill):
                load[key] = load.get(key, 0) + work
        best = 0
        for key, total in load.items():
            capacity = len(staff) if key is None else holders.get(key, 0)
            if capacity:
                best = max(best, -(-total // capacity))
        return best

    # ---------------------------------------------------------------- meaning

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        teams = view.solution.workers
        staff = set(self.staff(ctx))
        out = []
        for activity, rows in self.by_activity().items():
            if activity not in view.start:
                continue
            team = [w for w in teams.get(activity, ()) if w in staff]
            for row, missing in uncovered(rows, team, lambda w: self.skill_set(ctx, w)):
                members = ", ".join(ctx.show(w) for w in team) or "none"
                for unit in range(row.count - missing + 1, row.count + 1):
                    out.append(self.violation(
                        f"{ctx.show(activity)} needs {row.count} worker{'s' if row.count > 1 else ''} with the "
                        f"skill {ctx.show(row.skill)}; its workers ({members}) cover {row.count - missing}, so "
                        f"unit {unit} of {row.count} has no worker",
                        entities=(ctx.show(activity), ctx.show(row.skill)), time=view.start[activity]))
        jobs: dict[str, list[str]] = {}
        for activity, team in teams.items():
            if activity in view.start and view.end[activity] > view.start[activity]:
                for w in dict.fromkeys(team):
                    if w in staff:
                        jobs.setdefault(w, []).append(activity)
        for w in self.staff(ctx):
            acts = sorted(jobs.get(w, ()), key=lambda a: (view.start[a], a))
            for i, a in enumerate(acts):
                for b in acts[i + 1:]:
                    if view.start[b] >= view.end[a]:
                        break
                    overlap = min(view.end[a], view.end[b]) - view.start[b]
                    out.append(self.violation(
                        f"{ctx.show(w)} works on {ctx.show(a)} [{view.start[a]}, {view.end[a]}) and on "
                        f"{ctx.show(b)} [{view.start[b]}, {view.end[b]}) at the same time ({overlap} time "
                        f"unit{'s' if overlap > 1 else ''})",
                        amount=overlap, entities=(ctx.show(w), ctx.show(a), ctx.show(b)), time=view.start[b]))
        return out

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext
                   ) -> tuple[SkillNeedUnit, ...]:
        out = []
        for row in rows:
            row.expect_len(3, "ACTIVITY SKILL COUNT")
            out.append(SkillNeedUnit(activity=row.cells[0], skill=row.cells[1],
                                     count=row.int(2, "a number of workers", minimum=1)))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{r.activity} {r.skill} {r.count}" for r in self.needs]


def uncovered(rows: Sequence[SkillNeedUnit], team: Sequence[str],
              skills: Callable[[str], frozenset[str]]) -> list[tuple[SkillNeedUnit, int]]:
    """(row, units of it no team member serves) for the rows a maximum matching leaves short.

    The units of the rows (``count`` copies of each) are matched to the distinct team members that have
    the unit's skill, one unit per member (Kuhn's augmenting paths, rows in table order, members in answer
    order), so the number of uncovered units is the least any assignment of the team leaves.
    ``skills`` maps a worker to its skill set.
    """
    units, serves = _matching(rows, team, skills)
    covered = [False] * len(units)
    for u in serves.values():
        covered[u] = True
    out = []
    for i, r in enumerate(rows):
        missing = sum(1 for u, (j, _s) in enumerate(units) if j == i and not covered[u])
        if missing:
            out.append((r, missing))
    return out


def team_for(rows: Sequence[SkillNeedUnit], candidates: Sequence[str],
             skills: Callable[[str], frozenset[str]]) -> tuple[str, ...] | None:
    """A team of ``candidates`` filling every unit of ``rows`` (one unit per member), or None if there is none."""
    units, serves = _matching(rows, candidates, skills)
    if len(serves) < len(units):
        return None
    return tuple(w for w in dict.fromkeys(candidates) if w in serves)


def _matching(rows: Sequence[SkillNeedUnit], team: Sequence[str], skills: Callable[[str], frozenset[str]]
              ) -> tuple[list[tuple[int, str]], dict[str, int]]:
    """(the units ``(row index, skill)``, a maximum matching worker → unit index)."""
    members = list(dict.fromkeys(team))
    has = {w: skills(w) for w in members}
    units = [(i, r.skill) for i, r in enumerate(rows) for _ in range(r.count)]
    serves: dict[str, int] = {}

    def augment(u: int, seen: set[str]) -> bool:
        for w in members:
            if units[u][1] in has[w] and w not in seen:
                seen.add(w)
                if w not in serves or augment(serves[w], seen):
                    serves[w] = u
                    return True
        return False

    for u in range(len(units)):
        augment(u, set())
    return units, serves
