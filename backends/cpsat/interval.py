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
    return [(m.intervals[(name, k)], amount, m.present[(name, k)])
            for name, k, mode, amount in m.users.get(resource, ()) if mode.duration > 0]


@encoder(PrecedenceLag)
def precedence(m: CpsatModel, c: PrecedenceLag) -> None:
    """``S_b ≥ E_a + lag``; soft: one penalty unit per broken edge."""
    for e in c.edges:
        if c.hard:
            m.model.add(m.start[e.after] >= m.end[e.before] + e.lag)
        else:
            broken = m.model.new_bool_var(f"broken_{e.before}_{e.after}")
            m.model.add(m.start[e.after] >= m.end[e.before] + e.lag).only_enforce_if(broken.Not())
            m.penalize(c, broken)


@encoder(UnaryNoOverlap)
def unary(m: CpsatModel, c: UnaryNoOverlap) -> None:
    """``AddNoOverlap`` over the (optional) intervals using each unary resource."""
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    for resource in _scope(m, c.resources, "unary"):
        m.model.add_no_overlap([interval for interval, _amount, _present in _users(m, resource)])


@encoder(CumulativeRenewable)
def cumulative(m: CpsatModel, c: CumulativeRenewable) -> None:
    """``AddCumulative`` with each mode's demand; optional intervals count only when chosen."""
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    for resource in _scope(m, c.resources, "renewable"):
        users = _users(m, resource)
        m.model.add_cumulative([u[0] for u in users], [u[1] for u in users], m.ctx.resources[resource].capacity)


@encoder(NonrenewableBudget)
def budget(m: CpsatModel, c: NonrenewableBudget) -> None:
    """``Σ_a q_{a,r}(mode_a) ≤ B_r`` as a linear constraint over the mode literals."""
    for resource in _scope(m, c.resources, "nonrenewable"):
        users = m.users.get(resource, ())
        used = sum(amount * m.present[(name, k)] for name, k, _mode, amount in users)
        m.bounded(c, used, None, m.ctx.resources[resource].capacity, sum(u[3] for u in users))


@encoder(ModeChoice)
def mode_choice(m: CpsatModel, c: ModeChoice) -> None:
    """Exactly one mode per activity: built into the variables (one presence literal is true)."""
