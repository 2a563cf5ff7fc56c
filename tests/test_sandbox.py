"""The solver-code sandbox against hostile programs: each must end without harming the caller or the machine.

Every test asserts what the program could not do (the status it ended with, files that do not
exist afterwards, processes that do not survive), never how long it took.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from schedc.bench import sandbox
from schedc.bench.sandbox import Limits, run_program
from schedc.core.diagnostics import SchedcError

needs_isolation = pytest.mark.skipif(sandbox.isolation()[0] is None,
                                     reason=f"no network namespace here: {sandbox.isolation()[1]}")
FAST = Limits(cpu_seconds=5, wall_seconds=5.0, memory_bytes=1 << 30, output_bytes=1 << 16, processes=16)


def _processes_of(uid: int) -> list[int]:
    """PIDs of the host processes owned by ``uid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@needs_isolation
def test_a_well_behaved_program_prints_its_schedule() -> None:
    result = run_program("print('Job 1 step 1: start=0')\n", FAST)
    assert (result.status, result.returncode, result.stdout) == ("ok", 0, "Job 1 step 1: start=0\n")


@needs_isolation
def test_a_hanging_program_is_killed_at_the_wall_limit() -> None:
    result = run_program("import time\nprint('started', flush=True)\ntime.sleep(3600)\n",
                         Limits(wall_seconds=1.0, output_bytes=1 << 16))
    assert result.status == "timeout" and result.stdout == "started\n"


@needs_isolation
def test_a_spinning_program_is_killed_at_the_cpu_limit() -> None:
    result = run_program("while True:\n    pass\n", Limits(cpu_seconds=1, wall_seconds=60.0))
    assert result.status == "killed" and result.returncode > 128  # SIGXCPU / SIGKILL, long before the wall limit


@needs_isolation
def test_a_fork_bomb_stops_at_the_process_limit_and_leaves_nothing_behind() -> None:
    program = (
        "import os, time\n"
        "n = 0\n"
        "try:\n"
        "    while True:\n"
        "        if os.fork() == 0:\n"
        "            os.setsid()  # try to escape the process group\n"
        "            time.sleep(3600)\n"
        "            os._exit(0)\n"
        "        n += 1\n"
        "except OSError as exc:\n"
        "    print(n, exc.errno)\n"
    )
    before = set(_processes_of(65534))
    result = run_program(program, FAST)
    forked, errno = map(int, result.stdout.split())
    assert result.status == "ok" and forked < FAST.processes and errno == 11  # EAGAIN from RLIMIT_NPROC
    if os.geteuid() == 0:  # the sandbox ran as nobody: none of its sleeping children survived
        assert set(_processes_of(65534)) <= before


@needs_isolation
def test_a_memory_hog_fails_to_allocate() -> None:
    program = "chunks = []\nwhile True:\n    chunks.append(bytearray(64 << 20))\n"
    result = run_program(program, Limits(memory_bytes=512 << 20, wall_seconds=30.0))
    assert result.status == "exit" and "MemoryError" in result.stderr


@needs_isolation
def test_writes_outside_its_directory_do_not_reach_the_host(tmp_path: Path) -> None:
    targets = [tmp_path / "escaped.txt", Path.home() / "escaped.txt", Path(__file__).parent / "escaped.txt",
               Path("/var/tmp/escaped.txt")]
    program = (
        "import os\n"
        f"for path in {[str(t) for t in targets]!r}:\n"
        "    try:\n"
        "        with open(path, 'w') as handle:\n"
        "            handle.write('x')\n"
        "        print('wrote', path)\n"
        "    except OSError as exc:\n"
        "        print('refused', path, exc.errno)\n"
        "open('mine.txt', 'w').write('its own directory is writable')\n"
        "print('own', os.path.exists('mine.txt'))\n"
    )
    result = run_program(program, FAST)
    assert result.status == "ok" and "own True" in result.stdout
    assert not any(t.exists() for t in targets)  # refused, or written into a private tmpfs that is gone


@needs_isolation
def test_huge_output_is_cut_at_the_output_limit() -> None:
    result = run_program("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n", FAST)
    assert result.status == "output_limit" and len(result.stdout) == FAST.output_bytes


@needs_isolation
def test_no_network_and_no_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    program = (
        "import os, socket\n"
        "print(sorted(os.environ.items()))\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 53), timeout=2)\n"
        "    print('connected')\n"
        "except OSError as exc:\n"
        "    print('offline', exc.errno)\n"
    )
    result = run_program(program, FAST)
    assert result.status == "ok" and "sk-secret-value" not in result.stdout and "OPENAI" not in result.stdout
    assert "offline" in result.stdout and "connected" not in result.stdout


def test_without_a_network_namespace_programs_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "isolation", lambda: (None, "unshare: Operation not permitted"))
    with pytest.raises(SchedcError) as caught:
        run_program("print('never runs')")
    assert "refusing to run" in str(caught.value) and "B401" in str(caught.value)


# ---------------------------------------------------------------------------------------------- solver-code mode


def test_extract_program_takes_the_last_python_block() -> None:
    from schedc.bench.solver_code import extract_program

    text = "Plan:\n```python\nprint(1)\n```\nBetter:\n```py\nprint(2)\n```\n```text\nJob 1\n```\n"
    assert extract_program(text) == "print(2)\n"
    assert extract_program("```\nprint(3)\n```") == "print(3)\n"  # an untagged block when no tagged one exists
    assert extract_program("print(4)") == "print(4)"  # the whole text otherwise


@needs_isolation
def test_solver_code_build_and_eval(tmp_path: Path) -> None:
    import json

    from schedc.bench.build import build
    from schedc.bench.evaluate import evaluate
    from schedc.bench.solver_code import instruction
    from schedc.verify.verifier import Verifier
    from tests.test_bench import _copy_sources

    sources = _copy_sources(tmp_path / "src")
    out = tmp_path / "bench"
    build([sources], out, ["v1"], [42], answer_mode="solver-code")
    records = {json.loads(x)["id"]: json.loads(x) for x in (out / "dataset.jsonl").read_text().splitlines()}
    ft06 = records["jsplib/ft06/v1/s42"]
    assert ft06["answer_mode"] == "solver-code" and ft06["prompt"].endswith(instruction())
    assert ft06["response_format"] in ft06["prompt"]  # the same instance text and answer format as text mode
    assert json.loads((out / "manifest.json").read_text())["answer_mode"] == "solver-code"

    from schedc.backends.cpsat import SolveOptions, solve
    from schedc.lang.family import load_family
    from schedc.lang.load import load_instance

    instance = load_instance(out / ft06["spec"])
    family = load_family(instance.family)
    schedule = Verifier(instance, family).write(solve(instance, family, SolveOptions(time_limit=5, workers=1)).solution)
    responses = [
        {"model": "m", "id": "jsplib/ft06/v1/s42", "text": f"Here:\n```python\nprint({schedule!r}, end='')\n```"},
        {"model": "m", "id": "jsplib/la01/v1/s42", "text": "```python\nimport time\ntime.sleep(600)\n```"},
        {"model": "m", "id": "jsplib/ta01/v1/s42", "text": "```python\nraise SystemExit(3)\n```"},
    ]
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in responses))
    evaluate(out, [path], tmp_path / "report", program_limits=Limits(cpu_seconds=2, wall_seconds=2.0),
             families=["jsplib"])
    answers = {json.loads(x)["id"]: json.loads(x) for x in (tmp_path / "report" / "answers.jsonl").read_text()
               .splitlines()}
    good, hung, failed = (answers[r["id"]] for r in responses)
    assert good["program_status"] == "ok" and good["feasible"] and good["gap_pct"] is not None
    assert hung["program_status"] == "timeout" and not hung["extracted"] and not hung["feasible"]
    assert failed["program_status"] == "exit" and not failed["feasible"]


def test_interpreter_folders_inside_a_shadowed_folder_are_held_for_binding_back(tmp_path: Path) -> None:
    """A virtual environment under /tmp (CI clones there) stays reachable once a tmpfs covers /tmp."""
    from schedc.bench import sandbox_boot

    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")
    held = sandbox_boot.hold_shadowed([str(venv / "bin" / "python"), str(venv), "/usr"], [str(tmp_path)])
    try:
        assert [folder for _, folder in held] == [os.path.realpath(venv)]  # the outermost folder only, /usr untouched
    finally:
        for fd, _ in held:
            os.close(fd)
