"""Tabu search in the N5 neighbourhood of the disjunctive graph, for job shops.

A job shop schedule is represented by one processing order per machine. Together with the
job routes these orders form a directed acyclic graph (the disjunctive graph with every
disjunction settled); the earliest start of an operation is its *head* (longest path to it),
the *tail* is the longest path from its end to the end of the schedule, and the makespan is
the longest path. A *critical path* is a path of that length; it splits into *critical blocks*:
maximal runs of operations processed one right after the other on the same machine.

The N5 neighbourhood (Nowicki & Smutnicki, "A fast taboo search algorithm for the job shop
problem", Management Science 42(6), 1996) swaps the first two operations of every block but the
first and the last two of every block but the last, on one critical path. Swapping two adjacent
critical operations never creates a cycle, so every neighbour is a feasible schedule; moves that
do not touch a block end cannot shorten the path, so N5 loses no improving swap of that kind.

Each candidate is scored by the estimate of Taillard / Dell'Amico & Trubian (the longest path
through the two swapped operations with the other heads and tails unchanged), the best
non-tabu one is applied (a tabu one too when it beats the best makespan: aspiration), and the
swapped pair's old order is tabu for a tenure drawn from the seeded generator. After a long run
without improvement the search jumps back to the best schedule. Everything random comes from
``random.Random(seed)``; with an iteration limit and no time limit the result is deterministic.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from schedc.core.solution import Solution
from schedc.ir import Instance
from schedc.kinds import ModeChoice, PrecedenceLag, UnaryNoOverlap


@dataclass(frozen=True)
class JobShop:
    """Operations 0..n−1 with their duration, machine and route neighbours (−1: none)."""

    names: tuple[str, ...]
    duration: tuple[int, ...]
    machine: tuple[int, ...]
    job_prev: tuple[int, ...]
    job_next: tuple[int, ...]
    machines: int


@dataclass(frozen=True)
class TabuResult:
    """The best schedule found: its makespan, machine orders, start times and the work done."""

    makespan: int
    orders: tuple[tuple[int, ...], ...]
    starts: tuple[int, ...]
    iterations: int


def jobshop_of(instance: Instance) -> JobShop | None:
    """The disjunctive-graph data of a pure job shop, or None when the instance is anything else.

    Pure means: makespan objective; each activity one mode on one unary resource; the only active
    constraints are hard zero-lag precedence chains (at most one predecessor and one successor per
    activity), hard ``unary_no_overlap`` on every machine, and ``mode_choice``.
    """
    if instance.objective.measure != "makespan" or not instance.activities:
        return None
    unary = {r.name for r in instance.resources if r.kind == "unary"}
    index = {a.name: k for k, a in enumerate(instance.activities)}
    prev = [-1] * len(index)
    nxt = [-1] * len(index)
    covered = False
    for c in instance.constraints:
        if not c.active or isinstance(c, ModeChoice):
            continue
        if isinstance(c, UnaryNoOverlap) and c.hard and c.resources == "all":
            covered = True
        elif isinstance(c, PrecedenceLag) and c.hard and all(e.lag == 0 for e in c.edges):
            for e in c.edges:
                before, after = index[e.before], index[e.after]
                if nxt[before] != -1 or prev[after] != -1:
                    return None
                nxt[before], prev[after] = after, before
        else:
            return None
    machine_ids = {name: k for k, name in enumerate(sorted(unary))}
    machines, durations = [], []
    for a in instance.activities:
        uses = a.modes[0].uses if len(a.modes) == 1 else ()
        if len(uses) != 1 or uses[0].resource not in unary or uses[0].amount != 1:
            return None
        machines.append(machine_ids[uses[0].resource])
        durations.append(a.modes[0].duration)
    if not covered:
        return None
    return JobShop(names=tuple(index), duration=tuple(durations), machine=tuple(machines), job_prev=tuple(prev),
                   job_next=tuple(nxt), machines=len(machine_ids))


def orders_from_starts(shop: JobShop, starts: list[int] | tuple[int, ...]) -> list[list[int]]:
    """Machine orders of a schedule: each machine's operations by start time (ties: index)."""
    orders: list[list[int]] = [[] for _ in range(shop.machines)]
    for op in sorted(range(len(starts)), key=lambda k: (starts[k], k)):
        orders[shop.machine[op]].append(op)
    return orders


class _Graph:
    """Machine orders with their neighbour arrays, heads, tails and makespan."""

    def __init__(self, shop: JobShop, orders: list[list[int]]):
        self.shop = shop
        n = len(shop.duration)
        self.mprev = [-1] * n
        self.mnext = [-1] * n
        for order in orders:
            for a, b in zip(order, order[1:], strict=False):
                self.mnext[a], self.mprev[b] = b, a
        self.head = [0] * n
        self.tail = [0] * n
        self.order: list[int] = []
        self.pos: list[int] = []
        self.makespan = 0

    def evaluate(self) -> None:
        """A topological order (Kahn), heads along it, tails against it; raises on a cycle."""
        shop, mprev, mnext = self.shop, self.mprev, self.mnext
        jprev, jnext = shop.job_prev, shop.job_next
        n = len(shop.duration)
        indegree = [(jprev[v] >= 0) + (mprev[v] >= 0) for v in range(n)]
        stack = [v for v in range(n) if indegree[v] == 0]
        order = []
        while stack:
            v = stack.pop()
            order.append(v)
            for s in (jnext[v], mnext[v]):
                if s >= 0:
                    indegree[s] -= 1
                    if indegree[s] == 0:
                        stack.append(s)
        if len(order) != n:
            raise ValueError("the machine orders and routes form a cycle")
        self.order = order
        self.pos = [0] * n
        for k, v in enumerate(order):
            self.pos[v] = k
        self._heads(0)
        self._tails(n - 1)

    def _heads(self, first: int) -> None:
        """Heads of the operations at topological positions ``first`` and later."""
        p, head, jprev, mprev = self.shop.duration, self.head, self.shop.job_prev, self.mprev
        for v in self.order[first:]:
            a, b = jprev[v], mprev[v]
            ha = head[a] + p[a] if a >= 0 else 0
            hb = head[b] + p[b] if b >= 0 else 0
            head[v] = ha if ha > hb else hb
        self.makespan = max(map(int.__add__, head, p)) if p else 0

    def _tails(self, last: int) -> None:
        """Tails of the operations at topological positions ``last`` and earlier."""
        p, tail, jnext, mnext = self.shop.duration, self.tail, self.shop.job_next, self.mnext
        for v in reversed(self.order[:last + 1]):
            a, b = jnext[v], mnext[v]
            ta = tail[a] + p[a] if a >= 0 else 0
            tb = tail[b] + p[b] if b >= 0 else 0
            tail[v] = ta if ta > tb else tb

    def swap_and_update(self, u: int, v: int) -> None:
        """:meth:`swap`, then repair the topological order and the heads and tails it changes.

        Only the segment of the order from u to v needs reordering: the swap adds the arcs
        ``a→v``, ``v→u`` and ``u→b`` (a, b the old machine neighbours), whose tails lie at or
        before the segment and heads at or after it. Heads change only from u's position on,
        tails only up to v's.
        """
        self.swap(u, v)
        first, last = self.pos[u], self.pos[v]
        segment = self.order[first:last + 1]
        inside = set(segment)
        jprev, jnext, mprev, mnext = self.shop.job_prev, self.shop.job_next, self.mprev, self.mnext
        indegree = {w: (jprev[w] in inside) + (mprev[w] in inside) for w in segment}
        stack = [w for w in reversed(segment) if indegree[w] == 0]
        k = first
        while stack:
            w = stack.pop()
            self.order[k], self.pos[w] = w, k
            k += 1
            for s in (jnext[w], mnext[w]):
                if s in inside:
                    indegree[s] -= 1
                    if indegree[s] == 0:
                        stack.append(s)
        if k != last + 1:
            raise ValueError("the swap closed a cycle (the pair was not adjacent on a critical path)")
        self._heads(first)
        self._tails(last)

    def critical_blocks(self, rng: random.Random) -> list[list[int]]:
        """The blocks of one critical path (ties between successors broken by ``rng``)."""
        p, head, tail, cmax = self.shop.duration, self.head, self.tail, self.makespan
        mnext, jnext = self.mnext, self.shop.job_next
        starts = [v for v in range(len(p)) if head[v] == 0 and p[v] + tail[v] == cmax]
        v = starts[0] if len(starts) == 1 else rng.choice(starts)
        blocks = [[v]]
        while True:
            end = head[v] + p[v]
            m, j = mnext[v], jnext[v]
            on_m = m >= 0 and head[m] == end and end + p[m] + tail[m] == cmax
            on_j = j >= 0 and head[j] == end and end + p[j] + tail[j] == cmax
            if on_m and (not on_j or rng.random() < 0.5):
                blocks[-1].append(m)
                v = m
            elif on_j:
                blocks.append([j])
                v = j
            else:
                return blocks

    def estimate(self, u: int, v: int) -> int:
        """Longest path through u and v after swapping them (u right before v on a machine)."""
        p, head, tail = self.shop.duration, self.head, self.tail
        jp, js = self.shop.job_prev, self.shop.job_next
        a, b = self.mprev[u], self.mnext[v]
        rv = max(head[jp[v]] + p[jp[v]] if jp[v] >= 0 else 0, head[a] + p[a] if a >= 0 else 0)
        ru = max(head[jp[u]] + p[jp[u]] if jp[u] >= 0 else 0, rv + p[v])
        qu = max(tail[js[u]] + p[js[u]] if js[u] >= 0 else 0, tail[b] + p[b] if b >= 0 else 0)
        qv = max(tail[js[v]] + p[js[v]] if js[v] >= 0 else 0, qu + p[u])
        return max(rv + p[v] + qv, ru + p[u] + qu)

    def swap(self, u: int, v: int) -> None:
        """Process v right before u (u was right before v on their machine)."""
        a, b = self.mprev[u], self.mnext[v]
        if a >= 0:
            self.mnext[a] = v
        if b >= 0:
            self.mprev[b] = u
        self.mprev[v], self.mnext[v] = a, u
        self.mprev[u], self.mnext[u] = v, b

    def orders(self) -> tuple[tuple[int, ...], ...]:
        out = []
        for m in range(self.shop.machines):
            first = [v for v in range(len(self.mprev)) if self.shop.machine[v] == m and self.mprev[v] < 0]
            chain = []
            v = first[0] if first else -1
            while v >= 0:
                chain.append(v)
                v = self.mnext[v]
            out.append(tuple(chain))
        return tuple(out)


def n5_moves(blocks: list[list[int]]) -> list[tuple[int, int]]:
    """The N5 swaps of a critical path's blocks: the first pair of each block but the first,
    the last pair of each block but the last (pairs (u, v) with u right before v)."""
    moves: list[tuple[int, int]] = []
    for k, block in enumerate(blocks):
        if len(block) < 2:
            continue
        if k > 0:
            moves.append((block[0], block[1]))
        if k < len(blocks) - 1 and (len(block) > 2 or k == 0):
            moves.append((block[-2], block[-1]))
    return moves


def tabu_search(shop: JobShop, orders: list[list[int]], *, seed: int = 0, time_limit: float | None = None,
                max_iterations: int | None = None, lower_bound: int = 0, max_stall: int = 2000,
                max_jumps: int = 4, stop: Callable[[], bool] | None = None) -> TabuResult:
    """Improve the schedule given by machine ``orders``; stops at ``time_limit`` seconds,
    ``max_iterations`` moves, a makespan equal to ``lower_bound``, after ``max_jumps`` back
    jumps (each after ``max_stall`` moves without a new best) that found nothing better, or
    when ``stop()`` says so (another solver has proven its answer: asked every 8 moves)."""
    rng = random.Random(seed)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    graph = _Graph(shop, orders)
    graph.evaluate()
    best = (graph.makespan, graph.orders(), tuple(graph.head))
    tabu: dict[tuple[int, int], int] = {}
    base_tenure = 8 + len(shop.duration) // max(1, 10 * shop.machines)
    stall = jumps = 0
    iteration = 0
    while best[0] > lower_bound and (max_iterations is None or iteration < max_iterations):
        if iteration % 8 == 0 and ((deadline is not None and time.perf_counter() >= deadline)
                                   or (stop is not None and stop())):
            break
        iteration += 1
        moves = n5_moves(graph.critical_blocks(rng))
        if not moves:  # one block covers the critical path: its machine's load, a lower bound
            break
        scored = [(graph.estimate(u, v), rng.random(), u, v) for u, v in moves]
        allowed = [s for s in scored if tabu.get((s[3], s[2]), 0) <= iteration or s[0] < best[0]]
        _score, _tie, u, v = min(allowed) if allowed else rng.choice(scored)
        graph.swap_and_update(u, v)
        tabu[(u, v)] = iteration + base_tenure + rng.randrange(base_tenure)
        if graph.makespan < best[0]:
            best = (graph.makespan, graph.orders(), tuple(graph.head))
            stall = jumps = 0
        else:
            stall += 1
        if stall >= max_stall:  # back jump: restart from the best schedule with a fresh tabu list
            jumps += 1
            if jumps > max_jumps:
                break
            graph = _Graph(shop, [list(o) for o in best[1]])
            graph.evaluate()
            tabu.clear()
            stall = 0
    return TabuResult(makespan=best[0], orders=best[1], starts=best[2], iterations=iteration)


def improve_jobshop(instance: Instance, start: Solution, *, seed: int = 0, time_limit: float | None = None,
                    max_iterations: int | None = None, lower_bound: int = 0,
                    stop: Callable[[], bool] | None = None) -> Solution | None:
    """Tabu search from ``start`` when the instance is a pure job shop (else None); the result is
    the semi-active schedule of the best machine orders found (every operation at its head)."""
    shop = jobshop_of(instance)
    if shop is None:
        return None
    orders = orders_from_starts(shop, [start.starts[name] for name in shop.names])
    result = tabu_search(shop, orders, seed=seed, time_limit=time_limit, max_iterations=max_iterations,
                         lower_bound=lower_bound, stop=stop)
    return Solution(starts=dict(zip(shop.names, result.starts, strict=True)), modes=dict.fromkeys(shop.names, 1))
