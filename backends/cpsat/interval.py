"""CP-SAT encoders of the interval kinds (formal meanings in :mod:`schedc.kinds`)."""

from __future__ import annotations

from schedc.backends.base import unsupported
from schedc.backends.cpsat.model import CpsatModel, encoder
from schedc.kinds import CumulativeRenewable, ModeChoice, NonrenewableBudget, PrecedenceLag, UnaryNoOverlap


def _scope(m: CpsatModel, resources: object, kind: str) -> list[str]:
    if resources == "all":
        return [r.name for r in m.instance.resources if r.kind == kind]
    return list(resources)  # type: ignore[call-overload]


def _users(m: CpsatModel, resource: str) -> list[tuple[object, int, object]]:
    """(interval, amount, presence) of every mode using ``resource`` with a positive duration."""
    out = []
    for a in m.instance.activities:
        for k, mode in enumerate(a.modes, start=1):
            amount = next((u.amount for u in mode.uses if u.resource == resource), 0)
            if amount and mode.duration > 0:
                out.append((m.intervals[(a.name, k)], amount, m.present[(a.name, k)]))
    return out


@encoder(PrecedenceLag)
def precedence(m: CpsatModel, c: PrecedenceLag) -> None:
    """``S_b ≥ E_a + lag``; soft: one penalty unit per broken edge."""
    for e in c.edges:
        if c.hard:
            m.model.Add(m.start[e.after] >= m.end[e.before] + e.lag)
        else:
            broken = m.model.NewBoolVar(f"broken_{e.before}_{e.after}")
            m.model.Add(m.start[e.after] >= m.end[e.before] + e.lag).OnlyEnforceIf(broken.Not())
            m.penalize(c, broken)


@encoder(UnaryNoOverlap)
def unary(m: CpsatModel, c: UnaryNoOverlap) -> None:
    """``AddNoOverlap`` over the (optional) intervals using each unary resource."""
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    for resource in _scope(m, c.resources, "unary"):
        m.model.AddNoOverlap([interval for interval, _amount, _present in _users(m, resource)])


@encoder(CumulativeRenewable)
def cumulative(m: CpsatModel, c: CumulativeRenewable) -> None:
    """``AddCumulative`` with each mode's demand; optional intervals count only when chosen."""
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    for resource in _scope(m, c.resources, "renewable"):
        users = _users(m, resource)
        m.model.AddCumulative([u[0] for u in users], [u[1] for u in users], m.ctx.resources[resource].capacity)


@encoder(NonrenewableBudget)
def budget(m: CpsatModel, c: NonrenewableBudget) -> None:
    """``Σ_a q_{a,r}(mode_a) ≤ B_r`` as a linear constraint over the mode literals."""
    for resource in _scope(m, c.resources, "nonrenewable"):
        used = []
        total = 0
        for a in m.instance.activities:
            for k, mode in enumerate(a.modes, start=1):
                amount = next((u.amount for u in mode.uses if u.resource == resource), 0)
                if amount:
                    used.append(amount * m.present[(a.name, k)])
                    total += amount
        m.bounded(c, sum(used), None, m.ctx.resources[resource].capacity, total)


@encoder(ModeChoice)
def mode_choice(m: CpsatModel, c: ModeChoice) -> None:
    """Exactly one mode per activity: built into the variables (one presence literal is true)."""
