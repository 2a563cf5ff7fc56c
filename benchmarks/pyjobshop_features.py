"""schedc's compiled CP-SAT models vs PyJobShop's on the features of #18 (benchmarks/vs_pyjobshop.py --features).

Rows: single-machine weighted tardiness (Potts & Van Wassenhove scheme, `schedc generate-classic wt`),
unrelated parallel machines with sequence-dependent setups (Vallada & Ruiz scheme, `sdst`), a job
shop (ft06) with release dates and weighted due dates minimising makespan + weighted tardiness, a
single machine with release dates minimising weighted flow time, and permutation flow shops
(Taillard's scheme, 10 jobs x 5 machines, ``same_sequence``). Both sides get the same instance (the
PyJobShop model is translated from schedc's IR here), the same time limit, number of workers and
solver seed, in one run. Per row: both objectives, the gap of each to the exact optimum (the ``wt``
rows, by dynamic programming) or else to the better of the two, and each side's time when it proved
optimality; the ``wt20`` rows run once per solver seed 0, 1, 2 (see :data:`SOLVER_SEEDS`). The
summary gives the mean gaps with their ranges and the mean ratio of time to optimality (schedc /
PyJobShop) over the instances both proved optimal.

    python benchmarks/vs_pyjobshop.py --features [--time-limit 10] [--workers 2]
"""

from __future__ import annotations

import random
import statistics
from pathlib import Path
from typing import Any

from schedc.api import load
from schedc.backends.cpsat import SolveOptions, solve
from schedc.generators import SdstParams, WtParams, sdst_instance, wt_instance
from schedc.ir import Instance
from schedc.kinds import PrecedenceLag, TimeWindow
from schedc.kinds.measures import terms_of
from schedc.kinds.same_sequence import SameSequence
from schedc.kinds.setup_times import SetupTimes
from schedc.lang.family import load_family

ROOT = Path(__file__).resolve().parent.parent
#: schedc measure → PyJobShop objective weight
WEIGHTS = {"makespan": "weight_makespan", "tardy_jobs": "weight_tardy_jobs", "tardiness": "weight_total_tardiness",
           "flow_time": "weight_total_flow_time", "earliness": "weight_total_earliness",
           "max_tardiness": "weight_max_tardiness", "setup_time": "weight_total_setup_time"}
RELATIONS = {"e->s": "add_end_before_start", "s->s": "add_start_before_start", "s->e": "add_start_before_end",
             "e->e": "add_end_before_end", "s=s": "add_start_at_start", "s=e": "add_start_at_end",
             "e=s": "add_end_at_start", "e=e": "add_end_at_end"}


def pyjobshop_model(instance: Instance) -> Any:
    """PyJobShop's Model of a schedc instance: machines, renewables, jobs with release, deadline, due
    date and weight, tasks with their modes, the precedence relations, setups and the objective."""
    from pyjobshop import Model

    model = Model()
    res = {r.name: model.add_machine(name=r.name) if r.kind == "unary" else model.add_renewable(r.capacity or 0)
           for r in instance.resources}
    unary = {r.name: r.kind == "unary" for r in instance.resources}
    windows = {w.target: w for c in instance.constraints if isinstance(c, TimeWindow) for w in c.windows}
    jobs = {}
    for job in dict.fromkeys(a.job or a.name for a in instance.activities):
        w = windows.get(job)
        kwargs = {"deadline": w.deadline} if w is not None and w.deadline is not None else {}
        jobs[job] = model.add_job(weight=w.weight or 1 if w else 1, release_date=w.release if w else 0,
                                  due_date=w.due if w else None, name=job, **kwargs)
    tasks = {}
    for a in instance.activities:
        tasks[a.name] = task = model.add_task(job=jobs[a.job or a.name], name=a.name)
        for mode in a.modes:
            # PyJobShop's machines take demand 0 (a machine has no capacity to share)
            model.add_mode(task, [res[u.resource] for u in mode.uses], mode.duration,
                           [0 if unary[u.resource] else u.amount for u in mode.uses])
    for c in instance.constraints:
        if isinstance(c, PrecedenceLag):
            for e in c.edges:
                getattr(model, RELATIONS[e.relation])(tasks[e.before], tasks[e.after], e.lag)
        elif isinstance(c, SetupTimes):
            for resource, times in c.matrix(instance).items():  # compact rows resolved per pair
                for (before, after), time in times.items():
                    model.add_setup_time(res[resource], tasks[before], tasks[after], time)
        elif isinstance(c, SameSequence):  # the pairs in order, as PyJobShop's tasks1/tasks2 lists
            for first, second, pairing in c.pairings(instance):
                model.add_same_sequence(res[first], res[second], [tasks[a] for a, _ in pairing],
                                        [tasks[b] for _, b in pairing])
    weights: dict[str, int] = {}
    for term in terms_of(instance.objective.measure, instance.objective.terms):
        weights[WEIGHTS[term.measure]] = weights.get(WEIGHTS[term.measure], 0) + term.weight
    model.set_objective(**weights)
    return model


def ft06_with_due_dates(seed: int) -> str:
    """ft06 with release dates and weighted due dates drawn from ``seed``; makespan + weighted tardiness."""
    rng = random.Random(f"ft06-due:{seed}")
    text = (ROOT / "examples" / "ft06.sched").read_text()
    rows = [f"  J{j} {rng.randint(0, 10)} - due={rng.randint(30, 55)} weight={rng.randint(1, 4)}" for j in range(1, 7)]
    text = text.replace("instance ft06 family jobshop", f"instance ft06_due{seed} family jobshop")
    return text.replace("minimize makespan", "hard time_window windows table\n" + "\n".join(rows)
                        + "\nend\nminimize 1*makespan + 1*tardiness\n")


def flow_time_instance(seed: int, n: int = 12) -> str:
    """1|r_j|Σ w_j F_j: ``n`` jobs with p ~ U[1, 20], r ~ U[0, 5n], w ~ U[1, 5]."""
    rng = random.Random(f"flow:{n}:{seed}")
    jobs = [(rng.randint(1, 20), rng.randint(0, 5 * n), rng.randint(1, 5)) for _ in range(n)]
    lines = [f"instance flow{n}_s{seed} family single_machine", "resources table", "  M1 unary", "end", "jobs table"]
    lines += [f"  J{j} M1:{p}" for j, (p, _, _) in enumerate(jobs, start=1)]
    lines += ["end", "hard unary_no_overlap machine", "hard mode_choice modes", "hard time_window windows table"]
    lines += [f"  J{j} {r} - weight={w}" for j, (_, r, w) in enumerate(jobs, start=1)]
    return "\n".join([*lines, "end", "minimize flow_time"]) + "\n"


def permutation_flow_shop(seed: int, jobs: int = 10, machines: int = 5) -> str:
    """F|prmu|C_max with Taillard's scheme (p ~ U[1, 99]; E. Taillard, "Benchmarks for basic scheduling
    problems", EJOR 64, 1993), drawn from ``random.Random``: every job visits M1..Mm, one job order."""
    rng = random.Random(f"pfs:{jobs}x{machines}:{seed}")
    lines = [f"instance pfs{jobs}x{machines}_s{seed} family flow_shop", "resources table",
             *(f"  M{k} unary" for k in range(1, machines + 1)), "end", "jobs table"]
    lines += [f"  J{j} " + " ".join(f"M{k}:{rng.randint(1, 99)}" for k in range(1, machines + 1))
              for j in range(1, jobs + 1)]
    lines += ["end", "hard precedence_lag routes table"]
    lines += ["  " + " -> ".join(f"J{j}.{k}" for k in range(1, machines + 1)) for j in range(1, jobs + 1)]
    lines += ["end", "hard unary_no_overlap machines", "hard mode_choice modes", "hard same_sequence permutation"]
    return "\n".join([*lines, "minimize makespan"]) + "\n"


def feature_cases() -> list[tuple[str, str]]:
    """(row label, .sched text) of every benchmark instance."""
    out = [("wt20", wt_instance(WtParams(jobs=20, tf=0.6, rdd=0.6), s)) for s in (1, 2, 3)]
    out += [("sdst8x2", sdst_instance(SdstParams(jobs=8, machines=2, setup_max=49), s)) for s in (1, 2, 3)]
    out += [("ft06+due", ft06_with_due_dates(s)) for s in (1, 2, 3)]
    out += [("flow12", flow_time_instance(s)) for s in (1, 2, 3)]
    out += [("pfs10x5", permutation_flow_shop(s)) for s in (1, 2, 3)]
    return out


#: rows run once per solver seed (both sides get the seed): 10 s runs of 1||Σ w_j T_j with 20 jobs end
#: far from the optimum (CP-SAT proves no bound above 0) and scatter from run to run, so one run says little
SOLVER_SEEDS = {"wt20": (0, 1, 2)}


def weighted_tardiness_optimum(instance: Instance) -> int | None:
    """The optimum of a single machine without releases minimising Σ w_j T_j (the ``wt`` rows), by
    dynamic programming over the subsets of jobs scheduled first: ``f(S) = min_{j ∈ S} f(S − j) +
    w_j max(0, p(S) − d_j)`` (Held and Karp's recursion; 2ⁿ states, numpy over each layer). None for
    any other instance or more than 22 jobs."""
    import numpy as np

    windows = {w.target: w for c in instance.constraints if isinstance(c, TimeWindow) for w in c.windows}
    acts = instance.activities
    if instance.objective.measure != "tardiness" or len(instance.resources) != 1 or len(acts) > 22 \
            or any(w.release for w in windows.values()) or any(len(a.modes) != 1 for a in acts):
        return None
    p = [a.modes[0].duration for a in acts]
    due = [windows[a.job or a.name].due or 0 for a in acts]
    weight = [windows[a.job or a.name].weight or 1 for a in acts]
    subsets = np.arange(1 << len(acts), dtype=np.int64)
    members = [(subsets >> j) & 1 for j in range(len(acts))]
    load_, size = sum(m * d for m, d in zip(members, p, strict=True)), sum(members)
    best = np.full(subsets.size, np.iinfo(np.int64).max // 4, dtype=np.int64)
    best[0] = 0
    for k in range(1, len(acts) + 1):  # layer by layer: f(S − j) is final before f(S)
        layer = subsets[size == k]
        value = np.full(layer.size, np.iinfo(np.int64).max // 4, dtype=np.int64)
        for j in range(len(acts)):
            has = ((layer >> j) & 1).astype(bool)
            last = layer[has]
            value[has] = np.minimum(value[has], best[last ^ (1 << j)] + weight[j] * np.maximum(0, load_[last] - due[j]))
        best[layer] = value
    return int(best[-1])


def run_features(time_limit: float, workers: int) -> None:
    """Solve every case on both sides and print the rows and the summary.

    A row's gaps are to the instance's exact optimum where one is known (the ``wt`` rows), else to the
    better of the two sides."""
    rows = []
    print(f"{'case':<10}{'instance':<24}{'seed':>5}{'schedc':>9}{'s':>7}{'pyjobshop':>11}{'s':>7}{'ref':>7}"
          f"{'gap% ours':>11}{'theirs':>8}")
    for label, text in feature_cases():
        instance = load(text)
        optimum = weighted_tardiness_optimum(instance)
        for seed in SOLVER_SEEDS.get(label, (0,)):
            ours = solve(instance, load_family(instance.family), SolveOptions(time_limit=time_limit, workers=workers,
                                                                               seed=seed))
            result = pyjobshop_model(instance).solve("ortools", time_limit=time_limit, display=False,
                                                     num_workers=workers, random_seed=seed)
            theirs = round(result.objective) if result.status.value in ("Optimal", "Feasible") else None
            best = optimum if optimum is not None else min(v for v in (ours.objective, theirs) if v is not None)
            gaps = [None if v is None else (v - best) / best * 100 if best else 0.0 for v in (ours.objective, theirs)]
            rows.append((label, gaps, ours.seconds if ours.status == "optimal" else None,
                         result.runtime if result.status.value == "Optimal" else None))
            print(f"{label:<10}{instance.name:<24}{seed:>5}{_v(ours.objective):>9}{ours.seconds:>7.2f}{_v(theirs):>11}"
                  f"{result.runtime:>7.2f}{_v(optimum):>7}{_f(gaps[0]):>11}{_f(gaps[1]):>8}")
    for label in [*dict.fromkeys(r[0] for r in rows), None]:
        _summary(label, [r for r in rows if label is None or r[0] == label])


def _summary(label: str | None, chosen: list[Any]) -> None:
    both = [r for r in chosen if r[1][0] is not None and r[1][1] is not None]
    timed = [r[2] / r[3] for r in chosen if r[2] is not None and r[3] is not None and r[3] > 0]
    ratio = f"{statistics.mean(timed):.2f} over {len(timed)} proved on both sides" if timed else "- (none proved)"
    spread = "".join(f" [{min(r[1][k] for r in both):.1f}, {max(r[1][k] for r in both):.1f}]" for k in (0, 1))
    print(f"{label or 'all':<10} n={len(chosen):<3} mean gap schedc {statistics.mean(r[1][0] for r in both):.2f}% "
          f"pyjobshop {statistics.mean(r[1][1] for r in both):.2f}% (ranges{spread})  "
          f"time to optimality schedc/pyjobshop {ratio}")


def _v(value: int | None) -> str:
    return "-" if value is None else str(value)


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
