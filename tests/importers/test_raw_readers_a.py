"""Tests of the raw readers for JSPLib/Taillard, FJSP and NSPLib files.

Facts about real files are checked against the references in ``/work/shared/reference``; those
tests skip when ``/work/shared/data`` is absent. Malformed-input tests use small synthetic files
written to ``tmp_path`` and always run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedc.core.diagnostics import Diagnostic, SchedcError
from schedc.importers.fjsp_reader import FlexibleJobShopData, read_fjsp
from schedc.importers.jsplib_reader import JobShopData, read_jobshop, read_jsplib, read_taillard
from schedc.importers.nsplib_reader import GenCase, NspData, ShiftRule, check_pair, read_gen, read_nsp

DATA = Path("/work/shared/data")


def _data(relative: str) -> Path:
    path = DATA / relative
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path


def _data_files(pattern: str) -> list[str]:
    """Names for parametrisation (collected even when the data folder is absent)."""
    return sorted(str(p.relative_to(DATA)) for p in DATA.glob(pattern)) or ["<no data>"]


def _write(tmp_path: Path, name: str, text: str, newline: str | None = "\n") -> Path:
    """Write ``text`` with its LF line ends turned into ``newline`` (None: bytes as given)."""
    path = tmp_path / name
    path.write_bytes((text if newline is None else text.replace("\n", newline)).encode())
    return path


def _fails(reader: Callable[[Path], object], path: Path, code: str, line: int, *words: str) -> Diagnostic:
    """``reader(path)`` raises a SchedcError with ``code`` at ``line``; the message contains ``words``."""
    with pytest.raises(SchedcError) as info:
        reader(path)
    diag = info.value.diagnostics[0]
    assert (diag.code, diag.file) == (code, str(path)), str(info.value)
    assert diag.span is not None and diag.span.line == line, str(info.value)
    assert f"{path}:{line}:{diag.span.column}: error[{code}]" in str(info.value)
    for word in words:
        assert word in diag.message, diag.message
    return diag


# =============================================================================== JSPLib

# A small synthetic 3 jobs x 3 machines instance (standard layout).
TOY = "3 3\n0 5 1 4 2 3\n2 2 0 7 1 1\n1 6 2 2 0 4\n"
TOY_JOBS = (((0, 5), (1, 4), (2, 3)), ((2, 2), (0, 7), (1, 1)), ((1, 6), (2, 2), (0, 4)))


def test_ft06_facts() -> None:
    data = read_jsplib(_data("jsplib/ft06.txt"))
    assert (data.name, data.layout, data.n_jobs, data.n_machines) == ("ft06", "standard", 6, 6)
    assert data.jobs[0][0] == (2, 1)
    assert data.jobs[0] == ((2, 1), (0, 3), (1, 6), (3, 7), (5, 3), (4, 6))
    assert data.jobs[1][:2] == ((1, 8), (2, 5))
    assert data.upper_bound is None and data.comments == ()


@pytest.mark.parametrize("name", _data_files("jsplib/*.txt"))
def test_every_jsplib_file_reads(name: str) -> None:
    path = _data(name)
    for data in (read_jsplib(path), read_jobshop(path)):
        assert isinstance(data, JobShopData) and data.layout == "standard"
        assert len(data.jobs) == data.n_jobs
        assert sum(len(job) for job in data.jobs) == data.n_jobs * data.n_machines
        assert all(0 <= m < data.n_machines and p >= 0 for job in data.jobs for m, p in job)


def test_standard_layout_tolerates_comments_crlf_and_wrapping(tmp_path: Path) -> None:
    text = ("#+++++++++\n# instance toy\n#+++++++++\n  3\t3  \n0 5 1 4 2 3\n# a comment between jobs\n"
            "2 2 0 7\n1 1\n1 6 2 2 0 4\n\n# trailing comment\n\n")
    data = read_jsplib(_write(tmp_path, "toy.txt", text, "\r\n"))
    assert data.jobs == TOY_JOBS
    assert data.comments == ("#+++++++++", "# instance toy", "#+++++++++", "# a comment between jobs",
                             "# trailing comment")


def test_machines_may_repeat_within_a_job(tmp_path: Path) -> None:
    data = read_jsplib(_write(tmp_path, "rep.txt", "1 3\n0 1 0 2 2 0\n"))
    assert data.jobs == (((0, 1), (0, 2), (2, 0)),)


def _toy_errors() -> list[tuple[str, str, int, tuple[str, ...]]]:
    return [
        ("", "I102", 1, ("number of jobs",)),
        ("3 3\n0 5 1 4 2 3\n2 2 0 7 1 1\n", "I102", 3, ("machine of operation 0 of job 2",)),
        ("3 3\n0 5 1 4 2 3\n2 2 0 7 1 1\n1 6 2", "I107", 4, ("job 2 on line 4 has 3 values", "exactly 6")),
        ("3 3\n0 5 1 4 2 3\n2 2 0 x 1 1\n1 6 2 2 0 4\n", "I103", 3,
         ("processing time of operation 1 of job 1", "'x'")),
        ("3 3\n0 5 1 4 2 3\n2 2 3 7 1 1\n1 6 2 2 0 4\n", "I105", 3, ("0..2", "found 3")),
        ("3 3\n0 5 1 -4 2 3\n2 2 0 7 1 1\n1 6 2 2 0 4\n", "I106", 2, ("at least 0",)),
        ("3 3\n0 5 1 4\n2 2 0 7 1 1\n1 6 2 2 0 4\n", "I107", 2,
         ("job 0 on line 2 has 4 values", "exactly 6")),
        ("3 3\n0 5 1 4 2 3 1 1\n2 2 0 7 1 1\n1 6 2 2 0 4\n", "I107", 2, ("first extra value",)),
        ("3 3\n0 5 1 4 2 3\n2 2 0 7 1 1\n1 6 2 2 0 4\nEOF\n", "I108", 5, ("end of the file after 3 jobs",)),
        ("0 3\n", "I104", 1, ("number of jobs n to be at least 1",)),
        ("3 three\n", "I103", 1, ("number of machines m",)),
        ("3 3 9\n0 5 1 4 2 3\n2 2 0 7 1 1\n1 6 2 2 0 4\n", "I110", 1, ("end of the header line", "'9'")),
    ]


@pytest.mark.parametrize(("text", "code", "line", "words"), _toy_errors())
def test_standard_layout_errors(tmp_path: Path, text: str, code: str, line: int,
                                words: tuple[str, ...]) -> None:
    path = _write(tmp_path, "bad.txt", text)
    _fails(read_jsplib, path, code, line, *words)
    _fails(read_jobshop, path, code, line, *words)


def test_comment_lines_keep_line_numbers(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.txt", "# header\n# more\n3 3\n0 5 1 4 2 3\n2 2 0 7 1 1\n1 6 2 2 0 q\n")
    diag = _fails(read_jsplib, path, "I103", 6, "processing time of operation 2 of job 2")
    assert diag.span is not None and diag.span.column == 11


def test_missing_file_is_a_schedc_error(tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as info:
        read_jobshop(tmp_path / "nope.txt")
    assert info.value.diagnostics[0].code == "I101"


def test_unrecognised_layout(tmp_path: Path) -> None:
    _fails(read_jobshop, _write(tmp_path, "x.txt", "hello world\n"), "I109", 1, "standard layout")


# ------------------------------------------------------------------------------- Taillard


def _taillard_text(data: JobShopData, seeds: tuple[int, ...] = (840612802, 398197754, 1231, 1005),
                   names: bool = True) -> str:
    lines = ["Nb of jobs, Nb of Machines, Time seed, Machine seed, Upper bound, Lower bound"] if names else []
    lines.append(" ".join(str(v) for v in (data.n_jobs, data.n_machines, *seeds)))
    lines.append("Times")
    lines += [" ".join(f"{p:3d}" for _, p in job) for job in data.jobs]
    lines.append("Machines")
    lines += [" ".join(f"{m + 1:3d}" for m, _ in job) for job in data.jobs]
    return "\n".join(lines) + "\n"


def test_taillard_layout_agrees_with_standard(tmp_path: Path) -> None:
    standard = read_jsplib(_data("jsplib/ta01.txt"))
    assert (standard.n_jobs, standard.n_machines) == (15, 15)
    assert standard.jobs[0][:3] == ((6, 94), (12, 66), (4, 10))  # Taillard machines 7, 13, 5
    path = _write(tmp_path, "ta01.txt", _taillard_text(standard), "\r\n")
    text = path.read_text()
    assert "\n  7  13   5" in text  # machines are written 1-based
    for data in (read_taillard(path), read_jobshop(path)):
        assert data.layout == "taillard"
        assert (data.n_jobs, data.n_machines, data.jobs) == (15, 15, standard.jobs)
        assert (data.upper_bound, data.lower_bound) == (1231, 1005)
        assert (data.time_seed, data.machine_seed) == (840612802, 398197754)


def test_taillard_without_names_line_or_bounds(tmp_path: Path) -> None:
    toy = read_jsplib(_write(tmp_path, "toy.txt", TOY))
    path = _write(tmp_path, "t.txt", _taillard_text(toy, seeds=(11, 22), names=False))
    data = read_jobshop(path)
    assert data.layout == "taillard" and data.jobs == TOY_JOBS
    assert (data.time_seed, data.machine_seed, data.upper_bound, data.lower_bound) == (11, 22, None, None)


def _taillard_errors() -> list[tuple[str, str, int, tuple[str, ...]]]:
    head = "Nb of jobs, Nb of Machines, Time seed, Machine seed, Upper bound, Lower bound\n2 2 1 2 30 20\n"
    return [
        (head + "Times\n5 6\n7 8\nMachines\n1 2\n2 3\n", "I157", 8, ("1..2", "found 3")),
        (head + "Times\n5 6\n7 8\nMachines\n0 2\n2 1\n", "I157", 7, ("found 0",)),
        (head + "Times\n5 6\n7 8\n", "I155", 5, ("'Machines'",)),
        (head + "5 6\n7 8\nMachines\n1 2\n2 1\n", "I151", 3, ("'Times'",)),
        (head + "Times\n5 6\n7\nMachines\n1 2\n2 1\n", "I156", 5,
         ("processing time row of job 1", "exactly 2")),
        (head + "Times\n5 6 7\nMachines\n1 2\n2 1\n", "I156", 5, ("found 'Machines'",)),
        (head + "Times\n5 6\n7 8\nMachines\n1 2\n2\n", "I156", 8, ("machine number row of job 1",)),
        (head + "Times\n5 6\n7 8\nMachines\n1 2 2\n", "I152", 7, ("machine number of operation 1 of job 1",)),
        (head + "Times\n5 -6\n7 8\nMachines\n1 2\n2 1\n", "I158", 4, ("at least 0",)),
        (head + "Times\n5 6\n7 z\nMachines\n1 2\n2 1\n", "I153", 5, ("'z'",)),
        (head + "Times\n5 6\n7 8\nMachines\n1 2\n2 1\n" + head, "I159", 9, ("extra token 'Nb'",)),
        ("Nb of jobs\n2 0 1 2 30 20\nTimes\n", "I154", 2, ("number of machines to be at least 1",)),
        ("Nb of jobs\n2 2 1 2 30\nTimes\n", "I151", 3, ("4 or 6 header values", "found 5")),
        ("Number of jobs\n2 2 1 2\nTimes\n", "I151", 1, ("Nb of jobs",)),
    ]


@pytest.mark.parametrize(("text", "code", "line", "words"), _taillard_errors())
def test_taillard_errors(tmp_path: Path, text: str, code: str, line: int, words: tuple[str, ...]) -> None:
    path = _write(tmp_path, "bad_ta.txt", text)
    _fails(read_taillard, path, code, line, *words)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4).flatmap(
    lambda m: st.lists(st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, 99)), min_size=m, max_size=m),
                       min_size=1, max_size=4).map(lambda jobs: (m, jobs))))
def test_roundtrip_both_layouts(tmp_path_factory: pytest.TempPathFactory, case: tuple[int, list]) -> None:
    n_machines, jobs = case
    tmp = tmp_path_factory.mktemp("rt")
    data = JobShopData(name="x", layout="standard", n_jobs=len(jobs), n_machines=n_machines,
                       jobs=tuple(tuple(job) for job in jobs))
    rows = "".join(" ".join(f"{m} {p}" for m, p in job) + "\n" for job in jobs)
    standard = f"{len(jobs)} {n_machines}\n{rows}"
    assert read_jobshop(_write(tmp, "x.txt", standard)) == data
    taillard = read_jobshop(_write(tmp, "x.txt", _taillard_text(data)))
    assert taillard.jobs == data.jobs and taillard.layout == "taillard"


# =============================================================================== FJSP


def test_fjsp_reference_example(tmp_path: Path) -> None:
    data = read_fjsp(_write(tmp_path, "ex.fjs", "2 3 1.7\n1 2 1 1 2 2\n2 1 1 1 2 3 1 2 1\n", "\r\n"))
    assert isinstance(data, FlexibleJobShopData)
    assert (data.n_jobs, data.n_machines, data.avg_machines_per_op) == (2, 3, 1.7)
    assert data.jobs == ((((1, 1), (2, 2)),), (((1, 1),), ((3, 1), (2, 1))))


def test_mk01_facts() -> None:
    data = read_fjsp(_data("fjsp/brandimarte/Mk01.fjs"))
    assert (data.name, data.n_jobs, data.n_machines, data.avg_machines_per_op) == ("Mk01", 10, 6, 2.0)
    assert [len(job) for job in data.jobs] == [6, 5, 5, 5, 6, 6, 5, 5, 6, 6]
    assert data.jobs[0][:2] == (((1, 5), (3, 4)), ((5, 3), (3, 5), (2, 1)))
    assert read_fjsp(_data("fjsp/brandimarte/Mk02.fjs")).avg_machines_per_op == 3.5


@pytest.mark.parametrize("name", _data_files("fjsp/**/*.fjs"))
def test_every_fjs_file_reads(name: str) -> None:
    data = read_fjsp(_data(name))
    assert len(data.jobs) == data.n_jobs
    for job in data.jobs:
        assert job
        for op in job:
            machines = [m for m, _ in op]
            assert op and len(set(machines)) == len(machines)
            assert all(1 <= m <= data.n_machines for m in machines)


def test_fjsp_header_without_average_and_wrapped_jobs(tmp_path: Path) -> None:
    data = read_fjsp(_write(tmp_path, "w.fjs", "2 3\n1 2 1 1\n2 2\n2 1 1 1\n2 3 1 2 1\n\n\n"))
    assert data.avg_machines_per_op is None
    assert data.jobs == ((((1, 1), (2, 2)),), (((1, 1),), ((3, 1), (2, 1))))


def _fjsp_errors() -> list[tuple[str, str, int, tuple[str, ...]]]:
    head = "2 3 1.5\n"
    return [
        ("", "I202", 1, ("number of jobs", "empty")),
        (head + "1 2 1 1 2 2\n", "I202", 2, ("number of operations of job 1", "end of the file")),
        (head + "1 2 1 1 2 2\n2 1 1 1 2 3 1 2\n", "I212", 3,
         ("processing time of operation 1 of job 1 on machine 2", "line 3 ends here")),
        (head + "1 2 1 1 2 2\n3 1 1 1 2 3 1 2 1\n", "I212", 3,
         ("number of eligible machines of operation 2 of job 1",)),
        (head + "1 2 1 1 2 2\n1 1 1 1 2 3 1 2 1\n", "I212", 3, ("extra values after its 1 operations",)),
        (head + "1 2 1 1 2 2\n2 1 1 1 2 3 1 2 x\n", "I203", 3, ("'x'",)),
        (head + "1 2 1 1 4 2\n2 1 1 1 2 3 1 2 1\n", "I209", 2, ("1..3", "found 4")),
        (head + "1 2 1 1 0 2\n2 1 1 1 2 3 1 2 1\n", "I209", 2, ("found 0",)),
        (head + "1 2 1 1 1 2\n2 1 1 1 2 3 1 2 1\n", "I211", 2, ("machine 1 is listed twice",)),
        (head + "1 0\n2 1 1 1 2 3 1 2 1\n", "I208", 2, ("1..3", "found 0")),
        (head + "1 2 1 1 2 -2\n2 1 1 1 2 3 1 2 1\n", "I210", 2, ("at least 0",)),
        (head + "0\n2 1 1 1 2 3 1 2 1\n", "I207", 2, ("number of operations of job 0",)),
        (head + "1 2 1 1 2 2\n2 1 1 1 2 3 1 2 1\n0\n", "I213", 4, ("end of the file after 2 jobs",)),
        ("2 0 1.5\n", "I204", 1, ("number of machines",)),
        ("2 3 avg\n", "I205", 1, ("decimal", "'avg'")),
        ("2 3 1.5 7\n", "I206", 1, ("end of the header line",)),
    ]


@pytest.mark.parametrize(("text", "code", "line", "words"), _fjsp_errors())
def test_fjsp_errors(tmp_path: Path, text: str, code: str, line: int, words: tuple[str, ...]) -> None:
    _fails(read_fjsp, _write(tmp_path, "bad.fjs", text, "\r\n"), code, line, *words)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4).flatmap(lambda m: st.lists(st.lists(
    st.lists(st.tuples(st.integers(1, m), st.integers(0, 50)), min_size=1, max_size=m,
             unique_by=lambda alt: alt[0]),
    min_size=1, max_size=4), min_size=1, max_size=4).map(lambda jobs: (m, jobs))))
def test_fjsp_roundtrip(tmp_path_factory: pytest.TempPathFactory, case: tuple[int, list]) -> None:
    n_machines, jobs = case
    lines = [f"{len(jobs)}\t{n_machines}\t1.5"]
    for job in jobs:
        values = [len(job)] + [v for op in job for v in (len(op), *(x for alt in op for x in alt))]
        lines.append(" " + " ".join(map(str, values)) + " ")
    path = _write(tmp_path_factory.mktemp("fj"), "x.fjs", "\n".join(lines) + "\n\n", "\r\n")
    data = read_fjsp(path)
    assert data.jobs == tuple(tuple(tuple(op) for op in job) for job in jobs)


# =============================================================================== NSPLib


def test_nsp_1_facts() -> None:
    data = read_nsp(_data("nsplib/N25/1.nsp"))
    assert isinstance(data, NspData)
    assert (data.name, data.n_nurses, data.n_days, data.n_shifts) == ("1", 25, 7, 4)
    assert data.coverage[0] == (3, 3, 2, 0) and data.coverage[1] == (0, 1, 2, 0)
    assert all(row[-1] == 0 for row in data.coverage)
    assert data.preferences[0][0] == (4, 2, 4, 4) and data.preferences[0][1] == (3, 1, 1, 1)
    assert len(data.preferences) == 25 and all(len(n) == 7 and all(len(d) == 4 for d in n)
                                               for n in data.preferences)
    assert {v for n in data.preferences for d in n for v in d} <= {1, 2, 3, 4}


def test_case_8_facts() -> None:
    case = read_gen(_data("nsplib/Cases/8.gen"))
    assert isinstance(case, GenCase)
    assert (case.n_days, case.n_shifts) == (7, 4)
    assert (case.min_assignments, case.max_assignments) == (2, 6)
    assert (case.min_consecutive_working, case.max_consecutive_working) == (2, 4)
    rules = [(r.min_consecutive, r.max_consecutive, r.min_assignments, r.max_assignments)
             for r in case.shift_rules]
    assert rules == [(1, 4, 0, 6), (1, 4, 0, 6), (2, 4, 0, 3), (0, 5, 0, 5)]


@pytest.mark.parametrize("nsp_name", _data_files("nsplib/N25/*.nsp"))
@pytest.mark.parametrize("gen_name", _data_files("nsplib/Cases/*.gen"))
def test_every_nsplib_pair_reads(nsp_name: str, gen_name: str) -> None:
    nsp_path, gen_path = _data(nsp_name), _data(gen_name)
    nsp, gen = read_nsp(nsp_path), read_gen(gen_path)
    check_pair(nsp, gen, nsp_path, gen_path)
    assert len(gen.shift_rules) == gen.n_shifts == nsp.n_shifts


GEN = "7\t4\r\n\r\n2\t6\r\n\r\n2\t4\t\r\n\r\n\r\n1\t4\t0\t6\r\n1\t4\t0\t6\r\n2\t4\t0\t3\r\n0\t5\t0\t5\r\n\r\n"


def _small_nsp(cover_row: str = "1 1 0", pref: str = "1 2 3 3 2 1") -> str:
    """2 nurses, 2 days, 3 shift types (two working + free)."""
    return f"2\t2\t3\n\n{cover_row}\n0 1 0\n\n{pref}\n2 2 2 1 1 1\n"


def test_check_pair_mismatched_days(tmp_path: Path) -> None:
    gen_path = _write(tmp_path, "9.gen", GEN.replace("7\t4", "28\t4", 1), None)
    nsp_path = _write(tmp_path, "s.nsp", "2 7 4\n" + "0 0 0 0\n" * 7 + ("1 " * 28 + "\n") * 2)
    nsp, gen = read_nsp(nsp_path), read_gen(gen_path)
    with pytest.raises(SchedcError) as info:
        check_pair(nsp, gen, nsp_path, gen_path)
    diags = info.value.diagnostics
    assert [(d.code, d.file, d.span.line, d.span.column) for d in diags if d.span] == [
        ("I611", str(gen_path), 1, 1)]
    assert "28 days D" in diags[0].message and str(nsp_path) in diags[0].message


def test_check_pair_mismatched_shifts(tmp_path: Path) -> None:
    gen_path = _write(tmp_path, "g.gen", "2 3\n1 2\n1 2\n1 2 0 2\n1 2 0 2\n0 2 0 2\n")
    nsp_path = _write(tmp_path, "s.nsp", "1 2 4\n0 0 0 0\n0 0 0 0\n1 1 1 1 1 1 1 1\n")
    with pytest.raises(SchedcError) as info:
        check_pair(read_nsp(nsp_path), read_gen(gen_path), nsp_path, gen_path)
    diag = info.value.diagnostics[0]
    assert diag.code == "I611" and diag.span is not None and (diag.span.line, diag.span.column) == (1, 3)


def test_small_nsp_and_gen_read(tmp_path: Path) -> None:
    nsp = read_nsp(_write(tmp_path, "s.nsp", _small_nsp(), "\r\n"))
    assert nsp.coverage == ((1, 1, 0), (0, 1, 0))
    assert nsp.preferences == (((1, 2, 3), (3, 2, 1)), ((2, 2, 2), (1, 1, 1)))
    gen = read_gen(_write(tmp_path, "8.gen", GEN, None))
    assert gen.shift_rules[-1] == ShiftRule(min_consecutive=0, max_consecutive=5, min_assignments=0,
                                            max_assignments=5)


def _nsp_errors() -> list[tuple[str, str, int, tuple[str, ...]]]:
    full = _small_nsp()
    return [
        (full.rsplit("\n", 2)[0] + "\n", "I602", 6, ("preference of nurse 1 for day 0, shift 0",)),
        (full[:-4] + "\n", "I606", 7, ("preference row of nurse 1", "has 4 values", "exactly 6")),
        (_small_nsp(cover_row="1 1"), "I606", 3, ("coverage row of day 0", "has 2 values")),
        (_small_nsp(cover_row="1 -1 0"), "I605", 3, ("coverage of day 0, shift 1",)),
        (_small_nsp(pref="1 2 3 3 two 1"), "I603", 6, ("preference of nurse 0 for day 1, shift 1", "'two'")),
        (full + "9\n", "I607", 8, ("extra token '9'",)),
        ("2 2 1\n", "I604", 1, ("shift types S", "at least 2")),
        ("2 2\n", "I602", 1, ("number of shift types S",)),
        ("2 2 3 1\n" + _small_nsp().split("\n", 1)[1], "I612", 1, ("end of the header line after 'N D S'",)),
    ]


@pytest.mark.parametrize(("text", "code", "line", "words"), _nsp_errors())
def test_nsp_errors(tmp_path: Path, text: str, code: str, line: int, words: tuple[str, ...]) -> None:
    _fails(read_nsp, _write(tmp_path, "bad.nsp", text, "\r\n"), code, line, *words)


def _gen_errors() -> list[tuple[str, str, int, tuple[str, ...]]]:
    return [
        (GEN.replace("0\t5\t0\t5\r\n", ""), "I602", 10, ("minimum consecutive days on shift 3 (free)",)),
        (GEN.replace("2\t4\t0\t3", "2\t4\t0"), "I606", 10, ("row of shift 2", "has 3 values")),
        (GEN.replace("2\t6", "6\t2"), "I610", 3, ("minimum number of working assignments (6) exceeds",)),
        (GEN.replace("2\t4\t0\t3", "2\t4\t-1\t3"), "I609", 10, ("minimum number of assignments on shift 2",)),
        (GEN.replace("2\t4\t\r\n", "2\tx\t\r\n"), "I603", 5,
         ("maximum number of consecutive working days", "'x'")),
        (GEN + "5\r\n", "I607", 13, ("extra token '5'",)),
        (GEN.replace("7\t4", "7\t1", 1), "I608", 1, ("shift types S",)),
        (GEN.replace("7\t4", "7\t4\t4", 1), "I612", 1, ("'D S'",)),
    ]


@pytest.mark.parametrize(("text", "code", "line", "words"), _gen_errors())
def test_gen_errors(tmp_path: Path, text: str, code: str, line: int, words: tuple[str, ...]) -> None:
    _fails(read_gen, _write(tmp_path, "bad.gen", text, None), code, line, *words)
