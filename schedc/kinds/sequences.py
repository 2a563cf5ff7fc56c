"""Sequence kinds of rostering families: ``consecutive_run_bounds``,
``pattern_prohibition``, ``window_pattern_cost``.

They look at each agent's day-by-day sequence (or its sequence of weekends, see
:class:`~schedc.kinds.base.Windows`). A day *matches* a value filter as defined in
:class:`~schedc.kinds.base.ValueFilter`; a weekend matches when any of its days does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Literal

import msgspec

from schedc.kinds.base import (
    WORK,
    Boundary,
    Constraint,
    NonNegative,
    Positive,
    Row,
    Selector,
    TableContext,
    ValueFilter,
    Windows,
)

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation

FREE = ValueFilter(mode="free")


class ConsecutiveRunBounds(Constraint, frozen=True, kw_only=True, tag="consecutive_run_bounds"):
    """Every maximal run of matching elements has a length within [min, max].

    Formal meaning: for every agent e and every maximal run R of consecutive elements of
    ``over`` (days or weekends) that match ``values``: ``min ≤ |R| ≤ max``. With
    ``boundary=observed`` a run touching the first or last element is judged by its
    observed length (no history, no exemption at the horizon ends).

    Penalty (soft): ``Σ_R max(0, |R| − max) + Σ_R max(0, min − |R|)`` (every element
    beyond the maximum, every element missing from a short run), times ``weight``.

    Counting rule (hard): one violation per run out of bounds; amount as the penalty.
    """

    COUNTS = "lengths of runs of matching days"
    UNIT = "element outside the bounds"

    agents: Selector
    values: ValueFilter = WORK
    over: Windows = Windows()
    min: NonNegative | None = None
    max: NonNegative | None = None
    boundary: Boundary = "observed"

    def claim_counts(self) -> tuple[str, str]:
        """Run lengths in days or weekends of working, free or listed-value elements."""
        element = "days" if self.over.over == "days" else "weekends"
        what = {"work": "working", "free": "free", "values": "listed-value"}[self.values.mode]
        return f"lengths of runs of {what} {element}", self.UNIT

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        from schedc.kinds.context import runs

        windows = ctx.windows(self.over)
        unit = "days" if self.over.over == "days" else "weekends"
        what = {"work": "working", "free": "free"}.get(self.values.mode,
                                                       "/".join(ctx.show(v) for v in self.values.values))
        out = []
        for agent in ctx.select(self.agents):
            for first, length in runs(view.sequence(agent, self.values, windows)):
                day = windows[first][0]
                start = ctx.day_label(day)
                if self.max is not None and length > self.max:
                    out.append(self.violation(
                        f"{ctx.show(agent)} has {length} consecutive {what} {unit} from {start} (at most {self.max})",
                        amount=length - self.max, entities=(ctx.show(agent),), day=day))
                if self.min is not None and length < self.min:
                    out.append(self.violation(
                        f"{ctx.show(agent)} has only {length} consecutive {what} {unit} from {start} "
                        f"(at least {self.min})", amount=self.min - length, entities=(ctx.show(agent),), day=day))
        return out


PatternEntry = str
"""``work`` (any working value), ``free`` (no working value) or a value name."""


class PatternProhibition(Constraint, frozen=True, kw_only=True, tag="pattern_prohibition"):
    """An unwanted sequence of days.

    Formal meaning: the pattern ``p_0 … p_{L−1}`` occurs at start day t when
    ``t + L − 1`` lies in the horizon, ``weekday(t) = anchor`` if an anchor is given, and
    day t+i matches p_i for every i (``free``: no working value; ``work``: any working
    value; a value name: exactly that value).

    Penalty (soft) and counting rule (hard): one unit per occurrence.
    """

    COUNTS = "occurrences of the pattern"
    UNIT = "occurrence"

    agents: Selector
    pattern: tuple[PatternEntry, ...]
    anchor: str | None = None

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        size = len(self.pattern)
        starts = [t for t in range(ctx.days - size + 1) if self.anchor is None or ctx.weekday(t) == self.anchor]
        shown = " ".join(ctx.show(e) if e not in ("work", "free") else e for e in self.pattern)
        out = []
        for agent in ctx.select(self.agents):
            days = view.day_values(agent)
            for t in starts:
                if all(_entry_matches(ctx, entry, days[t + i]) for i, entry in enumerate(self.pattern)):
                    where = ctx.day_label(t)
                    out.append(self.violation(f"{ctx.show(agent)} has the unwanted pattern [{shown}] from {where}",
                                              entities=(ctx.show(agent),), day=t))
        return out


def _entry_matches(ctx: EvalContext, entry: str, values: Sequence[str]) -> bool:
    if entry == "work":
        return ctx.matches(WORK, values)
    if entry == "free":
        return ctx.matches(FREE, values)
    return entry in values


class PatternCost(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """Cost of one work/free pattern of a window, written with ``W`` (worked) and ``F`` (free)."""

    pattern: str
    cost: int

    KEY: ClassVar[tuple[str, ...]] = ("pattern",)


class WindowPatternCost(Constraint, frozen=True, kw_only=True, tag="window_pattern_cost"):
    """A cost for what an agent does inside each window (e.g. each weekend).

    ``cost=table``: the window's worked/free pattern (``W``/``F`` per day, in day order) is
    looked up in ``table``; patterns not listed cost 0. Windows shorter than
    ``min_length`` are ignored.
    ``cost=mixed_values``: for a window whose days are all worked, ``Σ_t (L − n_t)`` over
    the values t used, L the window length and n_t the number of its days holding value t
    (2-day weekend: 0 if both shifts are equal, 2 otherwise); windows not fully worked cost 0.

    Penalty (soft): the sum over windows, times ``weight``. Counting rule (hard): one
    violation per window with a non-zero cost; amount = that cost.

    Table rows: ``PATTERN cost``, e.g. ``WF 1``.
    """

    COUNTS = "cost of the pattern of each window"
    UNIT = "unit of window cost"

    agents: Selector
    windows: Windows
    cost: Literal["table", "mixed_values"] = "table"
    table: tuple[PatternCost, ...] = ()
    min_length: Positive = 2

    TABLE_FIELD = "table"

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        costs = {p.pattern: p.cost for p in self.table}
        windows = [w for w in ctx.windows(self.windows) if len(w) >= self.min_length]
        out = []
        for agent in ctx.select(self.agents):
            days = view.day_values(agent)
            for window in windows:
                cost, shown = self._window_cost(ctx, [days[d] for d in window], costs)
                if cost:
                    first, last = ctx.day_label(window[0]), ctx.day_label(window[-1])
                    out.append(self.violation(f"{ctx.show(agent)} works {shown} from {first} to {last}",
                                              amount=cost, entities=(ctx.show(agent),), day=window[0]))
        return out

    def _window_cost(self, ctx: EvalContext, days: list[list[str]], costs: dict[str, int]) -> tuple[int, str]:
        worked = ["W" if ctx.matches(WORK, d) else "F" for d in days]
        pattern = "".join(worked)
        if self.cost == "table":
            return costs.get(pattern, 0), pattern
        if "F" in worked:
            return 0, pattern
        held = [sorted({v for v in d if v != ctx.free}) for d in days]  # a day may hold several
        shown = "/".join("+".join(ctx.show(v) for v in values) for values in held)
        return sum(len(days) - n for n in Counter(v for values in held for v in values).values()), shown

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[PatternCost, ...]:
        out = []
        for row in rows:
            row.expect_len(2, "a W/F pattern and its cost")
            if not row.cells[0] or set(row.cells[0]) - {"W", "F"}:
                raise row.error(f"a window pattern is written with W and F only, found {row.cells[0]!r}")
            out.append(PatternCost(pattern=row.cells[0], cost=row.int(1, "a cost")))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{p.pattern} {p.cost}" for p in self.table]
