"""The skill kinds (issue 28): ``skill_eligibility`` and ``skill_demand``.

Each kind's ``check`` against the formal meaning of its docstring (violation records and amounts on
hand-built schedules), the semantic pass's refusals, a differential test in which CP-SAT, Pyomo/HiGHS
and ``check`` judge small random instances (optima and fixed-decision verdicts), INRC-2010's
alternative skill category against the cost table it was imported as before, and the rendering.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from schedc.backends import cpsat
from schedc.backends import pyomo as milp
from schedc.backends.cpsat.solve import fixed_verdict as cpsat_verdict
from schedc.backends.pyomo.solve import fixed_verdict as milp_verdict
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Assignment, Solution
from schedc.importers import import_paths
from schedc.ir import Family, Instance
from schedc.kinds import AssignmentCost, CostEntry, SkillEligibility
from schedc.kinds.context import EvalContext, View
from schedc.kinds.costs import ANY_DAY
from schedc.lang.family import load_family
from schedc.lang.parser import parse_instance_text
from schedc.render import render
from schedc.verify.evaluate import evaluate, make_context
from tests.conftest import ROOT, SHARED

KINDS = "one_per_slot coverage count_bounds skill_eligibility skill_demand"


def family_text(grain: str) -> str:
    """A call-centre family: agents list the skills they have, shifts (``skills``) or desks (``needs``) the
    skills they require."""
    return f"""family call_{grain} {{
  title "Call centre roster"
  structure slot
  objective penalty
  kinds [{KINDS}]
  class agent (team:name skills:names)
  class shift (skills:names needs:names)
  decision agent=agent value=shift grain={grain}
  answer "<agent>|<day>|<value>"
  roles [agent "agent" shift "shift" skill "skill"]
  background \"\"\"
    Agents are given shifts.
  \"\"\"
}}
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("call")
    for grain in ("day", "period"):
        (out / f"call_{grain}.sched").write_text(family_text(grain), encoding="utf-8")
    return out


AGENTS = ("Ann red Phone,Senior", "Bob red Phone", "Cid blue -", "Dee blue Senior,Chat")
SHIFTS = ("E - -", "N Phone Chat", "X Phone,Senior -")


def call(folder: Path, rules: str, days: int = 3, periods: int = 1, agents: tuple[str, ...] = AGENTS) -> Instance:
    """An instance of the call-centre family; ``periods`` > 1 uses the period-grained family."""
    grain = "period" if periods > 1 else "day"
    calendar = f"calendar days={days}" + (f" periods_per_day={periods}" if periods > 1 else "")
    text = "\n".join([f"instance t family call_{grain}", calendar, "shift (skills needs) table",
                      *(f"  {s}" for s in SHIFTS), "end", "agent (team skills) table", *(f"  {a}" for a in agents),
                      "end", rules, "minimize penalty", ""])
    return parse_instance_text(text, search=[folder])


def family_of(folder: Path, instance: Instance) -> Family:
    return load_family(instance.family, [folder])


def on(*items: str) -> Solution:
    """Assignments written ``"agent day value"`` or ``"agent day period value"``."""
    out = []
    for item in items:
        parts = item.split()
        agent, day, period, value = (parts[0], parts[1], "0", parts[2]) if len(parts) == 3 else parts
        out.append(Assignment(agent, int(day), int(period), value))
    return Solution(assignments=tuple(out))


def records(folder: Path, instance: Instance, solution: Solution, cid: str = "c") -> list[tuple[int, str]]:
    ev = evaluate(make_context(instance, family_of(folder, instance)), solution)
    return [(v.amount, v.message) for v in (*ev.violations, *ev.penalties) if v.constraint == cid]


# ============================================================================ skill_eligibility


def test_eligibility_one_violation_per_assignment_lacking_a_required_skill(folder: Path) -> None:
    inst = call(folder, "hard skill_eligibility c agents=agent")
    # E requires nothing (open to all); N requires Phone; X requires Phone and Senior
    assert records(folder, inst, on("Cid 0 E", "Bob 0 N", "Ann 1 X", "Dee 1 E")) == []
    found = records(folder, inst, on("Cid 0 N", "Bob 1 X", "Cid 2 X", "Dee 2 N"))
    assert [amount for amount, _ in found] == [1, 1, 1, 1]
    assert "without the required skill Phone" in found[0][1]
    assert "without the required skill Senior" in found[1][1]  # Bob has Phone: only Senior is missing
    assert "without the required skills Phone, Senior" in found[2][1]  # two missing: still one unit


def test_eligibility_counts_an_assignment_written_twice_once(folder: Path) -> None:
    inst = call(folder, "soft 4 skill_eligibility c agents=agent")
    ev = evaluate(make_context(inst, family_of(folder, inst)), on("Cid 0 N", "Cid 0 N", "Cid 1 N"))
    assert ev.components["c"] == 4 * 2 and ev.feasible


def test_eligibility_selects_agents_and_reads_the_named_attributes(folder: Path) -> None:
    only = call(folder, "hard skill_eligibility c agents=agent[team=red]")
    assert records(folder, only, on("Cid 0 N", "Bob 0 X")) == [(1, records(folder, only, on("Bob 0 X"))[0][1])]
    needs = call(folder, "hard skill_eligibility c agents=agent requires=needs")  # N needs Chat, X nothing
    assert [a for a, _ in records(folder, needs, on("Ann 0 N", "Dee 1 N", "Cid 2 X"))] == [1]


@pytest.mark.parametrize(("rule", "message"), [
    ("hard skill_eligibility c agents=agent skills=team", "reads the skills each agent has from its list "
                                                          "attribute 'team', which class agent does not have"),
    ("hard skill_eligibility c agents=agent requires=cost", "list attribute 'cost', which class shift"),
    ("hard skill_eligibility c agents=shift", "holds no assignments"),
])
def test_eligibility_rejects_what_it_cannot_read(folder: Path, rule: str, message: str) -> None:
    with pytest.raises(SchedcError) as caught:
        call(folder, rule)
    assert any(message in d.message and d.code == "E209" for d in caught.value.diagnostics)


# ============================================================================ skill_demand


@pytest.mark.parametrize(("row", "solution", "expected"), [
    ("0 N Senior 1 -", ("Ann 0 N",), []),
    ("0 N Senior 1 -", ("Bob 0 N", "Cid 0 N"), [1]),  # two on N, none a senior: the unskilled do not count
    ("0 N Senior 2 -", ("Ann 0 N", "Bob 0 N"), [1]),
    ("0 N Senior - 1", ("Ann 0 N", "Dee 0 N", "Bob 0 N"), [1]),
    ("0 N Senior 1 1", ("Ann 0 N", "Dee 0 N"), [1]),
    ("0 N Senior 0 0", ("Ann 0 N", "Dee 0 N"), [2]),
    ("0 N Phone 1 2", ("Ann 0 N", "Bob 0 N"), []),
    ("0 N Phone 1 2", ("Ann 0 X", "Bob 1 N"), [1]),  # another value and another day do not count
])
def test_demand_counts_only_agents_with_the_skill(folder: Path, row: str, solution: tuple[str, ...],
                                                    expected: list[int]) -> None:
    inst = call(folder, f"hard skill_demand c table\n  {row}\nend")
    assert [a for a, _ in records(folder, inst, on(*solution))] == expected


def test_demand_day_rows_count_every_period_and_period_rows_one(folder: Path) -> None:
    inst = call(folder, "hard skill_demand c table\n  0 N Senior 2 -\n  1 1 N Senior 1 -\nend", periods=2)
    assert records(folder, inst, on("Ann 0 0 N", "Ann 0 1 N", "Dee 1 1 N")) == []
    found = records(folder, inst, on("Ann 0 0 N", "Dee 1 0 N"))
    assert [a for a, _ in found] == [1, 1]
    assert "N on day 0 has 1 assigned with the skill Senior, needs at least 2" in found[0][1]


def test_demand_a_row_is_one_record_of_deficit_plus_excess_and_soft_weights_it(folder: Path) -> None:
    inst = call(folder, "soft 3 skill_demand c table\n  0 N Senior 3 -\n  1 N Phone - 0\nend")
    ev = evaluate(make_context(inst, family_of(folder, inst)), on("Ann 1 N", "Bob 1 N"))
    assert [v.amount for v in ev.penalties] == [3, 2] and ev.components["c"] == 3 * 5


@pytest.mark.parametrize(("rows", "code", "message"), [
    ("0 N Senoir 1 -", "E202", "no agent has the skill 'Senoir'"),
    ("0 Q Senior 1 -", "E202", "undefined shift 'Q'"),
    ("5 N Senior 1 -", "E208", "day 5 is outside the calendar"),
    ("0 N Senior 2 1", "E210", "min 2 is greater than max 1"),
    ("0 N Senior - -", "E210", "give min=, max= or both"),
])
def test_demand_rows_are_checked_where_written(folder: Path, rows: str, code: str, message: str) -> None:
    with pytest.raises(SchedcError) as caught:
        call(folder, f"hard skill_demand c table\n  0 X Phone 1 -\n  {rows}\nend")
    [diagnostic] = caught.value.diagnostics
    assert diagnostic.code == code and message in diagnostic.message
    assert diagnostic.span is not None and diagnostic.span.column == 3  # the row, not the statement


def test_demand_row_of_the_wrong_length_is_a_positioned_error(folder: Path) -> None:
    with pytest.raises(SchedcError) as caught:
        call(folder, "hard skill_demand c table\n  0 N 1 -\nend")
    assert "expected 'day value skill min max' or 'day period value skill min max', found 4 cells" \
        in caught.value.diagnostics[0].message


# ============================================================================ CP-SAT, HiGHS and check agree


def random_instance(folder: Path, rng: random.Random) -> Instance:
    """A random call-centre instance: 3–4 agents with random skills, 2–3 days (1–2 periods), coverage
    minimums, a hard or soft eligibility over some agents and skill demands in random forms."""
    days, periods = rng.randint(2, 3), rng.choice((1, 1, 2))
    pool = ("Phone", "Senior", "Chat")
    skills = [[s for s in pool if rng.random() < 0.5] or ([] if k else [rng.choice(pool)])
              for k in range(rng.randint(3, 4))]  # the first agent has a skill: some row can name it
    agents = tuple(f"A{k} {rng.choice(('red', 'blue'))} {','.join(own) or '-'}" for k, own in enumerate(skills))
    held = sorted({s for own in skills for s in own})
    rules = ["hard one_per_slot once"]
    cover = [f"{d} {p} {v} {rng.randint(0, 2)} -" if periods > 1 else f"{d} {v} {rng.randint(0, 2)} -"
             for d in range(days) for p in range(periods) for v in ("E", "N") if rng.random() < 0.6]
    if cover:
        rules += ["hard coverage cover table", *(f"  {row}" for row in cover), "end"]
    head = "hard" if rng.random() < 0.4 else f"soft {rng.randint(1, 4)}"
    team = rng.choice(("agent", "agent[team=red]", "agent[A0,A2]"))
    rules.append(f"{head} skill_eligibility elig agents={team}" + (" requires=needs" if rng.random() < 0.3 else ""))
    needs: dict[str, str] = {}  # one row per (slot, value, skill)
    for _ in range(rng.randint(1, 3)):
        lo = rng.choice(("-", "0", "1", "2"))
        hi = rng.choice(("1", "2")) if lo == "-" else rng.choice(("-", lo, str(int(lo) + 1)))
        slot = f"{rng.randrange(days)}" + (f" {rng.randrange(periods)}" if periods > 1 and rng.random() < 0.5 else "")
        key = f"{slot} {rng.choice(('N', 'X', 'E'))} {rng.choice(held)}"
        needs[key] = f"  {key} {lo} {hi}"
    head = "hard" if rng.random() < 0.5 else f"soft {rng.randint(1, 4)}"
    rules += [f"{head} skill_demand demand table", *needs.values(), "end"]
    if rng.random() < 0.5:
        rules.append(f"soft 1 count_bounds load agents=agent max={rng.randint(1, days * periods)}")
    return call(folder, "\n".join(rules), days=days, periods=periods, agents=agents)


def random_answer(ctx: EvalContext, rng: random.Random) -> Solution:
    return Solution(assignments=tuple(Assignment(a, d, p, rng.choice(ctx.values)) for a in ctx.agents
                                      for d in range(ctx.days) for p in range(ctx.periods) if rng.random() < 0.6))


def test_cpsat_highs_and_check_agree_on_random_instances(folder: Path) -> None:
    """40 random instances: both backends prove the same optimum (or both infeasibility), each answer
    verifies with that objective and those components; on 3 random answers per instance the models with
    every decision fixed give check's verdict, objective and components."""
    rng = random.Random(28)
    disagreements: list[str] = []
    statuses: list[str] = []
    for k in range(40):
        instance = random_instance(folder, rng)
        family = family_of(folder, instance)
        ctx = make_context(instance, family)
        a = cpsat.solve(instance, family, cpsat.SolveOptions(time_limit=10, workers=1, seed=1))
        b = milp.solve(instance, family, milp.SolveOptions(time_limit=10, workers=1, seed=1))
        statuses.append(a.status)
        if (a.status, a.objective) != (b.status, b.objective) or a.status not in ("optimal", "infeasible"):
            disagreements.append(f"{k}: cpsat {a.status} {a.objective}, highs {b.status} {b.objective}")
        for result in (a, b):
            if result.solution is not None:
                ev = evaluate(ctx, result.solution)
                if not ev.feasible or ev.objective != result.objective:
                    disagreements.append(f"{k}: {result.backend} answer checks {ev.feasible} {ev.objective}")
        for _ in range(3):
            answer = random_answer(ctx, rng)
            ev = evaluate(ctx, answer)
            truth = (ev.feasible, ev.objective if ev.feasible else None,
                     {c: v for c, v in ev.components.items() if v} if ev.feasible else {})
            for name, verdict in (("cpsat", cpsat_verdict), ("highs", milp_verdict)):
                feasible, objective, components = verdict(instance, family, answer)
                got = (feasible, objective if feasible else None,
                       {c: v for c, v in components.items() if v} if feasible else {})
                if got != truth:
                    disagreements.append(f"{k}: fixed {name} {got} != check {truth}")
    assert not disagreements, "\n".join(disagreements[:10])
    assert statuses.count("optimal") >= 20 and "infeasible" in statuses  # both outcomes are exercised


# ============================================================================ INRC-2010's alternative skill


def old_cost_table(instance: Instance, c: SkillEligibility) -> AssignmentCost:
    """The alternative skill category as it was imported before: one cost-1 entry per (nurse, shift) with a
    required skill the nurse lacks, on every day (``*``)."""
    skills = {(e.cls, e.name): set(e.attrs.get("skills", ())) for e in instance.entities}
    nurses = [e.name for e in instance.entities if e.cls == "employee" and all(
        str(e.attrs.get(k)) == v for k, v in c.agents.where)]
    shifts = [e.name for e in instance.entities if e.cls == "shift"]
    entries = tuple(CostEntry(agent=n, day=ANY_DAY, value=s, cost=1) for n in nurses for s in shifts
                    if not skills[("shift", s)] <= skills[("employee", n)])
    return AssignmentCost(id=c.id, hard=False, weight=c.weight, entries=entries)


@pytest.mark.parametrize("name", ["long_hint01", "long_late01"])
def test_inrc_alternative_skill_costs_what_its_cost_table_cost(name: str) -> None:
    """On random rosters of the instances whose contracts switch AlternativeSkillCategory on, the soft
    ``skill_eligibility`` of each contract scores exactly what the imported cost table scored
    (tests/test_official_costs.py holds the official evaluator's totals)."""
    path = SHARED / "inrc2010" / f"{name}.xml"
    if not path.exists():
        pytest.skip(f"{path} not available")
    [instance] = import_paths("inrc2010", [path])
    rules = [c for c in instance.constraints if isinstance(c, SkillEligibility)]
    assert rules and all(not c.hard and c.id.endswith("_alternative_skill_category") for c in rules)
    ctx = make_context(instance)
    rng = random.Random(5)
    scored = 0
    for _ in range(5):
        view = View(ctx, random_answer(ctx, rng))
        for c in rules:
            new = sum(v.amount for v in c.check(ctx, view))
            old = sum(v.amount for v in old_cost_table(instance, c).check(ctx, view))
            assert new == old
            scored += new
    assert scored > 0


# ============================================================================ rendering


def test_renderings_state_both_rules_and_no_longer_call_skills_information(folder: Path) -> None:
    inst = call(folder, "hard skill_eligibility elig agents=agent[team=red]\n"
                        "soft 2 skill_demand dem table\n  1 N Senior 1 -\nend")
    family = family_of(folder, inst)
    for variant in ("v1", "v3b", "v4"):
        rendering = render(inst, family, variant, 42)
        text = rendering.text()
        assert "A skill is information" not in text and "skills either is listed with" not in text
        claims = {r.claim.constraint: r.text[0] for r in rendering.claims}
        team = rendering.names.get("team:red") or rendering.names.get("red", "red")
        assert "may" in claims["elig"] and team in claims["elig"]
        assert "at least 1 agent with" in claims["dem"] and "day 1" in claims["dem"] and "2" in claims["dem"]
    v1 = render(inst, family, "v1", 42).text()
    assert "Agent Cid: team blue; skills none." in v1 and "skill Senior on shift N on day 1" in v1


def test_inrc_renderings_state_the_alternative_skill_rule_with_its_contract() -> None:
    """The imported form (``soft W skill_eligibility … agents=employee[contract=K]``) is stated with its contract,
    in every variant, and the skills statement no longer says that skills are information only."""
    text = (ROOT / "examples" / "inrc2010_small.sched").read_text(encoding="utf-8")
    text = text.replace("  L 14:30:00 22:30:00 Nurse Late", "  L 14:30:00 22:30:00 Senior Late")
    text = text.replace("minimize penalty", "soft 2 skill_eligibility full_alternative_skill_category "
                                            "agents=employee[contract=full]\nminimize penalty")
    instance = parse_instance_text(text)
    family = load_family("inrc2010")
    for variant in ("v1", "v2", "v3a", "v3b", "v4"):
        rendering = render(instance, family, variant, 8)
        [sentence] = [r.text[0] for r in rendering.claims if r.claim.kind == "skill_eligibility"]
        assert "should" in sentence and "2" in sentence
        contract = next(s.text for s in rendering.statements if sentence in s.text)
        assert contract.startswith(("Contract", "Under contract")) or "contract" in contract.split(".")[0].lower()
        assert "information, not a rule" not in rendering.text() and "nothing forbids" not in rendering.text()
