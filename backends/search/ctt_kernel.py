"""The compiled kernel of the timetable annealing: moves, their exact penalty changes, and a chunk
of annealing iterations, over numpy arrays (what :mod:`schedc.backends.search.ctt_search` drives).

**Compilation.** Every function is numba's ``@njit`` with ``nogil=True`` (machine code that
releases the interpreter lock, so the annealing runs beside a Pyomo model built in Python in
another thread under ``--backend auto``, and beside CP-SAT's threads), ``cache=True`` (compiled
once per installation, about 30 s on a loaded 2-core machine, then loaded from ``__pycache__``
in well under a second), ``_nrt=False`` (no reference counting: the kernel allocates nothing,
and counting every array of the Data and State tuples at each call made a move several times
slower), and the helpers ``inline='always'`` (a call that copies both tuples cost more than the
work of most helpers). When numba cannot be imported the decorators are the identity and the
same functions run as plain Python (about 100× slower, the same trajectories);
``NUMBA_DISABLE_JIT=1`` does the same with numba installed, which is how the tests compare the two.
A solve never compiles this module inside its budget: while numba's cache lacks it, the solve runs
a second, plain-Python copy of it (``PLAIN``) and a background process compiles it
(:mod:`schedc.backends.search.ctt_compile`).

**State.** Lecture ``k`` of the instance belongs to agent ``lecture_agent[k]``; the lectures of
agent ``i`` are ``lecture_start[i] … lecture_start[i + 1] − 1``. ``slot[k] = −1`` means not
placed (only while the greedy builds a timetable). The counts kept beside it — who is in which
(slot, room), which agent is in which slot, how many conflicting agents are in a slot, days and
rooms used per agent, group occupancy per slot — and ``cost[0]``, the penalty of the placed
lectures, are exact after every move (:func:`change`; meanings in :mod:`schedc.backends.search.ctt_search`).
Within :func:`anneal_chunk` a move first changes only the room table and the counts the penalty
reads (:func:`_recount`); the occupancy that only the hard rules read (``at``, ``clash``:
:func:`_occupy`, a loop over every conflicting agent) follows only when the move is kept, and a
rejected move is undone on the counts alone: most moves are rejected, so this cuts the time
per move by about 28 % on comp05 with the same walk (docs/solving.md, "A kernel twice as fast").

**Randomness**: xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
generators, scrambled", ACM TOMS 42(4), 2016) on a one-element ``uint64`` array seeded by the
caller; nothing else draws, so a chunk's trajectory depends only on its inputs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

import numpy as np

F = TypeVar("F", bound=Callable[..., Any])

#: True in the plain-Python copy of this module that
#: :func:`schedc.backends.search.ctt_compile.plain_kernel` loads (it sets the name before the copy's
#: code runs): there nothing is compiled, whether numba is installed or not
PLAIN: bool = bool(globals().get("PLAIN", False))


def _plain(*_args: object, **_kwargs: object) -> Callable[[F], F]:
    """The decorators where nothing is compiled: each function stays itself."""
    return lambda function: function


def _jit() -> tuple[Callable[..., Callable[[F], F]], bool]:
    """numba's ``njit`` and whether it compiles (not with ``NUMBA_DISABLE_JIT=1``), or :func:`_plain`."""
    if PLAIN:
        return _plain, False
    try:
        from numba import config, njit
    except ImportError:  # the same functions as plain Python: correct, only slower
        return _plain, False
    return njit, not config.DISABLE_JIT


_decorate, COMPILED = _jit()
_compiled: Callable[[F], F] = _decorate(nogil=True, cache=True, _nrt=False)
_inlined: Callable[[F], F] = _decorate(nogil=True, cache=True, _nrt=False, inline="always")

#: what :func:`try_move` returns for a move that would break a hard rule (no change was made)
REJECTED = -(2 ** 62)
_MULTIPLIER = np.uint64(0x2545F4914F6CDD1D)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2⁻⁵³: the top 53 bits of a draw as a float in [0, 1)


class Data(NamedTuple):
    """The instance as arrays (agents, rooms, slots and groups numbered from 0)."""

    periods: int  # slots per day: slot s is period s % periods of day s // periods
    spread_weight: int
    compact_weight: int
    stability_weight: int
    lecture_agent: np.ndarray  # int32[L]
    lecture_start: np.ndarray  # int32[n + 1]
    conflict_start: np.ndarray  # int32[n + 1]: CSR of each agent's conflicting agents
    conflict_list: np.ndarray  # int32
    conflict: np.ndarray  # uint8[n, n]: 1 when the two agents may not share a slot
    unavailable: np.ndarray  # uint8[n, S]
    overflow: np.ndarray  # int32[n, R]: weighted capacity penalty of one lecture
    min_days: np.ndarray  # int32[n]
    max_rooms: np.ndarray  # int32[n]
    member_start: np.ndarray  # int32[n + 1]: CSR of each agent's compactness groups
    member_list: np.ndarray  # int32


class State(NamedTuple):
    """A timetable and its counts (see the module docstring); every array is changed in place."""

    slot: np.ndarray  # int32[L]
    room: np.ndarray  # int32[L]
    room_at: np.ndarray  # int32[S, R]: the lecture there, −1 when free
    at: np.ndarray  # uint8[n, S]: the agent has a lecture in the slot
    clash: np.ndarray  # int32[n, S]: agents conflicting with it that have a lecture in the slot
    day_count: np.ndarray  # int32[n, D]
    days_used: np.ndarray  # int32[n]
    room_count: np.ndarray  # int32[n, R]
    distinct: np.ndarray  # int32[n]: rooms used
    occ: np.ndarray  # int32[G, S]: lectures of the group's members in the slot
    cost: np.ndarray  # int64[1]


def empty_state(data: Data, days: int, slots: int, rooms: int, groups: int) -> State:
    """The state with no lecture placed: its penalty is every agent's whole day shortfall."""
    n, lectures = len(data.min_days), len(data.lecture_agent)
    cost = np.array([data.spread_weight * int(data.min_days.sum())], dtype=np.int64)
    return State(slot=np.full(lectures, -1, np.int32), room=np.full(lectures, -1, np.int32),
                 room_at=np.full((slots, rooms), -1, np.int32), at=np.zeros((n, slots), np.uint8),
                 clash=np.zeros((n, slots), np.int32), day_count=np.zeros((n, days), np.int32),
                 days_used=np.zeros(n, np.int32), room_count=np.zeros((n, rooms), np.int32),
                 distinct=np.zeros(n, np.int32), occ=np.zeros((groups, slots), np.int32), cost=cost)


# ------------------------------------------------------------------ random draws


@_inlined
def next_u64(rng: np.ndarray) -> np.uint64:
    """The next 64-bit draw of xorshift64* (state ``rng[0]``, never 0)."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * _MULTIPLIER


@_inlined
def uniform(rng: np.ndarray) -> float:
    """A float in [0, 1) from the top 53 bits of a draw."""
    return float(next_u64(rng) >> np.uint64(11)) * _TO_UNIT


@_inlined
def below(rng: np.ndarray, n: int) -> int:
    """An integer in [0, n) for 0 < n < 2³² (the top 32 bits scaled by n: bias below n / 2³²)."""
    return np.int64(((next_u64(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


# ------------------------------------------------------------------ exact incremental updates


@_inlined
def isolated(occ: np.ndarray, periods: int, g: int, slot: int) -> int:
    """Compactness term of group g at slot: its occupancy if both same-day neighbours are empty."""
    count = occ[g, slot]
    if count == 0:
        return 0
    p = slot % periods
    if (p > 0 and occ[g, slot - 1] > 0) or (p < periods - 1 and occ[g, slot + 1] > 0):
        return 0
    return count


@_inlined
def around(occ: np.ndarray, periods: int, g: int, slot: int) -> int:
    """The compactness terms of group g at slot and its same-day neighbours: all that a change
    of the occupancy at slot can alter."""
    p = slot % periods
    first = slot - 1 if p > 0 else slot
    last = slot + 1 if p < periods - 1 else slot
    total = 0
    for q in range(first, last + 1):
        total += isolated(occ, periods, g, q)
    return total


# Each function reads a field of Data or State into a local once: numba re-reads a tuple's
# field at every access.


@_inlined
def _day_change(data: Data, st: State, i: int, day: int, sign: int) -> int:
    """Spread: the agent's day count changes; the penalty change of its shortfall of days."""
    day_count, days_used, min_days = st.day_count, st.days_used, data.min_days
    before = day_count[i, day] > 0
    day_count[i, day] += sign
    if before == (day_count[i, day] > 0):
        return 0
    days_used[i] += sign
    short = min_days[i] - days_used[i]
    return data.spread_weight * (max(0, short) - max(0, short + sign))


@_inlined
def _room_change(data: Data, st: State, i: int, room: int, sign: int) -> int:
    """Stability: the agent's room count changes; the penalty change of its rooms beyond the allowance."""
    room_count, distinct = st.room_count, st.distinct
    before = room_count[i, room] > 0
    room_count[i, room] += sign
    if before == (room_count[i, room] > 0):
        return 0
    distinct[i] += sign
    extra = distinct[i] - data.max_rooms[i]
    return data.stability_weight * (max(0, extra) - max(0, extra - sign))


@_inlined
def _group_change(data: Data, st: State, i: int, slot: int, sign: int) -> int:
    """Compactness: the occupancy of each group of the agent changes at slot; the penalty change."""
    occ, periods, members = st.occ, data.periods, data.member_list
    delta = 0
    for m in range(data.member_start[i], data.member_start[i + 1]):
        g = members[m]
        old = around(occ, periods, g, slot)
        occ[g, slot] += sign
        delta += around(occ, periods, g, slot) - old
    return data.compact_weight * delta


@_inlined
def _recount(data: Data, st: State, k: int, slot: int, room: int, sign: int) -> None:
    """Add (sign 1) or take away (sign −1) lecture k at (slot, room) in the room table and in
    every count the penalty reads, and change the penalty; not in the occupancy that only the
    hard rules read (:func:`_occupy`)."""
    i = data.lecture_agent[k]
    delta = sign * data.overflow[i, room] + _day_change(data, st, i, slot // data.periods, sign)
    delta += _room_change(data, st, i, room, sign) + _group_change(data, st, i, slot, sign)
    st.room_at[slot, room] = k if sign > 0 else -1
    st.cost[0] += delta


@_inlined
def _occupy(data: Data, st: State, i: int, slot: int, sign: int) -> None:
    """Agent i gets (sign 1) or loses (sign −1) its lecture in ``slot`` in the occupancy the hard
    rules read (:func:`allowed`): its own mark and the clash count of every agent conflicting
    with it — the longest loop of a move, so the annealing makes it only for moves it keeps."""
    st.at[i, slot] = 1 if sign > 0 else 0
    clash, conflicts = st.clash, data.conflict_list
    for c in range(data.conflict_start[i], data.conflict_start[i + 1]):
        clash[conflicts[c], slot] += sign


@_inlined
def change(data: Data, st: State, k: int, slot: int, room: int, sign: int) -> None:
    """Add (sign 1) or take away (sign −1) lecture k at (slot, room): counts and penalty."""
    _recount(data, st, k, slot, room, sign)
    _occupy(data, st, data.lecture_agent[k], slot, sign)


@_inlined
def place(data: Data, st: State, k: int, slot: int, room: int) -> None:
    """Put lecture k (not placed) at (slot, room); the caller keeps the hard rules."""
    st.slot[k] = slot
    st.room[k] = room
    change(data, st, k, slot, room, 1)


@_inlined
def remove(data: Data, st: State, k: int) -> None:
    """Take lecture k out of the counts (its slot and room stay recorded until placed again)."""
    change(data, st, k, st.slot[k], st.room[k], -1)


# ------------------------------------------------------------------ moves


@_inlined
def _open(data: Data, st: State, i: int, slot: int, leaving: int) -> bool:
    """Agent i may take a lecture into ``slot``: it has none there, it is available, and no
    conflicting agent is there but the ``leaving`` (0 or 1) that moves out."""
    return st.at[i, slot] == 0 and data.unavailable[i, slot] == 0 and st.clash[i, slot] - leaving <= 0


@_inlined
def allowed(data: Data, st: State, k: int, slot: int, other: int) -> bool:
    """The move of lecture k to ``slot`` (a swap with lecture ``other`` ≥ 0 when it holds the
    target) keeps every hard rule: checked on the counts before anything changes, as if both
    lectures had left."""
    agents = data.lecture_agent
    home, i = st.slot[k], agents[k]
    if other < 0:
        return slot == home or _open(data, st, i, slot, 0)
    j = agents[other]
    if slot == home or i == j:  # a room exchange: the occupancies stay
        return True
    linked = data.conflict[i, j]  # the partner leaves the slot the other one takes
    return _open(data, st, i, slot, linked) and _open(data, st, j, home, linked)


@_inlined
def _relocate(data: Data, st: State, k: int, slot: int, room: int) -> None:
    """Lecture k, taken out of the counts, into them again at (slot, room) (not the occupancy)."""
    st.slot[k] = slot
    st.room[k] = room
    _recount(data, st, k, slot, room, 1)


@_inlined
def _move_counts(data: Data, st: State, k: int, slot: int, room: int, other: int) -> int:
    """The counts and penalty of the allowed move of lecture k to (slot, room), swapping with
    ``other`` (−1: none) there; the occupancy is left to :func:`_move_occupancy`. The penalty change."""
    before, home, home_room = st.cost[0], st.slot[k], st.room[k]
    _recount(data, st, k, home, home_room, -1)
    if other >= 0:
        _recount(data, st, other, slot, room, -1)
    _relocate(data, st, k, slot, room)
    if other >= 0:
        _relocate(data, st, other, home, home_room)
    return st.cost[0] - before


@_inlined
def _move_occupancy(data: Data, st: State, k: int, other: int, home: int) -> None:
    """The occupancy side of a move whose counts :func:`_move_counts` changed: k from ``home``
    to its slot now, ``other`` (−1: none) the other way (first out of both slots, then in)."""
    slot, agents = st.slot[k], data.lecture_agent
    if slot == home:
        return
    _occupy(data, st, agents[k], home, -1)
    if other >= 0:
        _occupy(data, st, agents[other], slot, -1)
    _occupy(data, st, agents[k], slot, 1)
    if other >= 0:
        _occupy(data, st, agents[other], home, 1)


@_inlined
def _unmove_counts(data: Data, st: State, k: int, slot: int, room: int, home: int, home_room: int) -> None:
    """Reverse :func:`_move_counts` of lecture k from (home, home_room) to (slot, room)."""
    other = st.room_at[home, home_room]
    _recount(data, st, k, slot, room, -1)
    if other >= 0:
        _recount(data, st, other, home, home_room, -1)
        _relocate(data, st, other, slot, room)
    _relocate(data, st, k, home, home_room)


@_compiled
def try_move(data: Data, st: State, k: int, slot: int, room: int) -> int:
    """Move lecture k to (slot, room) — a swap of (slot, room) with the lecture there, if any:
    the penalty change, or :data:`REJECTED` (nothing changed) when a hard rule would break."""
    other = st.room_at[slot, room]
    if other == k or not allowed(data, st, k, slot, other):
        return REJECTED
    home = st.slot[k]
    delta = _move_counts(data, st, k, slot, room, other)
    _move_occupancy(data, st, k, other, home)
    return delta


@_compiled
def undo(data: Data, st: State, k: int, slot: int, room: int, home: int, home_room: int) -> None:
    """Reverse an applied :func:`try_move` of lecture k from (home, home_room) to (slot, room)."""
    other = st.room_at[home, home_room]
    remove(data, st, k)
    if other >= 0:
        remove(data, st, other)
        place(data, st, other, slot, room)
    place(data, st, k, home, home_room)


@_inlined
def exchange_rooms(data: Data, st: State, k: int, room: int) -> int:
    """Lecture k into ``room`` of its own slot, the lecture there (if any) into k's room: the
    penalty change. No slot changes, so only capacity overflow and room stability can change
    (spread and compactness count slots): a fraction of a move's work (:func:`change`)."""
    slot, old, agents, overflow = st.slot[k], st.room[k], data.lecture_agent, data.overflow
    if old == room:
        return 0
    before = st.cost[0]
    i, other = agents[k], st.room_at[slot, room]
    delta = overflow[i, room] - overflow[i, old] + _room_change(data, st, i, old, -1)
    delta += _room_change(data, st, i, room, 1)
    st.room[k], st.room_at[slot, room] = room, k
    if other >= 0:
        j = agents[other]
        delta += overflow[j, old] - overflow[j, room] + _room_change(data, st, j, room, -1)
        delta += _room_change(data, st, j, old, 1)
        st.room[other] = old
    st.room_at[slot, old] = other
    st.cost[0] = before + delta
    return delta


@_compiled
def try_agent_room(data: Data, st: State, agent: int, room: int, steps: np.ndarray) -> tuple[int, int]:
    """Every lecture of ``agent`` into ``room``, each exchanging rooms with the lecture holding it
    in its slot (:func:`exchange_rooms`; always allowed: no occupancy changes). Returns the
    penalty change and the number n of steps written to ``steps[:n]`` as (lecture, old room)
    rows for the undo."""
    lecture_room = st.room
    delta, n = 0, 0
    for k in range(data.lecture_start[agent], data.lecture_start[agent + 1]):
        old = lecture_room[k]
        if old != room:
            delta += exchange_rooms(data, st, k, room)
            steps[n, 0] = k
            steps[n, 1] = old
            n += 1
    return delta, n


@_compiled
def undo_agent_room(data: Data, st: State, steps: np.ndarray, n: int) -> None:
    """Reverse the n steps of a :func:`try_agent_room`, last first."""
    for s in range(n - 1, -1, -1):
        exchange_rooms(data, st, steps[s, 0], steps[s, 1])


@_inlined
def _in_chain(chain: np.ndarray, n: int, lecture: int) -> bool:
    """Whether ``lecture`` is among the first n rows of ``chain`` (a chain holds at most 2 × rooms)."""
    for c in range(n):
        if chain[c, 0] == lecture:
            return True
    return False


@_inlined
def _closure(data: Data, st: State, k: int, target: int, chain: np.ndarray) -> int:
    """The Kempe chain of lecture k between its slot and ``target``: rows (lecture, slot, room)
    of ``chain``, k first; a lecture of either slot is in it when it conflicts with (or has the
    agent of) a lecture of the chain in the other slot. Its number of rows, or −1 as soon as a
    lecture of it is unavailable in the slot it would move to (the exchange is then not made:
    most are not, and the rest of the chain need not be built)."""
    agents, conflict, room_at, unavailable = data.lecture_agent, data.conflict, st.room_at, data.unavailable
    rooms = room_at.shape[1]
    home = st.slot[k]
    if unavailable[agents[k], target] == 1:
        return -1
    chain[0, 0], chain[0, 1], chain[0, 2] = k, home, st.room[k]
    n, head = 1, 0
    while head < n:
        i, other = agents[chain[head, 0]], target if chain[head, 1] == home else home
        head += 1
        for r in range(rooms):
            y = room_at[other, r]
            if y >= 0 and (agents[y] == i or conflict[i, agents[y]] == 1) and not _in_chain(chain, n, y):
                if unavailable[agents[y], target if other == home else home] == 1:
                    return -1
                chain[n, 0], chain[n, 1], chain[n, 2] = y, other, r
                n += 1
    return n


@_inlined
def _free_room(data: Data, st: State, i: int, slot: int, room: int) -> int:
    """``room`` when it is free in ``slot``, else the free room there of least overflow for agent i."""
    room_at, overflow = st.room_at, data.overflow
    if room_at[slot, room] < 0:
        return room
    chosen = -1
    for r in range(room_at.shape[1]):
        if room_at[slot, r] < 0 and (chosen < 0 or overflow[i, r] < overflow[i, chosen]):
            chosen = r
    return chosen


@_inlined
def _kempe_counts(data: Data, st: State, home: int, target: int, chain: np.ndarray, n: int) -> int:
    """The counts and penalty of the exchange of the n lectures of ``chain`` between ``home``
    and ``target`` (each to a room by :func:`_free_room`); the occupancy is left to
    :func:`_kempe_occupancy`. The penalty change."""
    agents, before = data.lecture_agent, st.cost[0]
    for c in range(n):
        _recount(data, st, chain[c, 0], chain[c, 1], chain[c, 2], -1)
    for c in range(n):
        lecture = chain[c, 0]
        slot = target if chain[c, 1] == home else home
        _relocate(data, st, lecture, slot, _free_room(data, st, agents[lecture], slot, chain[c, 2]))
    return st.cost[0] - before


@_inlined
def _kempe_occupancy(data: Data, st: State, chain: np.ndarray, n: int, home: int, target: int) -> None:
    """The occupancy side of an exchange whose counts :func:`_kempe_counts` changed (first every
    lecture out of its old slot, then into its new one: an agent may be in the chain twice)."""
    agents = data.lecture_agent
    for c in range(n):
        _occupy(data, st, agents[chain[c, 0]], chain[c, 1], -1)
    for c in range(n):
        _occupy(data, st, agents[chain[c, 0]], target if chain[c, 1] == home else home, 1)


@_inlined
def _unkempe_counts(data: Data, st: State, chain: np.ndarray, n: int) -> None:
    """Reverse :func:`_kempe_counts`: the n lectures back where ``chain`` says they were."""
    for c in range(n):
        k = chain[c, 0]
        _recount(data, st, k, st.slot[k], st.room[k], -1)
    for c in range(n):
        _relocate(data, st, chain[c, 0], chain[c, 1], chain[c, 2])


@_inlined
def _kempe_chain(data: Data, st: State, k: int, target: int, chain: np.ndarray) -> int:
    """The Kempe chain of lecture k and ``target`` (:func:`_closure`) when its exchange keeps
    every hard rule: its number of rows; −1 when a lecture would land in an unavailable slot or
    a slot has too few free rooms (or ``target`` is k's own slot)."""
    home = st.slot[k]
    if target == home:
        return -1
    n = _closure(data, st, k, target, chain)
    if n < 0:
        return -1
    room_at = st.room_at
    leaving = 0  # chain lectures of k's slot (they move to the target)
    for c in range(n):
        leaving += 1 if chain[c, 1] == home else 0
    free_home, free_target = 0, 0
    for r in range(room_at.shape[1]):
        free_home += 1 if room_at[home, r] < 0 else 0
        free_target += 1 if room_at[target, r] < 0 else 0
    if free_target + (n - leaving) < leaving or free_home + leaving < n - leaving:
        return -1
    return n


@_compiled
def try_kempe(data: Data, st: State, k: int, target: int, chain: np.ndarray) -> tuple[int, int]:
    """Exchange the Kempe chain of lecture k (:func:`_closure`) between k's slot and ``target``:
    its lectures of each slot move to the other, keeping their room when it is free there, else
    taking the free room of least overflow. No conflict can arise (the chain is closed under
    conflicts), so the move keeps every hard rule unless a lecture would land in an unavailable
    slot or a slot has too few free rooms: then :data:`REJECTED` and nothing changed. Returns the
    penalty change and the chain's number of rows n (``chain[:n]`` holds each lecture's old
    (slot, room), what :func:`undo_kempe` restores)."""
    home = st.slot[k]
    n = _kempe_chain(data, st, k, target, chain)
    if n < 0:
        return REJECTED, 0
    delta = _kempe_counts(data, st, home, target, chain, n)
    _kempe_occupancy(data, st, chain, n, home, target)
    return delta, n


@_compiled
def undo_kempe(data: Data, st: State, chain: np.ndarray, n: int) -> None:
    """Put the n lectures of an applied :func:`try_kempe` back where ``chain`` says they were."""
    for c in range(n):
        remove(data, st, chain[c, 0])
    for c in range(n):
        place(data, st, chain[c, 0], chain[c, 1], chain[c, 2])


@_compiled
def open_cells(data: Data, st: State, k: int, out: np.ndarray) -> int:
    """For the unplaced lecture k: each slot where it keeps every hard rule, with the free room
    of least overflow (ties: the lowest) and the penalty change of placing it there, as rows
    (slot, room, change) of ``out``; the number of rows."""
    i, n = data.lecture_agent[k], 0
    room_at, overflow, cost = st.room_at, data.overflow, st.cost
    slots, rooms = room_at.shape
    for slot in range(slots):
        if not _open(data, st, i, slot, 0):
            continue
        chosen = -1
        for r in range(rooms):
            if room_at[slot, r] < 0 and (chosen < 0 or overflow[i, r] < overflow[i, chosen]):
                chosen = r
        if chosen < 0:
            continue
        before = cost[0]
        place(data, st, k, slot, chosen)
        out[n, 0] = slot
        out[n, 1] = chosen
        out[n, 2] = cost[0] - before
        remove(data, st, k)
        st.slot[k] = -1
        st.room[k] = -1
        n += 1
    return n


# ------------------------------------------------------------------ annealing


@_inlined
def _keep_best(st: State, best_slot: np.ndarray, best_room: np.ndarray, best_cost: np.ndarray) -> None:
    cost = st.cost[0]
    if cost < best_cost[0]:
        best_cost[0] = cost
        lecture_slot, lecture_room = st.slot, st.room
        for k in range(len(lecture_slot)):  # a loop: a slice copy needs the allocator (_nrt=False)
            best_slot[k] = lecture_slot[k]
            best_room[k] = lecture_room[k]


@_inlined
def _rejected(rng: np.ndarray, delta: int, temperature: float) -> bool:
    """Metropolis: a worsening δ > 0 is kept with probability exp(−δ / T)."""
    return delta > 0 and uniform(rng) >= math.exp(-delta / temperature)


@_compiled
def anneal_chunk(data: Data, st: State, rng: np.ndarray, best_slot: np.ndarray, best_room: np.ndarray,
                 best_cost: np.ndarray, iterations: int, temperature: float, room_share: float,
                 agent_share: float, steps: np.ndarray, kempe_share: float, chain: np.ndarray) -> None:
    """``iterations`` annealing moves at a fixed temperature; the best state seen is copied into
    ``best_slot``, ``best_room`` and ``best_cost[0]`` whenever the cost falls below it.

    A move is, with probability ``agent_share``, all lectures of the agent of a random lecture
    into a random room; otherwise a random lecture to a random (slot, room) — its own slot with
    probability ``room_share`` — swapping with the lecture there. With probability
    ``kempe_share`` (of the moves that are not agent moves) the move is instead the exchange of
    the Kempe chain of a random lecture between its slot and a random other slot
    (:func:`try_kempe`; ``chain`` is its work array of 2 × rooms rows).
    """
    agents, lecture_slot, lecture_room, room_at = data.lecture_agent, st.slot, st.room, st.room_at
    lectures = len(agents)
    slots, rooms = room_at.shape
    for _ in range(iterations):
        if uniform(rng) < agent_share:
            agent = agents[below(rng, lectures)]
            delta, n = try_agent_room(data, st, agent, below(rng, rooms), steps)
            if _rejected(rng, delta, temperature):
                undo_agent_room(data, st, steps, n)
            else:
                _keep_best(st, best_slot, best_room, best_cost)
            continue
        k = below(rng, lectures)
        home, home_room = lecture_slot[k], lecture_room[k]
        # the occupancy (the longest loops) changes only for a move that is kept
        if kempe_share > 0.0 and uniform(rng) < kempe_share:
            target = below(rng, slots)
            n = _kempe_chain(data, st, k, target, chain)
            if n < 0:
                continue
            delta = _kempe_counts(data, st, home, target, chain, n)
            if _rejected(rng, delta, temperature):
                _unkempe_counts(data, st, chain, n)
            else:
                _kempe_occupancy(data, st, chain, n, home, target)
                _keep_best(st, best_slot, best_room, best_cost)
            continue
        slot = home if uniform(rng) < room_share else below(rng, slots)
        room = below(rng, rooms)
        other = room_at[slot, room]
        if other == k or not allowed(data, st, k, slot, other):
            continue
        delta = _move_counts(data, st, k, slot, room, other)
        if _rejected(rng, delta, temperature):
            _unmove_counts(data, st, k, slot, room, home, home_room)
        else:
            _move_occupancy(data, st, k, other, home)
            _keep_best(st, best_slot, best_room, best_cost)
