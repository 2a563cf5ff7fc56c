"""``schedc bench run`` under faults: N prompts against the fault-injecting local server, next to a run
without faults, in one process.

The server (:mod:`tests.fake_server`, 127.0.0.1) injects 429 with Retry-After, 500, slow replies past
the client's timeout, truncated bodies (IncompleteRead), invalid JSON and connection resets on each of
the first two attempts of a prompt with probability ``--fault-rate``. Reported per run: wall time,
requests per record, retries, records lost (must be 0) and duplicated (must be 0); and the fault table:
per fault, how many were injected and what became of the prompts that met it.

    python benchmarks/runner_faults.py [--prompts 1000] [--concurrency 16] [--fault-rate 0.3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedc.bench.decoding import Options  # noqa: E402
from schedc.bench.run import Settings, run  # noqa: E402
from tests.fake_server import FakeServer  # noqa: E402

MODEL = "bench-model"


def dataset(folder: Path, prompts: int) -> list[str]:
    """``prompts`` distinct prompts in ``folder/dataset.jsonl``; their user texts."""
    texts = [f"Schedule instance {i}." for i in range(prompts)]
    with (folder / "dataset.jsonl").open("w", encoding="utf-8") as handle:
        for index, text in enumerate(texts):
            handle.write(json.dumps({"id": f"r{index:05d}", "system": "You schedule.", "prompt": text}) + "\n")
    return texts


def one_run(prompts: int, concurrency: int, fault_rate: float, timeout: float, slow: float) -> dict:
    """A run in a fresh folder against a fresh server: its figures and the server's fault log."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        texts = dataset(folder, prompts)
        with FakeServer(rate=fault_rate, slow=slow, seed=11, retry_after="0.05") as server:
            settings = Settings(endpoint=server.url, timeout=timeout, retries=4, backoff=0.05, max_backoff=1.0,
                                concurrency=concurrency, seed=1)
            started = time.perf_counter()
            summary = run(folder, server.url, MODEL, options=Options(model=MODEL), settings=settings,
                          warn=lambda message: None)
            wall = time.perf_counter() - started
            faults = _faults_by_prompt(server)
        records = [json.loads(line) for line in (folder / "responses" / f"{MODEL}.jsonl").read_text().splitlines()]
    ids = Counter(r["id"] for r in records)
    answered = {r["id"] for r in records if r["error"] is None}
    return {"wall": wall, "summary": summary, "lost": prompts - len(answered),
            "duplicated": sum(ids.values()) - len(ids), "errors": sum(1 for r in records if r["error"]),
            "faults": faults, "prompts": texts, "answered_texts": {r["text"] for r in records if r["error"] is None}}


def _faults_by_prompt(server: FakeServer) -> dict[str, Counter]:
    """fault → Counter of the prompts that met it (one entry per injection)."""
    out: dict[str, Counter] = defaultdict(Counter)
    attempts: Counter = Counter()
    for body in server.requests:
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        fault = server.plan(key, attempts[key])
        attempts[key] += 1
        if fault:
            out[fault][body["messages"][-1]["content"]] += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prompts", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--fault-rate", type=float, default=0.3)
    parser.add_argument("--timeout", type=float, default=0.5, help="client timeout per attempt (s)")
    parser.add_argument("--slow", type=float, default=1.0, help="delay of a slow reply (s), past the timeout")
    args = parser.parse_args()
    runs = {"no faults": one_run(args.prompts, args.concurrency, 0.0, args.timeout, args.slow),
            "faults": one_run(args.prompts, args.concurrency, args.fault_rate, args.timeout, args.slow)}
    print(f"{args.prompts} prompts, concurrency {args.concurrency}, fault rate {args.fault_rate} on each of the "
          f"first two attempts, timeout {args.timeout} s, retries 4\n")
    print("| run | wall s | requests | requests/record | retries | lost | duplicated | error records |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, result in runs.items():
        s = result["summary"]
        print(f"| {name} | {result['wall']:.2f} | {s.requests} | {s.requests / args.prompts:.3f} | {s.retries} | "
              f"{result['lost']} | {result['duplicated']} | {result['errors']} |")
    faulty = runs["faults"]
    print("\n| fault | injected | prompts hit | outcome |")
    print("|---|---:|---:|---|")
    for fault in ("429", "500", "slow", "truncated", "invalid-json", "reset"):
        hits = faulty["faults"].get(fault, Counter())
        answered = sum(1 for p in hits if _answer(p) in faulty["answered_texts"])
        print(f"| {fault} | {sum(hits.values())} | {len(hits)} | retried; {answered}/{len(hits)} prompts answered |")


def _answer(prompt: str) -> str:
    from tests.fake_server import answer_of

    return answer_of({"messages": [{"content": prompt}]})


if __name__ == "__main__":
    main()
