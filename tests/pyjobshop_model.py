"""The cases of :mod:`tests.pyjobshop_cases` built through PyJobShop's Model API (the other writer of
each case: :func:`tests.pyjobshop_cases.to_sched`)."""

from __future__ import annotations

from tests.pyjobshop_cases import PYJOBSHOP_MEASURES, RELATIONS, Case


class PyJobShopModel:
    """The case built through PyJobShop's Model API, with the maps back to schedc's names."""

    def __init__(self, case: Case):
        from pyjobshop import Model

        self.model = model = Model()
        resources = {}
        kind = {name: k for name, k, _ in case.resources}
        for name, k, capacity in case.resources:
            breaks = [(a, b) for m, a, b in case.breaks if m == name]
            resources[name] = (model.add_machine(breaks=breaks, no_idle=name in case.no_idle, name=name)
                               if k == "unary" else model.add_renewable(capacity, name=name))
        release = {t: r for t, r, _ in case.windows}
        deadline = {t: d for t, _, d in case.windows if d is not None}
        due = {j: (d, w) for j, d, w in case.dues} | case.targets
        measures = {m for _, m in case.terms}
        jobs = {}
        # jobless cases get a job per activity: their objective targets are the activities
        job_of = {a.name: a.job or (a.name if case.terms else None) for a in case.activities}
        for job in dict.fromkeys(j for j in job_of.values() if j):
            d, w = due.get(job, (None, 1))
            kwargs = {"deadline": deadline[job]} if job in deadline else {}
            # "completion" is PyJobShop's flow time from release 0: the release moves to the tasks
            r = 0 if "completion" in measures else release.get(job, 0)
            jobs[job] = model.add_job(weight=w, release_date=r, due_date=d, name=job, **kwargs)
        task_release = {t: r for t, r in release.items() if t not in jobs or "completion" in measures}
        optional = {name for _, names in case.selections for name in names}
        self.tasks: dict[str, object] = {}
        self.modes: dict[int, tuple[str, int]] = {}  # PyJobShop mode index → (activity, 1-based mode)
        for a in case.activities:
            kwargs: dict[str, int] = {}
            job = job_of[a.name]
            for target in (a.name, job):
                if target in task_release:
                    kwargs["earliest_start"] = max(kwargs.get("earliest_start", 0), task_release[target])
            if a.name in deadline and a.name not in jobs:
                kwargs["latest_end"] = deadline[a.name]
            task = model.add_task(job=jobs.get(job) if job else None, name=a.name, optional=a.name in optional,
                                  allow_breaks=case.pausable, **kwargs)
            self.tasks[a.name] = task
            for number, (duration, uses) in enumerate(a.modes, start=1):
                names = [r for r, _, _ in case.resources if r in uses]
                # PyJobShop's machines take demand 0 (a machine has no capacity to share)
                demands = [0 if kind[r] == "unary" else uses[r] for r in names]
                model.add_mode(task, [resources[r] for r in names], duration, demands)
                self.modes[len(model.modes) - 1] = (a.name, number)
        for a, b, lag in case.precedences:
            model.add_end_before_start(self.tasks[a], self.tasks[b], lag)
        for a, rel, delay, b in case.relations:
            getattr(model, RELATIONS[rel])(self.tasks[a], self.tasks[b], delay)
        for m, a, b, t in case.setups:
            model.add_setup_time(resources[m], self.tasks[a], self.tasks[b], t)
        for rule, a, b in case.ties:
            tie = model.add_identical_resources if rule == "same" else model.add_different_resources
            tie(self.tasks[a], self.tasks[b])
        for a, b in case.consecutive:
            model.add_consecutive(self.tasks[a], self.tasks[b])
        if case.permutation:  # PyJobShop's default pairing: the tasks of each machine by index, i.e. by job
            machines = [resources[r] for r, k, _ in case.resources if k == "unary"]
            for first, second in zip(machines, machines[1:], strict=False):
                model.add_same_sequence(first, second)
        select = {"all_or_none": model.add_select_all_or_none, "at_least_one": model.add_select_at_least_one,
                  "exactly_one": model.add_select_exactly_one}
        for rule, names in case.selections:
            if rule in select:
                select[rule]([self.tasks[n] for n in names])
        if case.terms:
            weights: dict[str, int] = {}
            for w, m in case.terms:
                name = "weight_max_tardiness" if m == "max_lateness" else PYJOBSHOP_MEASURES[m]
                weights[name] = weights.get(name, 0) + w
            model.set_objective(**weights)
        elif case.objective == "tardiness":
            model.set_objective(weight_total_tardiness=1)
        else:
            model.set_objective(weight_makespan=1)

    def solve(self, time_limit: float) -> tuple[str, int | None, dict[str, int], dict[str, int]]:
        """(status, objective, starts, modes) of PyJobShop's OR-Tools run."""
        result = self.model.solve("ortools", time_limit=time_limit, display=False, num_workers=1)
        status = result.status.value
        if status not in ("Optimal", "Feasible"):
            return status, None, {}, {}
        starts, modes = {}, {}
        for scheduled in result.best.tasks:
            if not scheduled.present:
                continue
            activity, number = self.modes[scheduled.mode]
            starts[activity], modes[activity] = scheduled.start, number
        return status, round(result.objective), starts, modes
