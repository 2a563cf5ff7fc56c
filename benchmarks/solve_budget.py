"""Wall time of ``schedc solve`` against its ``--time-limit``, with numba's cache empty or warm (issue 29).

Each run is a new process, ``python -m schedc solve SPEC --time-limit T --json`` with the checkout's
code first on the path (``--code``, default this one), timed from its start to its end: imports,
parsing, model building, any compilation, the search, verification and the answer. A *cold* run
points ``NUMBA_CACHE_DIR`` at a new empty folder (a fresh installation, as far as numba's cache
goes); a *warm* one at a folder filled beforehand, untimed, by ``ctt_search.warm_up()``; a *plain*
one runs the pure-Python path (``NUMBA_DISABLE_JIT=1``: nothing compiled, nothing cached). After a
cold run of a checkout that compiles in the background (``ctt_compile``), the benchmark waits
for that compile to end before the next run (so that no run competes with the previous one's
compile) and prints how long after the solve it ended. The load average (1 min) is printed
before each run: on a shared machine every number moves with it.

    python benchmarks/solve_budget.py SPEC [--time-limit 10] [--cold 3] [--warm 1] [--plain 0] [--code CHECKOUT]
        [--explain-time 0] [--backend cpsat|pyomo|auto] [--timeout 600]

Without ``--backend`` each run uses the default of the checkout that runs (``schedc solve`` with no
``--backend``: since issue #29, ``auto`` on slot models when the ``milp`` extra is installed).

The over-demanded roster of ``tests/data/callcentre`` (infeasible) measures the time to prove
infeasibility: ``--cold 0 --warm 1 --no-fill --time-limit 60 --explain-time 10``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _env(code: Path, cache: Path | None, plain: bool = False) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(code)}
    if cache is None:  # numba's default cache location
        env.pop("NUMBA_CACHE_DIR", None)
    else:
        env["NUMBA_CACHE_DIR"] = str(cache)
    if plain:
        env["NUMBA_DISABLE_JIT"] = "1"
    return env


def warm(code: Path, cache: Path) -> float:
    """Fill ``cache`` with the checkout's kernel (untimed for the runs); the seconds it took."""
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from schedc.backends.search.ctt_search import warm_up; warm_up()"],
                   env=_env(code, cache), cwd=code, check=True, capture_output=True)
    return time.perf_counter() - began


def wait_for_compile(code: Path, cache: Path) -> float | None:
    """Block until the background compile of the checkout (if it has one) releases its lock;
    the seconds waited, None when the checkout has no background compile."""
    script = ("import fcntl, sys\n"
              "try:\n    from schedc.backends.search import ctt_compile\n"
              "except ImportError:\n    sys.exit(3)\n"
              "handle = open(ctt_compile.lock_path(), 'ab')\nfcntl.flock(handle.fileno(), fcntl.LOCK_EX)\n")
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], env=_env(code, cache), cwd=code, capture_output=True)
    return None if done.returncode == 3 else time.perf_counter() - began


def run(code: Path, spec: Path, cache: Path | None, args: argparse.Namespace, plain: bool = False
        ) -> dict[str, object]:
    """One timed ``schedc solve``: wall seconds, the result's status, objective and own seconds,
    whether it printed the background-compile line."""
    command = [sys.executable, "-m", "schedc", "solve", str(spec), "--time-limit", str(args.time_limit),
               *(["--backend", args.backend] if args.backend else []), "--explain-time", str(args.explain_time),
               "--json"]
    load = os.getloadavg()[0]
    began = time.perf_counter()
    try:
        # run in the checkout: `python -m` puts the working directory first on the path
        done = subprocess.run(command, env=_env(code, cache, plain), cwd=code, capture_output=True, text=True,
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:  # subprocess.run has killed it
        return {"wall": time.perf_counter() - began, "load": load, "status": "no end", "objective": None,
                "seconds": float("nan"), "compile_line": False, "conflict": None}
    wall = time.perf_counter() - began
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"no JSON from {' '.join(command)}:\n{done.stdout}\n{done.stderr}") from None
    conflict = result.get("conflict")
    return {"wall": wall, "load": load, "status": result["status"], "objective": result["objective"],
            "seconds": result["seconds"], "compile_line": "compiling" in done.stderr,
            "conflict": None if conflict is None else (len(conflict["constraints"]), conflict["seconds"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec", type=Path)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--cold", type=int, default=3, help="runs with an empty numba cache")
    parser.add_argument("--warm", type=int, default=1, help="runs with a warm numba cache")
    parser.add_argument("--plain", type=int, default=0,
                        help="runs of the pure-Python path (NUMBA_DISABLE_JIT=1), interleaved with the cold ones")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose code runs")
    parser.add_argument("--backend", choices=("cpsat", "pyomo", "auto"), help="default: schedc solve's own")
    parser.add_argument("--explain-time", type=float, default=0.0)
    parser.add_argument("--timeout", type=float, default=600.0, help="a run still going after this is killed")
    parser.add_argument("--no-fill", action="store_true",
                        help="warm runs use numba's default cache as it is (no timetable kernel needed)")
    args = parser.parse_args()
    code, spec = args.code.resolve(), args.spec.resolve()
    print(f"{spec.name}, --time-limit {args.time_limit:g}, backend {args.backend or 'default'}, code {code}")
    print(f"{'run':<8} {'load':>5} {'wall s':>8} {'solve s':>8}  {'status':<11} {'objective':>9}  notes")
    with tempfile.TemporaryDirectory(prefix="schedc-numba-") as folder:
        warm_cache = Path(folder) / "warm"
        rows: list[tuple[str, Path | None]] = []
        for k in range(max(args.cold, args.plain)):
            rows += [("cold", Path(folder) / f"cold{k}")] if k < args.cold else []
            rows += [("plain", Path(folder) / "plain")] if k < args.plain else []
        if args.warm and not args.no_fill:
            print(f"(warm cache filled in {warm(code, warm_cache):.1f} s, untimed)")
        rows += [("warm", None if args.no_fill else warm_cache)] * args.warm
        for k, (kind, cache) in enumerate(rows):
            out = run(code, spec, cache, args, plain=kind == "plain")
            notes = ["compile line"] if out["compile_line"] else []
            if out["conflict"] is not None:
                notes.append(f"conflict of {out['conflict'][0]} found in {out['conflict'][1]:.2f} s")
            if kind == "cold":
                waited = wait_for_compile(code, cache)
                if waited is not None:
                    notes.append(f"background compile ended {waited:.1f} s after the solve")
            objective = "–" if out["objective"] is None else out["objective"]
            print(f"{kind} {k + 1:<3} {out['load']:5.2f} {out['wall']:8.2f} {out['seconds']:8.2f}  "
                  f"{out['status']:<11} {objective:>9}  {'; '.join(notes)}", flush=True)


if __name__ == "__main__":
    main()
