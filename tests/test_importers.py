"""Importer facts checked against the family references (shared/reference/*.md)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from schedc.core.diagnostics import SchedcError
from schedc.importers import import_paths, read_bks
from schedc.importers.inrc2010 import complete_weekend_table
from schedc.ir import Instance
from schedc.kinds import (
    AssignmentCost,
    AttrRef,
    ConsecutiveRunBounds,
    CountBounds,
    Coverage,
    PatternProhibition,
    PrecedenceLag,
    SlotConflict,
    WindowPatternCost,
)
from tests.conftest import DATA, shared_or_skip


def one(fmt: str, path: Path, **kw: object) -> Instance:
    """Import one file with the nearest bks.csv of its family folder."""
    bks = next((p / "bks.csv" for p in path.parents if (p / "bks.csv").exists()), None)
    return import_paths(fmt, [path], bks, **kw)[0]  # type: ignore[arg-type]


def constraint(instance: Instance, cid: str):
    return next(c for c in instance.constraints if c.id == cid)


def test_ft06_facts() -> None:
    inst = one("jsplib", DATA / "jsplib" / "ft06.txt")
    assert inst.family == "jobshop" and len(inst.activities) == 36 and len(inst.resources) == 6
    first = inst.activities[0]
    # job 0 of the file starts on machine 2 (0-based) for 1 time unit: canonical Job 1 step 1 on Machine 3
    assert (first.name, first.job, first.step) == ("J1.1", "J1", 1)
    assert first.modes[0].duration == 1 and first.modes[0].uses[0].resource == "M3"
    routes = constraint(inst, "routes")
    assert isinstance(routes, PrecedenceLag) and len(routes.edges) == 6 * 5
    assert (inst.meta.bks, inst.meta.bks_kind, inst.meta.difficulty) == (55, "optimal", "easy")


def test_taillard_layout_gives_the_same_instance(tmp_path: Path) -> None:
    standard = one("jsplib", DATA / "jsplib" / "ft06.txt")
    lines = (DATA / "jsplib" / "ft06.txt").read_text().split("\n")
    n, m = map(int, lines[0].split())
    rows = [list(map(int, line.split())) for line in lines[1:1 + n]]
    taillard = ["Nb of jobs, Nb of Machines, Time seed, Machine seed, Upper bound, Lower bound",
                f"{n} {m} 0 0 55 55", "Times"] + [" ".join(map(str, r[1::2])) for r in rows] + ["Machines"]
    taillard += [" ".join(str(x + 1) for x in r[0::2]) for r in rows]
    path = tmp_path / "ft06.txt"
    path.write_text("\n".join(taillard) + "\n")
    converted = one("jsplib", path)
    assert converted.activities == standard.activities
    assert (converted.meta.bks, converted.meta.bks_kind) == (55, "optimal")  # bounds from the header


def test_fjsp_facts() -> None:
    mk01 = one("fjsp", DATA / "fjsp" / "brandimarte" / "Mk01.fjs")
    assert mk01.name == "mk01" and mk01.meta.bks == 40
    assert len(mk01.resources) == 6 and len({a.job for a in mk01.activities}) == 10
    assert any(len(a.modes) > 1 for a in mk01.activities)
    la01 = one("fjsp", DATA / "fjsp" / "hurink" / "edata" / "la01.fjs")
    assert la01.name == "la01_edata" and la01.meta.bks == 609


def test_j301_1_facts() -> None:
    inst = one("psplib-sm", DATA / "psplib-sm" / "j301_1.sm")
    assert inst.family == "rcpsp" and len(inst.activities) == 30
    assert [(r.name, r.kind, r.capacity) for r in inst.resources] == [
        ("R1", "renewable", 12), ("R2", "renewable", 13), ("R3", "renewable", 4), ("R4", "renewable", 12)]
    assert all(len(a.modes) == 1 for a in inst.activities)
    names = {a.name for a in inst.activities}
    edges = constraint(inst, "precedence").edges
    assert all(e.before in names and e.after in names for e in edges)  # dummies are not carried
    assert inst.meta.bks == 43 and inst.horizon == 158


def test_j102_2_facts() -> None:
    inst = one("psplib-mm", DATA / "psplib-mm" / "j102_2.mm")
    assert inst.family == "mrcpsp" and len(inst.activities) == 10
    assert [(r.name, r.kind) for r in inst.resources] == [
        ("R1", "renewable"), ("R2", "renewable"), ("N1", "nonrenewable"), ("N2", "nonrenewable")]
    assert all(len(a.modes) == 3 for a in inst.activities)
    kinds = [type(c).__struct_config__.tag for c in inst.constraints]
    assert kinds == ["precedence_lag", "cumulative_renewable", "nonrenewable_budget", "mode_choice"]


def test_comp01_facts() -> None:
    inst = one("itc2007", DATA / "itc2007" / "comp01.ctt")
    by_cls: dict[str, int] = {}
    for e in inst.entities:
        by_cls[e.cls] = by_cls.get(e.cls, 0) + 1
    assert by_cls == {"course": 30, "room": 6, "curriculum": 14}
    assert inst.calendar is not None and (inst.calendar.days, inst.calendar.periods_per_day) == (5, 6)
    assert len(constraint(inst, "availability").slots) == 53
    lectures = constraint(inst, "lectures")
    assert isinstance(lectures, CountBounds) and lectures.min == AttrRef(attr="lectures") == lectures.max
    conflicts = constraint(inst, "conflicts")
    assert isinstance(conflicts, SlotConflict) and (conflicts.groups, conflicts.by) == ("curriculum", "teacher")
    weights = {c.id: c.weight for c in inst.constraints if not c.hard}
    assert weights == {"room_capacity": 1, "min_working_days": 5, "curriculum_compactness": 2, "room_stability": 1}


def test_sprint01_facts() -> None:
    inst = one("inrc2010", DATA / "inrc2010" / "sprint01.xml")
    assert inst.calendar is not None and inst.calendar.days == 28
    assert inst.calendar.start_date == dt.date(2010, 1, 1) and inst.calendar.weekday(0) == "Friday"
    assert sum(e.cls == "employee" for e in inst.entities) == 10
    assert [e.name for e in inst.entities if e.cls == "shift"] == ["E", "L", "D", "N"]
    cover = constraint(inst, "cover")
    assert isinstance(cover, Coverage) and cover.complete
    assert all(r.min == r.max for r in cover.requirements)
    # every rule of contract 0 applies to the employees holding it
    rules = [c for c in inst.constraints if c.id.startswith("c0_")]
    assert rules and all(c.agents.where == (("contract", "0"),) for c in rules)  # type: ignore[attr-defined]
    assert all(c.active for c in inst.constraints)  # the plain track has no unscored rule switched on
    requests = [c for c in inst.constraints if isinstance(c, AssignmentCost) and c.id.endswith("requests")]
    assert {c.id for c in requests} == {"day_off_requests", "shift_off_requests"}


def test_inrc_late_track_carries_unscored_rules_inactive() -> None:
    inst = one("inrc2010", shared_or_skip("inrc2010", "sprint_late01.xml"))
    inactive = [c for c in inst.constraints if not c.active]
    assert inactive and all(isinstance(c, PatternProhibition) and c.reason for c in inactive)
    assert all("no_night_shift_before_free_weekend" in c.id for c in inactive)


def test_inrc_weekend_rules_follow_the_definition() -> None:
    inst = one("inrc2010", DATA / "inrc2010" / "sprint01.xml")
    windows = [c for c in inst.constraints if isinstance(c, WindowPatternCost | ConsecutiveRunBounds)
               and c.id.endswith(("weekends", "weekend"))]
    assert windows
    assert complete_weekend_table(2)[0].pattern == "WF"
    three = {p.pattern: p.cost for p in complete_weekend_table(3)}
    # the reference's table for Friday-Sunday weekends (W F W costs 4)
    assert three == {"WF": 1, "FW": 1, "WWF": 1, "FWW": 1, "WFF": 2, "FFW": 2, "FWF": 2, "WFW": 4}


def test_nsplib_pair_facts() -> None:
    inst = one("nsplib", DATA / "nsplib" / "N25" / "1.nsp", cases=[DATA / "nsplib" / "Cases" / "1.gen"])
    assert inst.name == "n25_1_case1"
    assert sum(e.cls == "nurse" for e in inst.entities) == 25
    assert [e.name for e in inst.entities if e.cls == "shift"] == ["S1", "S2", "S3", "Off"]
    assert inst.calendar is not None and inst.calendar.days == 7
    prefs = constraint(inst, "preferences")
    assert isinstance(prefs, AssignmentCost) and len(prefs.entries) == 25 * 7 * 4
    # case 1 fixes exactly five working days
    working = constraint(inst, "working_count")
    assert isinstance(working, CountBounds) and (working.min, working.max) == (5, 5)


def test_nsplib_needs_a_case() -> None:
    with pytest.raises(SchedcError, match="--case"):
        import_paths("nsplib", [DATA / "nsplib" / "N25" / "1.nsp"])


def test_bks_table_is_read(tmp_path: Path) -> None:
    table = read_bks(DATA / "jsplib" / "bks.csv")
    assert table["la01"].bks == 666
    bad = tmp_path / "bks.csv"
    bad.write_text("name,value\n")
    with pytest.raises(SchedcError) as exc:
        read_bks(bad)
    assert exc.value.diagnostics[0].code == "I902"


def test_a_bad_file_among_many_writes_nothing(tmp_path: Path) -> None:
    from schedc.pipeline.files import import_sources

    bad = tmp_path / "bad.txt"
    bad.write_text("2 2\n0 1 1 1\n0 x 1 1\n")
    out = tmp_path / "out"
    with pytest.raises(SchedcError) as exc:
        import_sources("jsplib", [DATA / "jsplib" / "ft06.txt", bad], out)
    assert exc.value.diagnostics[0].span is not None and exc.value.diagnostics[0].span.line == 3
    assert not out.exists()


def test_the_inrc_reader_is_split_into_modules_under_500_lines() -> None:
    """Records, positioned XML access, contracts and the entry point each stay small; old imports still work."""
    from schedc.importers import inrc2010_contracts, inrc2010_reader, inrc2010_records, inrc2010_xml

    for module in (inrc2010_reader, inrc2010_records, inrc2010_xml, inrc2010_contracts):
        lines = Path(module.__file__).read_text(encoding="utf-8").count("\n")
        assert lines <= 500, (module.__name__, lines)
    for name in inrc2010_reader.__all__:
        assert getattr(inrc2010_reader, name) is getattr(inrc2010_records, name, getattr(inrc2010_reader, name))
    assert inrc2010_reader.InrcContract is inrc2010_records.InrcContract
    assert inrc2010_reader.read_contracts is inrc2010_contracts.read_contracts


# ------------------------------------------------------------------ PSPLIB project information


def project_row(path: Path) -> dict[str, int]:
    """The PROJECT INFORMATION row read straight from the file (independent of the reader)."""
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("PROJECT INFORMATION"))
    keys, values = lines[at + 1].split(), [int(v) for v in lines[at + 2].split()]
    return dict(zip(keys, values, strict=True))


@pytest.mark.parametrize(("fmt", "parts", "makespan"), [("psplib-sm-due", ("psplib-sm", "j301_1.sm"), 43),
                                                       ("psplib-mm-due", ("psplib-mm", "j102_2.mm"), 20)])
def test_psplib_project_information_is_carried(fmt: str, parts: tuple[str, ...], makespan: int) -> None:
    import schedc
    from schedc.kinds import TimeWindow

    path = DATA.joinpath(*parts)
    row = project_row(path)
    plain = one(fmt.removesuffix("-due"), path)
    inst = one(fmt, path)
    n = len(plain.activities)
    end = f"A{n + 1}"
    assert inst.name == f"{plain.name}_due" and inst.objective.measure == "tardiness"
    assert inst.meta.bks is None  # the best known makespan is not a tardiness cost
    assert [a.name for a in inst.activities] == [a.name for a in plain.activities] + [end]
    assert [(m.duration, m.uses) for m in inst.activities[-1].modes] == [(0, ())]
    (window,) = constraint(inst, "project").windows
    assert isinstance(constraint(inst, "project"), TimeWindow) and row["rel.date"] == 0
    assert (window.target, window.due, window.weight) == (end, row["duedate"], row["tardcost"])
    # every activity without a successor now precedes the milestone, so its end is the makespan
    edges = constraint(inst, "precedence").edges
    has_successor = {e.before for e in constraint(plain, "precedence").edges}
    assert {e.before for e in edges if e.after == end} == {a.name for a in plain.activities} - has_successor
    # tardiness is tardcost · max(0, C − due), increasing in the makespan C: its optimum comes from the optimal makespan
    solved = schedc.solve(inst, time_limit=30, workers=1)
    assert solved.status == "optimal"
    assert solved.objective == row["tardcost"] * max(0, makespan - row["duedate"])


def test_psplib_project_information_missing_is_a_positioned_error(tmp_path: Path) -> None:
    text = (DATA / "psplib-sm" / "j301_1.sm").read_text()
    start = text.index("PROJECT INFORMATION")
    cut = text[:start] + text[text.index("*****", start):]
    path = tmp_path / "noinfo.sm"
    path.write_text(cut)
    assert one("psplib-sm", path).name == "noinfo"  # the plain import does not need it
    with pytest.raises(SchedcError) as err:
        one("psplib-sm-due", path)
    assert "I316" in str(err.value) and "noinfo.sm" in str(err.value) and "PROJECT INFORMATION" in str(err.value)
