"""CP-SAT variables of an activity whose work pauses over breaks (``resource_downtime pausable=true``;
formal meaning in :class:`schedc.kinds.timing.ResourceDowntime`).

Per mode k whose resources have breaks, the stretched end is a function of the start alone,
``E_k = stretched_k(S)``, tabulated over the start's domain: an ``AddElement`` row
``E_k = ends_k[S − est]`` (one entry per possible start). A mode without breaks has ``E_k = S + d_k``.
The activity's end ``E_a`` equals ``E_k`` when mode k is chosen (``only_enforce_if`` its literal) and
``S_a`` when an optional activity is left out, as for every other optional activity. Each mode gets an
optional interval ``[S_a, E_a)`` of variable size present with its literal: the breaks it spans stay
occupied, so ``no_overlap`` and ``cumulative`` rows see the whole stretch. The rule itself only keeps
starts out of the breaks (:func:`schedc.backends.cpsat.interval._no_start_in_breaks`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ortools.sat.python import cp_model

if TYPE_CHECKING:
    from schedc.backends.cpsat.model import CpsatModel


def pausable_variables(m: CpsatModel, a: Any, earliest: int, latest: int) -> None:
    """Mode literals, the stretched end and one variable-size interval per mode of ``a``."""
    optional = a.name in m.ctx.optional
    start = m.start[a.name]
    offset = m.model.new_int_var(0, latest - earliest, f"dS_{a.name}")
    m.model.add(offset == start - earliest)
    ends = {k: _mode_ends(m, mode, earliest, latest) for k, mode in enumerate(a.modes, start=1)}
    low = earliest if optional else min(min(e) for e in ends.values())
    end = m.end[a.name] = m.model.new_int_var(low, max(max(e) for e in ends.values()), f"E_{a.name}")
    literals = _mode_literals(m, a, optional)
    sizes: dict[tuple[str, int], cp_model.IntVar] = m.__dict__.setdefault("sizes", {})
    for k, mode in enumerate(a.modes, start=1):
        literal = literals[k - 1]
        if m.ctx.mode_breaks(mode):
            mode_end = m.model.new_int_var(min(ends[k]), max(ends[k]), f"E_{a.name}_{k}")
            m.model.add_element(offset, ends[k], mode_end)
        else:
            mode_end = start + mode.duration
        size = sizes[(a.name, k)] = m.model.new_int_var(mode.duration, max(ends[k]) - earliest, f"D_{a.name}_{k}")
        if isinstance(literal, int):
            m.model.add(end == mode_end)
            m.intervals[(a.name, k)] = m.model.new_interval_var(start, size, end, f"I_{a.name}")
        else:
            m.model.add(end == mode_end).only_enforce_if(literal)
            m.intervals[(a.name, k)] = m.model.new_optional_interval_var(start, size, end, literal,
                                                                         f"I_{a.name}_{k}")
        m.present[(a.name, k)] = literal
    if optional:
        m.model.add(end == start).only_enforce_if(m.performed[a.name].Not())


def _mode_ends(m: CpsatModel, mode: Any, earliest: int, latest: int) -> list[int]:
    """The end of ``mode`` for every start from ``earliest`` to ``latest``."""
    return [m.ctx.stretched(mode, t) for t in range(earliest, latest + 1)]


def _mode_literals(m: CpsatModel, a: Any, optional: bool) -> list[Any]:
    """One literal per mode: the constant 1 for a required single-mode activity; otherwise Booleans
    summing to 1 (required) or to the presence literal ``p_a`` (optional)."""
    if len(a.modes) == 1 and not optional:
        return [1]
    literals = [m.model.new_bool_var(f"mode_{a.name}_{k}") for k in range(1, len(a.modes) + 1)]
    if optional:
        performed = m.performed[a.name] = m.model.new_bool_var(f"performed_{a.name}")
        m.model.add(sum(literals) == performed)
    else:
        m.model.add_exactly_one(literals)
    return literals
