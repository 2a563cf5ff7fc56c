"""Tests of the raw PSPLIB (.sm/.mm) and ITC-2007 (.ctt) readers.

Facts about real instances come from shared/reference/psplib-sm.md, psplib-mm.md and
itc2007.md; those tests skip when /work/shared/data is absent. Malformed inputs are small
synthetic files written to tmp_path, so they always run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedc.core.diagnostics import Diagnostic, SchedcError
from schedc.importers.itc2007_reader import CttData, read_ctt
from schedc.importers.psplib_reader import Mode, PsplibData, read_psplib

DATA = Path("/work/shared/data")

# A tiny multi-mode instance in PSPLIB layout: 5 jobs (3 real), 1 renewable + 1 nonrenewable.
PSP_MM = """\
************************************************************************
file with basedata            : tiny.bas
initial value random generator: 7
************************************************************************
projects                      :  1
jobs (incl. supersource/sink ):  5
horizon                       :  20
RESOURCES
  - renewable                 :  1   R
  - nonrenewable              :  1   N
  - doubly constrained        :  0   D
************************************************************************
PROJECT INFORMATION:
pronr.  #jobs rel.date duedate tardcost  MPM-Time
    1      3      0       10        2       9
************************************************************************
PRECEDENCE RELATIONS:
jobnr.    #modes  #successors   successors
   1        1          2           2   3
   2        2          1           4
   3        2          1           5
   4        1          1           5
   5        1          0
************************************************************************
REQUESTS/DURATIONS:
jobnr. mode duration  R 1  N 1
------------------------------------------------------------------------
  1      1     0       0    0
  2      1     3       2    4
         2     5       1    2
  3      1     4       3    1
         2     6       2    0
  4      1     2       1    3
  5      1     0       0    0
************************************************************************
RESOURCEAVAILABILITIES:
  R 1  N 1
    4    8
************************************************************************
"""

# The same network with one mode per job, as a .sm file (2 renewable resources).
PSP_SM = """\
************************************************************************
projects                      :  1
jobs (incl. supersource/sink ):  5
horizon                       :  9
RESOURCES
  - renewable                 :  2   R
  - nonrenewable              :  0   N
  - doubly constrained        :  0   D
************************************************************************
PROJECT INFORMATION:
pronr.  #jobs rel.date duedate tardcost  MPM-Time
    1      3      0        7        1        6
************************************************************************
PRECEDENCE RELATIONS:
jobnr.    #modes  #successors   successors
   1        1          2           2   3
   2        1          1           4
   3        1          1           5
   4        1          1           5
   5        1          0
************************************************************************
REQUESTS/DURATIONS:
jobnr. mode duration  R 1  R 2
------------------------------------------------------------------------
  1      1     0       0    0
  2      1     3       2    0
  3      1     4       0    1
  4      1     2       1    1
  5      1     0       0    0
************************************************************************
RESOURCEAVAILABILITIES:
  R 1  R 2
    2    1
************************************************************************
"""

CTT = """\
Name: Tiny
Courses: 3
Rooms: 2
Days: 2
Periods_per_day: 3
Curricula: 2
Constraints: 2

COURSES:
c1 t1 2 1 30
c2 t2 1 1 20
c3 t1 2 2 10

ROOMS:
A 30
B 20

CURRICULA:
q1 2 c1 c2
q2 2 c2 c3

UNAVAILABILITY_CONSTRAINTS:
c1 0 0
c3 1 2

END.
"""


def _write(tmp_path: Path, name: str, text: str, newline: str = "\n") -> Path:
    path = tmp_path / name
    path.write_bytes(text.replace("\n", newline).encode())
    return path


def _line_of(text: str, needle: str) -> int:
    """1-based number of the only line containing ``needle``."""
    hits = [k for k, line in enumerate(text.splitlines(), start=1) if needle in line]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def _error(read: Callable[[Path], object], path: Path, code: str) -> Diagnostic:
    """Read ``path``, expect exactly one diagnostic with ``code`` positioned in ``path``."""
    with pytest.raises(SchedcError) as info:
        read(path)
    (diag,) = info.value.diagnostics
    assert diag.code == code, str(info.value)
    assert diag.file == str(path)
    assert diag.span is not None and diag.span.line >= 1 and diag.span.column >= 1
    return diag


def _line(diag: Diagnostic) -> int:
    assert diag.span is not None
    return diag.span.line


def _needs(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


def _data_files(pattern: str) -> list[Path]:
    return sorted(DATA.glob(pattern)) if DATA.exists() else []


# ----------------------------------------------------------------------------------------------
# PSPLIB: facts from the references


def test_j301_1_matches_reference() -> None:
    data = read_psplib(_needs(DATA / "psplib-sm" / "j30" / "j301_1.sm"))
    assert data.name == "j301_1"
    assert data.n_jobs == 32 and len(data.jobs) == 32
    assert data.horizon == 158
    assert [r.name for r in data.resources] == ["R1", "R2", "R3", "R4"]
    assert {r.kind for r in data.resources} == {"renewable"}
    assert [r.capacity for r in data.resources] == [12, 13, 4, 12]
    (project,) = data.projects
    assert (project.n_jobs, project.release_date, project.due_date, project.tard_cost,
            project.mpm_time) == (30, 0, 38, 26, 38)
    assert data.n_projects == 1 and data.basedata == "j30_17.bas" and data.seed == 28123
    assert data.jobs[0].successors == (2, 3, 4)
    assert data.jobs[1].successors == (6, 11, 15)
    assert data.jobs[1].modes == (Mode(number=1, duration=8, requests=(4, 0, 0, 0)),)
    assert data.jobs[-1].successors == ()
    assert all(len(job.modes) == 1 for job in data.jobs)
    assert data.jobs[0].modes[0].duration == 0 and data.jobs[-1].modes[0].duration == 0


def test_j102_2_matches_reference() -> None:
    data = read_psplib(_needs(DATA / "psplib-mm" / "j10" / "j102_2.mm"))
    assert data.n_jobs == 12
    assert [(r.name, r.kind) for r in data.resources] == [
        ("R1", "renewable"), ("R2", "renewable"), ("N1", "nonrenewable"), ("N2", "nonrenewable")]
    assert [r.capacity for r in data.resources] == [9, 4, 29, 40]
    assert [len(job.modes) for job in data.jobs] == [1] + [3] * 10 + [1]
    assert data.jobs[1].successors == (5, 6)
    assert data.jobs[1].modes == (
        Mode(number=1, duration=3, requests=(6, 0, 9, 0)),
        Mode(number=2, duration=9, requests=(5, 0, 0, 8)),
        Mode(number=3, duration=10, requests=(0, 6, 0, 6)),
    )
    assert data.projects[0].n_jobs == 10


@pytest.mark.parametrize("path", _data_files("psplib-*/j*/*.[sm]m"), ids=lambda p: p.name)
def test_every_psplib_file_reads(path: Path) -> None:
    data = read_psplib(path)
    assert isinstance(data, PsplibData)
    assert [job.number for job in data.jobs] == list(range(1, data.n_jobs + 1))
    for job in data.jobs:
        assert [m.number for m in job.modes] == list(range(1, len(job.modes) + 1))
        assert all(len(m.requests) == len(data.resources) for m in job.modes)
    if path.suffix == ".sm":
        assert all(len(job.modes) == 1 for job in data.jobs)
        assert {r.kind for r in data.resources} == {"renewable"}


def test_psplib_data_present() -> None:
    if not DATA.exists():
        pytest.skip("no shared data")
    assert _data_files("psplib-sm/j*/*.sm") and _data_files("psplib-mm/j*/*.mm")


# ----------------------------------------------------------------------------------------------
# PSPLIB: layout variations


def test_tiny_mm_reads(tmp_path: Path) -> None:
    data = read_psplib(_write(tmp_path, "tiny.mm", PSP_MM))
    assert data.name == "tiny" and data.n_jobs == 5 and data.horizon == 20
    assert [(r.name, r.kind, r.capacity) for r in data.resources] == [
        ("R1", "renewable", 4), ("N1", "nonrenewable", 8)]
    assert data.jobs[2].modes[1] == Mode(number=2, duration=6, requests=(2, 0))
    assert data.jobs[3].successors == (5,)


def test_psplib_variants_read_the_same(tmp_path: Path) -> None:
    reference = read_psplib(_write(tmp_path, "tiny.mm", PSP_MM))
    no_trailing = "\n".join(line.rstrip() for line in PSP_MM.splitlines()) + "\n"
    trailing = "\n".join(line + "   " for line in PSP_MM.splitlines())
    tabs = PSP_MM.replace("  2      1     3       2    4", "\t2\t1\t3\t2\t4")
    compact = PSP_MM.replace("R 1  N 1", "R1 N1")
    for k, text in enumerate([no_trailing, trailing, tabs, compact]):
        sub = tmp_path / str(k)
        sub.mkdir()
        assert read_psplib(_write(sub, "tiny.mm", text)) == reference
    crlf = tmp_path / "crlf"
    crlf.mkdir()
    assert read_psplib(_write(crlf, "tiny.mm", PSP_MM, "\r\n")) == reference


def test_psplib_short_header_without_project_information(tmp_path: Path) -> None:
    lines = PSP_MM.splitlines()
    text = "\n".join(lines[:1] + lines[4:7] + lines[8:12] + lines[16:]) + "\n"
    data = read_psplib(_write(tmp_path, "short.mm", text))
    assert data.projects == () and data.basedata is None and data.seed is None
    assert data.jobs == read_psplib(_write(tmp_path, "tiny.mm", PSP_MM)).jobs


def test_psplib_project_information_subset_of_columns(tmp_path: Path) -> None:
    text = PSP_MM.replace("pronr.  #jobs rel.date duedate tardcost  MPM-Time",
                          "pronr.  #jobs rel.date duedate tardcost").replace(
        "    1      3      0       10        2       9", "    1      3      0       10        2")
    (project,) = read_psplib(_write(tmp_path, "tiny.mm", text)).projects
    assert project.due_date == 10 and project.mpm_time is None


# ----------------------------------------------------------------------------------------------
# PSPLIB: malformed input


def _psp_error(tmp_path: Path, text: str, code: str, name: str = "bad.mm") -> Diagnostic:
    return _error(read_psplib, _write(tmp_path, name, text), code)


def test_psplib_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as info:
        read_psplib(tmp_path / "missing.sm")
    assert info.value.diagnostics[0].code == "I301"


def test_psplib_truncated_file(tmp_path: Path) -> None:
    lines = PSP_MM.splitlines()
    cut = "\n".join(lines[:31]) + "\n"  # stops inside REQUESTS/DURATIONS
    diag = _psp_error(tmp_path, cut, "I304")
    assert diag.span is not None and diag.span.line == 31
    assert "RESOURCEAVAILABILITIES" in diag.message


def test_psplib_truncated_requests_section(tmp_path: Path) -> None:
    lines = PSP_MM.splitlines()
    text = "\n".join(lines[:31] + lines[34:]) + "\n"  # jobs 3 (mode 2), 4, 5 missing
    diag = _psp_error(tmp_path, text, "I311")
    assert diag.span is not None and diag.span.line == 31
    assert "mode 2 of job 3" in diag.message


def test_psplib_missing_last_jobs(tmp_path: Path) -> None:
    lines = PSP_MM.splitlines()
    text = "\n".join(lines[:32] + lines[34:]) + "\n"  # jobs 4 and 5 missing
    diag = _psp_error(tmp_path, text, "I307")
    assert diag.span is not None and diag.span.line == 32 and "job 4" in diag.message


def test_psplib_word_where_number_expected(tmp_path: Path) -> None:
    text = PSP_MM.replace("  3      1     4       3    1", "  3      1     four    3    1")
    diag = _psp_error(tmp_path, text, "I302")
    assert diag.span is not None
    assert (diag.span.line, diag.span.column) == (_line_of(text, "four"), 16)
    assert "duration" in diag.message and "'four'" in diag.message


def test_psplib_word_in_header(tmp_path: Path) -> None:
    text = PSP_MM.replace("horizon                       :  20", "horizon                       :  lots")
    diag = _psp_error(tmp_path, text, "I302")
    assert diag.span is not None and diag.span.line == 7


def test_psplib_negative_request(tmp_path: Path) -> None:
    text = PSP_MM.replace("  4      1     2       1    3", "  4      1     2      -1    3")
    diag = _psp_error(tmp_path, text, "I303")
    assert diag.span is not None and diag.span.line == _line_of(text, "-1")


def test_psplib_successor_does_not_exist(tmp_path: Path) -> None:
    text = PSP_MM.replace("   3        2          1           5", "   3        2          1           9")
    diag = _psp_error(tmp_path, text, "I309")
    assert diag.span is not None and diag.span.line == 21
    assert "successor 9 of job 3" in diag.message


def test_psplib_successor_is_itself(tmp_path: Path) -> None:
    text = PSP_MM.replace("   4        1          1           5", "   4        1          1           4")
    assert _line(_psp_error(tmp_path, text, "I309")) == 22


def test_psplib_duplicate_successor(tmp_path: Path) -> None:
    text = PSP_MM.replace("   1        1          2           2   3",
                          "   1        1          2           2   2")
    assert _line(_psp_error(tmp_path, text, "I310")) == 19


def test_psplib_successor_count_mismatch(tmp_path: Path) -> None:
    text = PSP_MM.replace("   1        1          2           2   3",
                          "   1        1          3           2   3")
    diag = _psp_error(tmp_path, text, "I308")
    assert diag.span is not None and diag.span.line == 19 and "declares 3" in diag.message


def test_psplib_job_out_of_sequence(tmp_path: Path) -> None:
    text = PSP_MM.replace("   4        1          1           5", "   6        1          1           5")
    diag = _psp_error(tmp_path, text, "I307")
    assert diag.span is not None and diag.span.line == 22 and "expected job 4" in diag.message


def test_psplib_too_few_precedence_lines(tmp_path: Path) -> None:
    text = PSP_MM.replace("jobs (incl. supersource/sink ):  5", "jobs (incl. supersource/sink ):  6")
    text = text.replace("    1      3      0 ", "    1      4      0 ")
    diag = _psp_error(tmp_path, text, "I307")
    assert diag.span is not None and diag.span.line == 23 and "job 6" in diag.message


def test_psplib_mode_count_mismatch(tmp_path: Path) -> None:
    text = PSP_MM.replace("   2        2          1           4", "   2        3          1           4")
    diag = _psp_error(tmp_path, text, "I311")
    assert diag.span is not None and diag.span.line == 31  # job 3's first line where mode 3 was due
    assert "mode 3 of job 2" in diag.message


def test_psplib_extra_mode(tmp_path: Path) -> None:
    text = PSP_MM.replace("   3        2          1           5", "   3        1          1           5")
    diag = _psp_error(tmp_path, text, "I312")  # a continuation line where job 4 should start
    assert diag.span is not None and diag.span.line == 32 and "job 4" in diag.message


def test_psplib_mode_numbers_out_of_order(tmp_path: Path) -> None:
    text = PSP_MM.replace("         2     5       1    2", "         3     5       1    2")
    diag = _psp_error(tmp_path, text, "I311")
    assert diag.span is not None and diag.span.line == 30


def test_psplib_request_count_mismatch(tmp_path: Path) -> None:
    text = PSP_MM.replace("  4      1     2       1    3", "  4      1     2       1    3    7    7")
    diag = _psp_error(tmp_path, text, "I312")
    assert diag.span is not None and diag.span.line == 33


def test_psplib_capacity_count_mismatch(tmp_path: Path) -> None:
    text = PSP_MM.replace("    4    8\n", "    4\n")
    diag = _psp_error(tmp_path, text, "I312")
    assert diag.span is not None and diag.span.line == 38


def test_psplib_resource_labels_disagree_with_header(tmp_path: Path) -> None:
    text = PSP_MM.replace("jobnr. mode duration  R 1  N 1", "jobnr. mode duration  R 1  R 2")
    diag = _psp_error(tmp_path, text, "I313")
    assert diag.span is not None and (diag.span.line, diag.span.column) == (26, 28)
    text = PSP_MM.replace("RESOURCEAVAILABILITIES:\n  R 1  N 1", "RESOURCEAVAILABILITIES:\n  R 1  D 1")
    assert _line(_psp_error(tmp_path, text, "I313")) == 37


def test_psplib_dummy_with_duration(tmp_path: Path) -> None:
    text = PSP_MM.replace("  5      1     0       0    0", "  5      1     1       0    0")
    diag = _psp_error(tmp_path, text, "I314")
    assert diag.span is not None and diag.span.line == 34


def test_psplib_multi_mode_job_in_sm_file(tmp_path: Path) -> None:
    diag = _psp_error(tmp_path, PSP_MM, "I315", name="tiny.sm")
    assert diag.span is not None and diag.span.line == 20


def test_psplib_project_jobs_disagree_with_header(tmp_path: Path) -> None:
    text = PSP_MM.replace("    1      3      0       10", "    1      4      0       10")
    assert _line(_psp_error(tmp_path, text, "I306")) == 15


def test_psplib_unknown_header_field(tmp_path: Path) -> None:
    text = PSP_MM.replace("horizon                       :  20", "horizont                      :  20")
    assert _line(_psp_error(tmp_path, text, "I305")) == 7


def test_psplib_missing_jobs_field(tmp_path: Path) -> None:
    text = PSP_MM.replace("jobs (incl. supersource/sink ):  5\n", "")
    assert _line(_psp_error(tmp_path, text, "I304")) == 12


def test_tiny_sm_reads(tmp_path: Path) -> None:
    data = read_psplib(_write(tmp_path, "tiny.sm", PSP_SM))
    assert [r.name for r in data.resources] == ["R1", "R2"]
    assert [job.modes[0].duration for job in data.jobs] == [0, 3, 4, 2, 0]


# ----------------------------------------------------------------------------------------------
# ITC-2007: facts from the reference


def test_comp01_matches_reference() -> None:
    data = read_ctt(_needs(DATA / "itc2007" / "comp01.ctt"))
    assert data.name == "Fis0506-1"
    assert (len(data.courses), len(data.rooms), data.days, data.periods_per_day) == (30, 6, 5, 6)
    assert (len(data.curricula), len(data.unavailability)) == (14, 53)
    first = data.courses[0]
    assert (first.id, first.teacher, first.lectures, first.min_days, first.students) == (
        "c0001", "t000", 6, 4, 130)
    assert (data.rooms[0].id, data.rooms[0].capacity) == ("B", 200)
    assert data.curricula[0].id == "q000"
    assert data.curricula[0].members == ("c0001", "c0002", "c0004", "c0005")
    u = data.unavailability[0]
    assert (u.course, u.day, u.period) == ("c0001", 4, 0)


@pytest.mark.parametrize("path", _data_files("itc2007/*.ctt"), ids=lambda p: p.name)
def test_every_ctt_file_reads(path: Path) -> None:
    data = read_ctt(path)
    assert isinstance(data, CttData)
    ids = {c.id for c in data.courses}
    assert all(set(q.members) <= ids for q in data.curricula)
    assert all(0 <= u.day < data.days and 0 <= u.period < data.periods_per_day for u in data.unavailability)


def test_itc_data_present() -> None:
    if not DATA.exists():
        pytest.skip("no shared data")
    assert _data_files("itc2007/*.ctt")


# ----------------------------------------------------------------------------------------------
# ITC-2007: layout variations and malformed input


def test_tiny_ctt_reads(tmp_path: Path) -> None:
    data = read_ctt(_write(tmp_path, "tiny.ctt", CTT))
    assert data.name == "Tiny" and (data.days, data.periods_per_day) == (2, 3)
    assert [c.id for c in data.courses] == ["c1", "c2", "c3"]
    assert [(r.id, r.capacity) for r in data.rooms] == [("A", 30), ("B", 20)]
    assert [q.members for q in data.curricula] == [("c1", "c2"), ("c2", "c3")]
    assert [(u.course, u.day, u.period) for u in data.unavailability] == [("c1", 0, 0), ("c3", 1, 2)]


def test_ctt_variants_read_the_same(tmp_path: Path) -> None:
    reference = read_ctt(_write(tmp_path, "tiny.ctt", CTT))
    variants = {
        "crlf": (CTT, "\r\n"),
        "tabs": (CTT.replace("A 30", "A\t30").replace("c1 t1 2 1 30", "c1\tt1\t2\t1\t30"), "\n"),
        "blank": (CTT + "\n\n\n", "\n"),
        "wrapped": (CTT.replace("q1 2 c1 c2", "q1 2\n  c1\n  c2"), "\n"),
    }
    for name, (text, newline) in variants.items():
        assert read_ctt(_write(tmp_path, f"{name}.ctt", text, newline)) == reference, name


def _ctt_error(tmp_path: Path, text: str, code: str) -> Diagnostic:
    return _error(read_ctt, _write(tmp_path, "bad.ctt", text), code)


def test_ctt_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as info:
        read_ctt(tmp_path / "missing.ctt")
    assert info.value.diagnostics[0].code == "I401"


def test_ctt_truncated(tmp_path: Path) -> None:
    text = CTT[: CTT.index("q2 2 c2")] + "q2 2 c2"
    diag = _ctt_error(tmp_path, text, "I402")
    assert diag.span is not None and diag.span.line == 20


def test_ctt_word_where_number_expected(tmp_path: Path) -> None:
    text = CTT.replace("c2 t2 1 1 20", "c2 t2 one 1 20")
    diag = _ctt_error(tmp_path, text, "I403")
    assert diag.span is not None and (diag.span.line, diag.span.column) == (11, 7)


def test_ctt_negative_number(tmp_path: Path) -> None:
    text = CTT.replace("B 20", "B -20")
    assert _line(_ctt_error(tmp_path, text, "I404")) == 16


def test_ctt_wrong_header_label(tmp_path: Path) -> None:
    text = CTT.replace("Rooms: 2", "Room: 2")
    assert _line(_ctt_error(tmp_path, text, "I405")) == 3


@pytest.mark.parametrize(("old", "new", "code", "line"), [
    ("c3 t1 2 2 10", "c1 t1 2 2 10", "I406", 12),
    ("B 20", "A 20", "I407", 16),
    ("q2 2 c2 c3", "q1 2 c2 c3", "I408", 20),
])
def test_ctt_duplicate_ids(tmp_path: Path, old: str, new: str, code: str, line: int) -> None:
    assert _line(_ctt_error(tmp_path, CTT.replace(old, new), code)) == line


def test_ctt_curriculum_names_unknown_course(tmp_path: Path) -> None:
    text = CTT.replace("q2 2 c2 c3", "q2 2 c2 c9")
    diag = _ctt_error(tmp_path, text, "I409")
    assert diag.span is not None and (diag.span.line, diag.span.column) == (20, 9)
    assert "'c9'" in diag.message


def test_ctt_curriculum_declares_more_courses_than_listed(tmp_path: Path) -> None:
    text = CTT.replace("q1 2 c1 c2", "q1 3 c1 c2")
    diag = _ctt_error(tmp_path, text, "I410")
    assert diag.span is not None and diag.span.line == 20 and "declares 3" in diag.message


def test_ctt_curriculum_declares_fewer_courses_than_listed(tmp_path: Path) -> None:
    text = CTT.replace("q1 2 c1 c2", "q1 1 c1 c2")
    diag = _ctt_error(tmp_path, text, "I410")
    assert diag.span is not None and (diag.span.line, diag.span.column) == (19, 9)


def test_ctt_last_curriculum_too_short(tmp_path: Path) -> None:
    text = CTT.replace("q2 2 c2 c3", "q2 3 c2 c3")
    diag = _ctt_error(tmp_path, text, "I410")
    assert diag.span is not None and diag.span.line == 22


def test_ctt_course_listed_twice_in_curriculum(tmp_path: Path) -> None:
    assert _line(_ctt_error(tmp_path, CTT.replace("q1 2 c1 c2", "q1 2 c1 c1"), "I418")) == 19


def test_ctt_constraint_names_unknown_course(tmp_path: Path) -> None:
    assert _line(_ctt_error(tmp_path, CTT.replace("c3 1 2", "c7 1 2"), "I411")) == 24


def test_ctt_day_out_of_range(tmp_path: Path) -> None:
    diag = _ctt_error(tmp_path, CTT.replace("c3 1 2", "c3 2 2"), "I412")
    assert diag.span is not None and (diag.span.line, diag.span.column) == (24, 4)


def test_ctt_period_out_of_range(tmp_path: Path) -> None:
    diag = _ctt_error(tmp_path, CTT.replace("c3 1 2", "c3 1 3"), "I413")
    assert diag.span is not None and (diag.span.line, diag.span.column) == (24, 6)
    assert "0..2" in diag.message


def test_ctt_missing_end(tmp_path: Path) -> None:
    diag = _ctt_error(tmp_path, CTT.replace("END.\n", ""), "I414")
    assert diag.span is not None and diag.span.line == 25


def test_ctt_tokens_after_end(tmp_path: Path) -> None:
    assert _line(_ctt_error(tmp_path, CTT + "extra\n", "I415")) == 27


def test_ctt_fewer_records_than_header(tmp_path: Path) -> None:
    diag = _ctt_error(tmp_path, CTT.replace("Rooms: 2", "Rooms: 3"), "I416")
    assert diag.span is not None and diag.span.line == 18


def test_ctt_more_records_than_header(tmp_path: Path) -> None:
    diag = _ctt_error(tmp_path, CTT.replace("Constraints: 2", "Constraints: 1"), "I417")
    assert diag.span is not None and diag.span.line == 24


def test_ctt_sections_out_of_order(tmp_path: Path) -> None:
    rooms = "ROOMS:\nA 30\nB 20\n\n"
    unavailability = "UNAVAILABILITY_CONSTRAINTS:"
    text = CTT.replace(rooms, "").replace(unavailability, rooms + unavailability)
    diag = _ctt_error(tmp_path, text, "I405")
    assert _line(diag) == 14 and "'ROOMS:'" in diag.message


# ----------------------------------------------------------------------------------------------
# Robustness: any corruption gives a SchedcError, never another exception


_FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
_JUNK = st.sampled_from(["", "x", "-1", "0", "99", " ", "\n", "\t", ":", "R", "END.", "c1", "*****"])


def _mutate(text: str, start: int, stop: int, junk: str) -> str:
    start, stop = sorted((start % (len(text) + 1), stop % (len(text) + 1)))
    stop = min(stop, start + 12)
    return text[:start] + junk + text[stop:]


@_FUZZ
@given(st.sampled_from(["mm", "sm"]), st.integers(0, 5000), st.integers(0, 5000), _JUNK)
def test_psplib_corruption_is_a_schedc_error(tmp_path: Path, kind: str, start: int, stop: int,
                                             junk: str) -> None:
    text = _mutate(PSP_MM if kind == "mm" else PSP_SM, start, stop, junk)
    try:
        read_psplib(_write(tmp_path, f"fuzz.{kind}", text))
    except SchedcError as exc:
        assert exc.diagnostics and exc.diagnostics[0].span is not None


@_FUZZ
@given(st.integers(0, 1000), st.integers(0, 1000), _JUNK)
def test_ctt_corruption_is_a_schedc_error(tmp_path: Path, start: int, stop: int, junk: str) -> None:
    try:
        read_ctt(_write(tmp_path, "fuzz.ctt", _mutate(CTT, start, stop, junk)))
    except SchedcError as exc:
        assert exc.diagnostics and exc.diagnostics[0].span is not None
