"""The solver-code sandbox against hostile programs: each must end without harming the caller or the machine.

Every test asserts what the program could not do (the status it ended with, files that do not
exist afterwards, processes that do not survive), never how long it took.
"""

from __future__ import annotations

import errno
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


def test_outermost_folders_are_bound_once(tmp_path: Path) -> None:
    """A folder inside another bound folder (site-packages inside its virtual environment) is not bound again."""
    from schedc.bench import sandbox_boot

    venv = tmp_path / "venv"
    (venv / "lib" / "site-packages").mkdir(parents=True)
    paths = [str(venv / "lib" / "site-packages"), str(venv), "/usr", str(tmp_path / "missing")]
    assert sandbox_boot.outermost(paths) == sorted([os.path.realpath(venv), "/usr"])


# ---------------------------------------------------------------------------------------------- side doors


PRELUDE = "import ctypes, errno, os, socket, sys\nlibc = ctypes.CDLL(None, use_errno=True)\n"


def _lines(result: sandbox.RunResult) -> list[str]:
    assert result.status == "ok", result
    return result.stdout.splitlines()


@needs_isolation
def test_no_socket_of_any_family_not_even_to_a_host_unix_socket_in_the_venv() -> None:
    """The host listens on a world-writable Unix socket inside the virtual environment, which is bound into
    the sandbox: socket(2) itself is refused, so nothing connects (it once did)."""
    import socket
    import sys
    import tempfile

    folder = tempfile.mkdtemp(prefix=".sandbox-test", dir=sys.prefix)
    path = os.path.join(folder, "host.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.chmod(folder, 0o755)
        server.bind(path)
        os.chmod(path, 0o777)
        server.listen(1)
        server.settimeout(0.5)
        program = PRELUDE + (
            "for family in (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK, socket.AF_PACKET):\n"
            "    try:\n"
            "        socket.socket(family, socket.SOCK_DGRAM if family != socket.AF_UNIX else socket.SOCK_STREAM)\n"
            "        print('created', family)\n"
            "    except OSError as exc:\n"
            "        print('refused', exc.errno)\n"
            "a, b = socket.socketpair()\n"  # a pair reaches nothing outside: allowed
            "a.sendall(b'x')\n"
            "print('pair', b.recv(1))\n")
        lines = _lines(run_program(program, FAST))
        assert lines == [f"refused {errno.EPERM}"] * 5 + ["pair b'x'"]
        try:
            server.accept()
            pytest.fail("something connected to the host's socket")
        except TimeoutError:
            pass
    finally:
        server.close()
        Path(path).unlink(missing_ok=True)
        os.rmdir(folder)


@needs_isolation
@pytest.mark.parametrize("call", [
    "libc.unshare(0x10000000)",  # CLONE_NEWUSER: returned 0 once
    "libc.unshare(0x00020000)",  # CLONE_NEWNS
    "libc.syscall(56, 0x40000000 | 17, 0, 0, 0, 0) if os.uname().machine == 'x86_64' else -1",  # clone(NEWNET)
    "libc.ptrace(0, 0, None, None)",  # PTRACE_TRACEME: returned 0 once
    "libc.syscall(250 if os.uname().machine == 'x86_64' else 219, 0, -3, 0)",  # keyctl: returned a keyring once
    "libc.syscall(425, 4, ctypes.byref((ctypes.c_uint8 * 120)()))",  # io_uring_setup: returned a descriptor once
    "libc.mount(b'none', b'/tmp/work', b'tmpfs', 0, None)",
])
def test_kernel_side_doors_are_refused(call: str) -> None:
    program = PRELUDE + f"r = {call}\nprint(r, ctypes.get_errno())\n"
    assert _lines(run_program(program, FAST)) == [f"-1 {errno.EPERM}"]


@needs_isolation
def test_threads_forks_and_process_pools_still_work() -> None:
    """The filter refuses namespaces, not processes: clone without namespace flags (fork, threads after clone3
    answers ENOSYS) and multiprocessing run as before."""
    program = (
        "import os, threading, multiprocessing\n"
        "t = threading.Thread(target=print, args=('thread',))\n"
        "t.start(); t.join()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os._exit(7)\n"
        "print('child', os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))\n"
        "with multiprocessing.Pool(2) as pool:\n"
        "    print('pool', pool.map(abs, [-1, -2]))\n")
    assert _lines(run_program(program, FAST)) == ["thread", "child 7", "pool [1, 2]"]


@needs_isolation
def test_a_system_call_of_another_abi_kills_the_program() -> None:
    if os.uname().machine != "x86_64":
        pytest.skip("the x32 ABI is x86-64's")
    program = PRELUDE + "print('before', flush=True)\nlibc.syscall(0x40000000 | 41, 1, 1, 0)\nprint('after')\n"
    result = run_program(program, FAST)
    assert result.status == "killed" and result.stdout == "before\n"


@needs_isolation
def test_the_filesystem_holds_nothing_of_the_host_but_the_interpreter() -> None:
    import sys

    here = Path(__file__).resolve()
    program = (
        "import os, sys\n"
        f"for path in ['/etc/passwd', {str(here)!r}, '/run', '/home', {str(Path.home())!r}]:\n"
        "    print(path, os.path.exists(path) and sorted(os.listdir(path)) if os.path.isdir(path) else "
        "os.path.exists(path))\n"
        "print(sorted(os.listdir('/')))\n"
        "try:\n"
        "    open('/evil', 'w')\n"
        "except OSError as exc:\n"
        "    print('root', exc.strerror)\n"
        "print('own', open('/tmp/work/x', 'w').write('x'))\n"
        "import ortools\n"
        "print('ortools', ortools.__name__)\n")
    lines = _lines(run_program(program, FAST))
    assert lines[0] == "/etc/passwd False" and lines[1] == f"{here} False"
    assert lines[2] == "/run False" and lines[3] == "/home False"
    home = lines[4].split(" ", 1)[1]
    interpreter_roots = {Path(p).resolve().parts[1 + len(Path.home().parts) - 1] for p in (sys.prefix,
                         sys.base_prefix) if Path(p).resolve().is_relative_to(Path.home())}
    assert home == "False" or set(eval(home)) <= interpreter_roots  # only the way to the interpreter
    assert set(eval(lines[5])) <= {"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "tmp", "usr",
                                   *{Path(p).resolve().parts[1] for p in (sys.prefix, sys.base_prefix)}}
    assert lines[6:] == ["root Read-only file system", "own 1", "ortools ortools"]


@needs_isolation
def test_a_stderr_flood_ends_the_run_at_the_output_limit() -> None:
    """stderr counts against the output limit (it once ran on to the wall limit, 8 KiB of it kept)."""
    result = run_program("import sys\nprint('start', flush=True)\nwhile True:\n    sys.stderr.write('x' * 65536)\n",
                         Limits(wall_seconds=60.0, cpu_seconds=60, output_bytes=1 << 20))
    assert result.status == "output_limit" and result.stdout == "start\n"
    assert len(result.stderr) == sandbox.STDERR_BYTES


@needs_isolation
def test_without_seccomp_the_sandbox_runs_nothing() -> None:
    """The boot process cannot import pyseccomp: it says so and exits 125; the program never runs."""
    import subprocess

    command = sandbox._command(FAST, sandbox.isolation()[0])
    boot, config = command[-2], command[-1]
    shim = ("import sys; sys.modules['pyseccomp'] = None; sys.argv = [sys.argv[1], sys.argv[2]]; import runpy; "
            "runpy.run_path(sys.argv[0], run_name='__main__')")
    command[-3:] = ["-I", "-c", shim, boot, config]
    done = subprocess.run(command, input=b"print('ran')", capture_output=True, timeout=60, env=sandbox._clean_env())
    assert done.returncode == 125 and b"sandbox:" in done.stderr and b"ran" not in done.stdout
