"""The solver-code sandbox against side doors: one hostile program per probe, and what it managed.

Usage: ``python benchmarks/sandbox_escapes.py [--tree PATH]`` (``--tree``: the schedc checkout whose
sandbox is probed; default this one, give an older checkout to compare). Prints a Markdown table:
probe, what the program reported (``ESCAPED …`` when it got through, ``blocked …`` otherwise), the
run's status and seconds. Probes:

* ``unix socket``: the host listens on a Unix socket inside the virtual environment (bound into the
  sandbox for the interpreter), world-writable; the program connects and sends a line;
* ``inet socket``: the program creates a TCP socket (the network namespace has no route anyway);
* ``unshare(NEWUSER)``, ``unshare(NEWNS)``, ``clone(NEWNET)``: new namespaces from inside;
* ``ptrace``, ``keyctl``, ``bpf``, ``io_uring_setup``, ``mount``: kernel interfaces a solver never needs;
* ``/etc/passwd``, the project, the home folder and the folder of the virtual environment, ``/run``: what of
  the host's files it can read (the interpreter's own folders do not count);
* ``stderr flood``: writing to stderr without end (does the run end at the output cap or at the wall limit).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PRELUDE = """
import ctypes, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
def report(ok, what):
    print(("ESCAPED " if ok else "blocked ") + what)
def errno_text():
    e = ctypes.get_errno()
    return f"errno {e} {os.strerror(e)}"
"""

PROBES = {
    "unix socket to the host": """
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(@path@)
    s.sendall(b"hello from the sandbox\\n")
    report(True, "connected to " + @path@)
except OSError as exc:
    report(False, f"{type(exc).__name__}: {exc}")
""",
    "inet socket": """
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    report(True, "created a TCP socket")
except OSError as exc:
    report(False, f"{type(exc).__name__}: {exc}")
""",
    "unshare(CLONE_NEWUSER)": """
r = libc.unshare(0x10000000)
report(r == 0, f"unshare returned {r}" + ("" if r == 0 else ", " + errno_text()))
""",
    "unshare(CLONE_NEWNS)": """
r = libc.unshare(0x00020000)
report(r == 0, f"unshare returned {r}" + ("" if r == 0 else ", " + errno_text()))
""",
    "ptrace(PTRACE_TRACEME)": """
r = libc.ptrace(0, 0, None, None)
report(r == 0, f"ptrace returned {r}" + ("" if r == 0 else ", " + errno_text()))
""",
    "keyctl(GET_KEYRING_ID)": """
r = libc.syscall(@keyctl@, 0, -3, 0)
report(r >= 0, f"keyctl returned {r}" + ("" if r >= 0 else ", " + errno_text()))
""",
    "bpf(MAP_CREATE)": """
attr = (ctypes.c_uint32 * 8)(1, 4, 4, 1, 0, 0, 0, 0)
r = libc.syscall(@bpf@, 0, ctypes.byref(attr), ctypes.sizeof(attr))
report(r >= 0, f"bpf returned {r}" + ("" if r >= 0 else ", " + errno_text()))
""",
    "io_uring_setup": """
params = (ctypes.c_uint8 * 120)()
r = libc.syscall(@io_uring_setup@, 4, ctypes.byref(params))
report(r >= 0, f"io_uring_setup returned {r}" + ("" if r >= 0 else ", " + errno_text()))
""",
    "mount(tmpfs)": """
os.makedirs("m", exist_ok=True)
r = libc.mount(b"none", b"m", b"tmpfs", 0, None)
report(r == 0, f"mount returned {r}" + ("" if r == 0 else ", " + errno_text()))
""",
    "read /etc/passwd": """
try:
    text = open("/etc/passwd").read()
    report(True, f"read {len(text.splitlines())} accounts")
except OSError as exc:
    report(False, f"{type(exc).__name__}: {exc.strerror}")
""",
    "read the project folder": """
try:
    text = open(@readme@).read()
    report(True, f"read {len(text)} characters of " + @readme@)
except OSError as exc:
    report(False, f"{type(exc).__name__}: {exc.strerror}")
""",
    "list the home and project folders": """
seen = {}
for folder in (@home@, @project@, @venv_parent@):
    try:
        seen[folder] = sorted(os.listdir(folder))
    except OSError as exc:
        seen[folder] = exc.strerror
needed = {part for path in @interpreter@ for part in path.strip("/").split("/")}
extra = {f: [n for n in v if n not in needed] for f, v in seen.items() if isinstance(v, list)}
report(any(extra.values()), f"beyond the interpreter's own folders: {extra}; {seen}")
""",
    "list /run": """
try:
    names = os.listdir("/run")
    report(bool(names), f"{len(names)} entries in /run")
except OSError as exc:
    report(False, f"{type(exc).__name__}: {exc.strerror}")
""",
    "stderr flood": """
print("flooding", flush=True)
while True:
    sys.stderr.write("x" * 65536)
""",
}


def fill(body: str, values: dict[str, object]) -> str:
    """A probe's program with its ``@name@`` markers replaced (paths as Python literals, numbers as numbers)."""
    for key, value in values.items():
        body = body.replace(f"@{key}@", repr(value))
    return body


def listener(path: str, got: list[bytes], done: threading.Event) -> socket.socket:
    """A world-writable Unix socket at ``path`` that records what connecting clients send."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o777)
    server.listen(4)
    server.settimeout(0.2)

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    got.append(conn.recv(1024))
                except OSError:
                    pass

    threading.Thread(target=serve, daemon=True).start()
    return server


#: Numbers of the system calls ctypes has no wrapper for, per machine.
SYSCALLS = {"x86_64": {"keyctl": 250, "bpf": 321, "io_uring_setup": 425},
            "aarch64": {"keyctl": 219, "bpf": 280, "io_uring_setup": 425}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the schedc checkout whose sandbox is probed")
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    from schedc.bench.sandbox import Limits, run_program

    got: list[bytes] = []
    folder = tempfile.mkdtemp(prefix=".probe", dir=sys.prefix)  # inside the virtual environment
    os.chmod(folder, 0o755)
    path = os.path.join(folder, "host.sock")
    done = threading.Event()
    server = listener(path, got, done)
    values = {"path": path, "readme": str(ROOT / "README.md"), "home": str(Path.home()), "project": str(ROOT),
              "venv_parent": str(Path(sys.prefix).parent), "interpreter": [sys.prefix, sys.base_prefix],
              **SYSCALLS.get(os.uname().machine, SYSCALLS["x86_64"])}
    limits = Limits(cpu_seconds=10, wall_seconds=10.0, output_bytes=1 << 20)
    print(f"sandbox of {args.tree.resolve()}, load {os.getloadavg()[0]:.2f}\n")
    print("| probe | what the program reported | status | seconds |\n|---|---|---|---|")
    try:
        for name, body in PROBES.items():
            result = run_program(PRELUDE + fill(body, values), limits)
            said = " / ".join(line for line in result.stdout.splitlines() if line.startswith(("ESCAPED", "blocked")))
            if name == "stderr flood":
                said = f"{len(result.stderr):,} bytes of stderr kept"
            print(f"| {name} | {said or result.stderr.strip().splitlines()[-1:]} | {result.status} | "
                  f"{result.seconds:.2f} |", flush=True)
    finally:
        done.set()
        server.close()
        os.unlink(path)
        os.rmdir(folder)
    print(f"\nthe host's socket received: {got or 'nothing'}")


if __name__ == "__main__":
    main()
