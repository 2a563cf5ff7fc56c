"""Levers that give CP-SAT a better start on interval families: a local-search incumbent
inside the time budget, and the makespan bound it proves.

Both are kept apart from the model builder (:mod:`schedc.backends.cpsat.model`) so that they can
be measured one at a time (``benchmarks/vs_pyjobshop.py``) and switched off through
:class:`~schedc.backends.cpsat.solve.SolveOptions`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from schedc.backends.cpsat.roster_lns import improve_roster
from schedc.backends.cpsat.roster_start import (
    ROSTER_LNS_SHARE,
    hint_slots,
    is_roster,
    roster_parameters,
    roster_start,
)
from schedc.backends.search.heuristics import tails
from schedc.backends.search.tabu import improve_jobshop, jobshop_of
from schedc.core.solution import Solution
from schedc.verify.evaluate import evaluate

if TYPE_CHECKING:
    from schedc.backends.cpsat.model import CpsatModel


def local_search_start(m: CpsatModel, start: Solution | None, seconds: float, seed: int,
                       stop: Callable[[], bool] | None = None, left: float | None = None) -> Solution | None:
    """``start`` improved by N5 tabu search (:mod:`schedc.backends.search.tabu`) for at most ``seconds`` when the
    instance is a pure job shop; ``start`` itself otherwise, or when the search finds nothing better.

    The search stops early at the model's makespan lower bound (the schedule is then optimal),
    or when ``stop()`` turns true (the portfolio's other solver has proven its answer).
    Slot instances: ``start``, or for an open roster the greedy one of
    :mod:`~schedc.backends.cpsat.roster_start` improved by the roster LNS (which ``stop()`` ends
    too) for :data:`ROSTER_LNS_SHARE` of ``left`` (the seconds left of the time limit; ``seconds``
    when not given), hints the assignment variables.
    """
    if not m.instance.activities:
        began = time.perf_counter()
        start = roster_start(m, start)
        if start is not None and seconds > 0 and is_roster(m.instance):
            budget = (seconds if left is None else left) - (time.perf_counter() - began)
            start = improve_roster(m, start, budget * ROSTER_LNS_SHARE, seed, stop)
        if start is not None:
            hint_slots(m, start)
        return start
    if start is None or seconds <= 0 or jobshop_of(m.instance) is None:
        return start
    improved = improve_jobshop(m.instance, start, seed=seed, time_limit=seconds,
                               lower_bound=m.makespan_lower_bound(), stop=stop)
    if improved is None:
        return start
    before, after = evaluate(m.ctx, start), evaluate(m.ctx, improved)
    if after.feasible and after.objective is not None and (before.objective is None
                                                           or after.objective < before.objective):
        return improved
    return start


def bound_makespan(m: CpsatModel, upper: int) -> None:
    """``makespan ≤ upper`` and ``S_a ≤ upper − tail_a`` for every activity, where a schedule of
    makespan ``upper`` is known and the objective is the makespan alone: every optimum satisfies
    both (tail_a is the longest route from a's start to the end of the project), so no optimal
    schedule is cut off. The start bounds are
    what presolve would derive from the first, given here directly so the domains are small from
    the first propagation on.
    """
    if getattr(m, "makespan", None) is None or m.instance.objective.measure != "makespan":
        return  # a sum with other terms (tardiness, say) may be best at a longer makespan than the start's
    m.model.add(m.makespan <= upper)
    for name, tail in (getattr(m, "tail", None) or tails(m.instance)).items():
        m.model.add(m.start[name] <= upper - tail)


def structure_parameters(m: CpsatModel, workers: int = 1) -> dict[str, object]:
    """CP-SAT parameters chosen by the instance's structure: rosters solved with ``workers``
    search workers (:func:`~schedc.backends.cpsat.roster_start.roster_parameters`); see
    docs/solving.md for what was measured."""
    return roster_parameters(m, workers)
