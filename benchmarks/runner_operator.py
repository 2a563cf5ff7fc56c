"""``schedc bench run`` against operator mistakes: two runs on one folder, and signals at any moment.

* ``two``: two ``bench run`` processes started together on one benchmark folder (``--prompts``
  prompts, the fake server answering each request after ``--delay`` s): how many requests the
  server got, how many response and cache records were written, how many ids twice, and how each
  process ended.
* ``signals``: ``--signals`` runs, each sent SIGINT or SIGTERM at a moment drawn from
  ``[0, --latest]`` s after start (seeded): the exit status and the seconds from the signal to the
  end of the process (the documented bound is 2 s), with the load average at that moment.

    python benchmarks/runner_operator.py [--tree CHECKOUT] [--case two|signals] [--prompts 354]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fake_server import FakeServer  # noqa: E402

MODEL = "bench-model"


def dataset(folder: Path, prompts: int) -> None:
    with (folder / "dataset.jsonl").open("w", encoding="utf-8") as handle:
        for index in range(prompts):
            handle.write(json.dumps({"id": f"r{index:05d}", "system": "You schedule.",
                                     "prompt": f"Schedule instance {index}."}) + "\n")


def command(tree: Path, folder: Path, url: str, *extra: str) -> list[str]:
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tree)!r}); from schedc.cli import main; "
            "sys.argv[0] = 'schedc'; main()", "bench", "run", str(folder), "--endpoint", url, "--model", MODEL,
            "--concurrency", "4", "--backoff", "0.01", "--timeout", "30", *extra]


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def two(tree: Path, prompts: int, delay: float) -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeServer(delay=delay) as server:
        folder = Path(tmp)
        dataset(folder, prompts)
        load = os.getloadavg()[0]
        processes = [subprocess.Popen(command(tree, folder, server.url), stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True) for _ in range(2)]
        ends = [p.communicate(timeout=900) for p in processes]
        records = lines(folder / "responses" / f"{MODEL}.jsonl")
        cache = lines(folder / "cache" / f"{MODEL}.jsonl")
        ids = Counter(r["id"] for r in records)
        print(json.dumps({"case": "two runs on one folder", "tree": str(tree), "prompts": prompts, "load": load,
                          "requests": len(server.requests), "response_records": len(records),
                          "ids_twice": sum(1 for n in ids.values() if n > 1), "cache_records": len(cache),
                          "exits": [p.returncode for p in processes],
                          "last_lines": [(out.strip().splitlines() or [""])[-1] + " | "
                                         + (err.strip().splitlines() or [""])[-1] for out, err in ends]}))


def signals(tree: Path, runs: int, latest: float, seed: int) -> None:
    rng = random.Random(seed)
    rows = []
    for index in range(runs):
        with tempfile.TemporaryDirectory() as tmp, FakeServer(delay=0.2) as server:
            folder = Path(tmp)
            dataset(folder, 200)
            signum = rng.choice([signal.SIGINT, signal.SIGTERM])
            at = rng.uniform(0, latest)
            process = subprocess.Popen(command(tree, folder, server.url), stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)
            time.sleep(at)
            load = os.getloadavg()[0]
            process.send_signal(signum)
            sent = time.perf_counter()
            try:
                out, err = process.communicate(timeout=30)
                seconds = time.perf_counter() - sent
            except subprocess.TimeoutExpired:
                process.kill()
                out, err = process.communicate()
                seconds = float("inf")
            rows.append(seconds)
            print(json.dumps({"run": index, "signal": signal.Signals(signum).name, "at": round(at, 2),
                              "exit": process.returncode, "seconds_to_exit": round(seconds, 2), "load": load,
                              "traceback": "Traceback" in err,
                              "stderr_last": (err.strip().splitlines() or [""])[-1][:120]}), flush=True)
    print(json.dumps({"case": "signals", "tree": str(tree), "runs": runs, "max_seconds": round(max(rows), 2),
                      "over_2s": sum(1 for s in rows if s > 2.0)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--case", action="append", choices=["two", "signals"])
    parser.add_argument("--prompts", type=int, default=354)
    parser.add_argument("--delay", type=float, default=0.02)
    parser.add_argument("--signals", type=int, default=7)
    parser.add_argument("--latest", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=32)
    args = parser.parse_args()
    for case in args.case or ["two", "signals"]:
        if case == "two":
            two(args.tree.resolve(), args.prompts, args.delay)
        else:
            signals(args.tree.resolve(), args.signals, args.latest, args.seed)


if __name__ == "__main__":
    main()
