"""``schedc bench run`` against the fault-injecting local server (:mod:`tests.fake_server`, 127.0.0.1 only).

Every fault is retried a bounded number of times and nothing is lost or duplicated; a persistent fault
becomes an error record; ``Retry-After`` is honoured; SIGINT/SIGTERM stop a run within 2 s with exit 130
and a rerun resumes; a torn last line is a warning and is repaired; identical requests are sent once;
the request bodies of every decoding mode and server dialect are exactly as documented.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from schedc.backends.cpsat import SolveOptions, solve
from schedc.bench import run as run_module
from schedc.bench.decoding import Options, request_body, strict_problems, strict_schema
from schedc.bench.evaluate import check_group
from schedc.bench.retry import Backoff, retry_after
from schedc.bench.run import Settings, run
from schedc.cli import app
from schedc.core.diagnostics import SchedcError
from schedc.grammars import answer_spec, answer_text, gbnf_grammar, json_schema, lark_grammar
from schedc.importers import import_paths
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.render import render
from schedc.verify.verifier import Verifier
from tests.conftest import DATA, ROOT
from tests.fake_server import FAULTS, FakeServer, answer_of

MODEL = "fake-model"


def write_dataset(out: Path, prompts: list[str]) -> list[dict[str, Any]]:
    """A dataset of plain prompts (free decoding needs no spec)."""
    out.mkdir(parents=True, exist_ok=True)
    records = [{"id": f"r{index:04d}", "system": "You schedule.", "prompt": prompt} for index, prompt in
               enumerate(prompts)]
    (out / "dataset.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return records


def rendered_dataset(out: Path, examples: tuple[str, ...] = ("fjsp_small",), variants: tuple[str, ...] = ("v4",)
                     ) -> list[dict[str, Any]]:
    """A dataset of real renderings (with the spec and names a decoding mode needs)."""
    (out / "specs").mkdir(parents=True, exist_ok=True)
    records = []
    for example in examples:
        spec = out / "specs" / f"{example}.sched"
        spec.write_text((ROOT / "examples" / f"{example}.sched").read_text(encoding="utf-8"), encoding="utf-8")
        instance = load_instance(spec)
        for variant in variants:
            rendering = render(instance, None, variant, 42)
            records.append({"id": f"{example}-{variant}", "instance": instance.name, "family": instance.family,
                            "variant": variant, "seed": 42, "system": rendering.system,
                            "prompt": rendering.user_prompt(), "spec": f"specs/{example}.sched",
                            "names": [{"ir": k, "shown": v} for k, v in rendering.names.items()]})
    (out / "dataset.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return records


def settings(server: FakeServer, **changes: Any) -> Settings:
    """Fast settings for tests: tiny backoff and timeout."""
    values: dict[str, Any] = {"endpoint": server.url, "timeout": 0.25, "retries": 4, "backoff": 0.001,
                              "max_backoff": 0.05, "concurrency": 8, "grace": 0.2}
    return Settings(**{**values, **changes})


def responses(out: Path, name: str = MODEL) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "responses" / f"{name}.jsonl").read_text().splitlines()]


def quiet(message: str) -> None:
    """Warnings are collected in the summary; tests read them there."""


# ---------------------------------------------------------------------------------------------- faults


def test_every_fault_is_retried_and_nothing_is_lost_or_duplicated(tmp_path: Path) -> None:
    prompts = [f"prompt {i}" for i in range(60)]
    write_dataset(tmp_path, prompts)
    with FakeServer(rate=0.7, faulty_attempts=2, slow=0.8, seed=3) as server:
        summary = run(tmp_path, server.url, MODEL, options=Options(model=MODEL),
                      settings=settings(server, timeout=0.5), warn=quiet)
    assert set(server.injected) == set(FAULTS)  # every kind of fault was met
    records = responses(tmp_path)
    assert Counter(r["id"] for r in records) == Counter(f"r{i:04d}" for i in range(60))  # once each
    assert all(r["error"] is None and r["text"] == answer_of({"messages": [{"content": p}]})
               for r, p in zip(sorted(records, key=lambda r: r["id"]), prompts, strict=True))
    assert summary.errors == 0 and summary.sent == 60
    # one request per fault and per answer (more only if a healthy reply outlives the timeout on a busy machine)
    assert summary.requests == len(server.requests) >= 60 + sum(server.injected.values())
    assert max(server.attempts.values()) <= 5 and summary.retries == summary.requests - 60  # bounded


def test_a_persistent_fault_is_an_error_record_after_bounded_retries(tmp_path: Path) -> None:
    write_dataset(tmp_path, ["a", "b"])
    with FakeServer(plan=lambda key, attempt: "500") as server:
        summary = run(tmp_path, server.url, MODEL, options=Options(model=MODEL),
                      settings=settings(server, retries=2), warn=quiet)
    assert summary.errors == 2 and summary.requests == 6 and sorted(server.attempts.values()) == [3, 3]
    assert all(r["text"] is None and r["error"] == "HTTP 500 (after 3 attempts)" for r in responses(tmp_path))
    with FakeServer() as healthy:  # errors are not cached: a rerun asks again
        again = run(tmp_path, healthy.url, MODEL, options=Options(model=MODEL), settings=settings(healthy), warn=quiet)
    assert again.sent == 2 and again.errors == 0


def test_a_refused_request_is_recorded_at_once(tmp_path: Path) -> None:
    write_dataset(tmp_path, ["a"])
    options = Options(model=MODEL, extra_body={"grammar": "root ::= \"x\""})
    with FakeServer(dialect="openai") as server:
        summary = run(tmp_path, server.url, MODEL, options=options, settings=settings(server), warn=quiet)
    assert summary.errors == 1 and summary.requests == 1
    assert responses(tmp_path)[0]["error"].startswith("HTTP 400")


@pytest.mark.parametrize("header", ["0.3", "date"])
def test_retry_after_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header: str) -> None:
    waits: list[float] = []
    real_sleep = run_module._sleep

    async def recording_sleep(seconds: float, stop: Any) -> None:
        waits.append(seconds)
        await real_sleep(0, stop)

    monkeypatch.setattr(run_module, "_sleep", recording_sleep)
    write_dataset(tmp_path, ["a"])
    with FakeServer(plan=lambda key, attempt: "429" if attempt == 0 else None, retry_after=header) as server:
        summary = run(tmp_path, server.url, MODEL, options=Options(model=MODEL),
                      settings=settings(server, max_backoff=5.0), warn=quiet)
    assert summary.sent == 1 and summary.retries == 1
    assert waits == [0.3] if header == "0.3" else 0 < waits[0] <= 1.0


def test_retry_after_parsing_and_jittered_backoff() -> None:
    assert retry_after({"Retry-After": "7"}) == 7.0
    assert retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=lambda: 1445412470.0) == 10.0
    assert retry_after({"Retry-After": "soon"}) is None and retry_after(None) is None
    first, second = Backoff(base=1.0, cap=8.0, seed=5), Backoff(base=1.0, cap=8.0, seed=5)
    delays = [first.delay(k) for k in range(6)]
    assert delays == [second.delay(k) for k in range(6)]  # seeded
    assert all(min(8, 2 ** k) / 2 <= d < min(8, 2 ** k) for k, d in enumerate(delays))
    assert first.delay(0, server_wait=30.0) == 8.0  # a server's wait is capped too


# ---------------------------------------------------------------------------------------------- stopping


def _cli(out: Path, url: str, *extra: str) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "schedc", "bench", "run", str(out), "--endpoint", url, "--model", MODEL,
            "--backoff", "0.001", "--timeout", "5", *extra]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)


def _wait_for(condition: Any, seconds: float) -> bool:
    """Poll ``condition`` for at most ``seconds`` (a bounded wait)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_run_within_two_seconds_and_a_rerun_resumes(tmp_path: Path, signum: int) -> None:
    write_dataset(tmp_path, [f"prompt {i}" for i in range(30)])
    with FakeServer(delay=0.3) as server:
        process = _cli(tmp_path, server.url, "--concurrency", "2")
        assert _wait_for(lambda: len(server.requests) >= 4, 30), "the run never started"
        process.send_signal(signum)
        sent = time.monotonic()
        try:
            stdout, stderr = process.communicate(timeout=2.0)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail("the run did not stop within 2 s")
        stopped = time.monotonic() - sent
        assert process.returncode == 130, stderr
        assert stopped < 2.0 and "interrupted" in stdout and "a rerun resumes" in stdout
        requests_at_stop = len(server.requests)
        assert _wait_for(lambda: False, 0.4) is False and len(server.requests) == requests_at_stop  # none after
    first = responses(tmp_path)
    assert 0 < len(first) < 30 and len({r["id"] for r in first}) == len(first)
    with FakeServer() as server:
        again = run(tmp_path, server.url, MODEL, options=Options(model=MODEL), settings=settings(server), warn=quiet)
    assert again.skipped == len(first) and again.sent == 30 - len(first)
    records = responses(tmp_path)
    assert Counter(r["id"] for r in records) == Counter(f"r{i:04d}" for i in range(30))
    assert len(server.requests) == 30 - len(first)


def test_stop_from_another_thread(tmp_path: Path) -> None:
    write_dataset(tmp_path, [f"p{i}" for i in range(20)])
    stop = threading.Event()
    with FakeServer(delay=0.2) as server:
        threading.Timer(0.5, stop.set).start()
        summary = run(tmp_path, server.url, MODEL, options=Options(model=MODEL),
                      settings=settings(server, concurrency=2, timeout=5), stop=stop, warn=quiet)
    assert summary.interrupted and 0 < summary.sent < 20 and summary.unsent == 20 - summary.sent
    assert len(responses(tmp_path)) == summary.sent


# ---------------------------------------------------------------------------------------------- files


def test_a_torn_last_line_is_a_warning_and_is_repaired(tmp_path: Path) -> None:
    write_dataset(tmp_path, ["a", "b", "c"])
    with FakeServer() as server:
        run(tmp_path, server.url, MODEL, options=Options(model=MODEL), settings=settings(server), limit=2, warn=quiet)
        path = tmp_path / "responses" / f"{MODEL}.jsonl"
        cache = tmp_path / "cache" / f"{MODEL}.jsonl"
        for damaged in (path, cache):
            damaged.write_bytes(damaged.read_bytes()[:-9])  # a process killed while appending
        summary = run(tmp_path, server.url, MODEL, options=Options(model=MODEL), settings=settings(server),
                      warn=quiet)
    assert sum("torn last line" in w for w in summary.warnings) == 4  # read (2 files), then cut (2 files)
    for repaired in (path, cache):
        assert all(json.loads(line) for line in repaired.read_text().splitlines())
    assert Counter(r["id"] for r in responses(tmp_path)) == Counter(["r0000", "r0001", "r0002"])


def test_damage_before_the_last_line_is_an_error(tmp_path: Path) -> None:
    write_dataset(tmp_path, ["a"])
    path = tmp_path / "responses" / f"{MODEL}.jsonl"
    path.parent.mkdir()
    path.write_text('{"model": "m", "id": "x"}\nnot json\n{"model": "m", "id": "y"}\n')
    with pytest.raises(SchedcError, match="B202"):
        run(tmp_path, "http://127.0.0.1:9/v1", MODEL, options=Options(model=MODEL), warn=quiet)


def test_identical_requests_are_sent_once(tmp_path: Path) -> None:
    write_dataset(tmp_path, ["same", "other", "same", "same", "other", "third"])
    with FakeServer() as server:
        summary = run(tmp_path, server.url, MODEL, options=Options(model=MODEL),
                      settings=settings(server, timeout=30), warn=quiet)  # no retry may add a request
    assert len(server.requests) == 3 and summary.sent == 3 and summary.deduplicated == 3
    by_id = {r["id"]: r["text"] for r in responses(tmp_path)}
    assert by_id["r0000"] == by_id["r0002"] == by_id["r0003"] != by_id["r0001"] == by_id["r0004"]


def test_the_api_key_is_sent_and_never_written(tmp_path: Path) -> None:
    write_dataset(tmp_path, ["a", "b"])
    secret = "sk-test-0123456789-secret"
    with FakeServer() as server:
        done = CliRunner().invoke(app, ["bench", "run", str(tmp_path), "--endpoint", server.url, "--model", MODEL,
                                        "--api-key-env", "SCHEDC_TEST_KEY"], env={"SCHEDC_TEST_KEY": secret})
    assert done.exit_code == 0, done.output
    assert {h.get("authorization") for h in server.headers} == {f"Bearer {secret}"}
    assert all(secret.encode() not in p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert secret not in done.output


# ---------------------------------------------------------------------------------------------- request shapes


SHAPES = [("free", "vllm", "gbnf"), ("json-schema", "vllm", "gbnf"), ("json-schema", "llama.cpp", "gbnf"),
          ("json-schema", "openai", "gbnf"), ("grammar", "vllm", "gbnf"), ("grammar", "vllm", "lark"),
          ("grammar", "llama.cpp", "gbnf")]


def expected_body(record: dict[str, Any], decoding: str, server: str, grammar_format: str,
                  out: Path) -> dict[str, Any]:
    """The documented request body, written out by hand."""
    instance = load_instance(out / record["spec"])
    spec = answer_spec(instance, None, {p["ir"]: p["shown"] for p in record["names"]})
    body: dict[str, Any] = {"model": MODEL, "temperature": 0.0, "max_tokens": 900, "seed": 7,
                            "messages": [{"role": "system", "content": record["system"]},
                                         {"role": "user", "content": record["prompt"]}]}
    if decoding == "json-schema":
        schema = json_schema(spec)
        if server == "openai":
            schema = {k: v for k, v in schema.items() if k not in ("$schema", "$comment")}
        body["response_format"] = {"type": "json_schema",
                                   "json_schema": {"name": "schedule", "strict": True, "schema": schema}}
    elif decoding == "grammar":
        grammar = (gbnf_grammar if grammar_format == "gbnf" else lark_grammar)(spec)
        body.update({"structured_outputs": {"grammar": grammar}} if server == "vllm" else {"grammar": grammar})
    return body


@pytest.mark.parametrize(("decoding", "server", "grammar_format"), SHAPES, ids=["-".join(s) for s in SHAPES])
def test_request_bodies_per_decoding_mode(tmp_path: Path, decoding: str, server: str, grammar_format: str) -> None:
    [record] = rendered_dataset(tmp_path)
    options = Options(model=MODEL, decoding=decoding, server=server, grammar_format=grammar_format, max_tokens=900,
                      extra_body={"seed": 7})
    with FakeServer(dialect=server) as fake:
        # a generous timeout: this test is about the body, and a retry after a slow grammar check on a busy
        # machine would record the request twice
        summary = run(tmp_path, fake.url, MODEL, options=options, settings=settings(fake, timeout=30), warn=quiet)
    assert summary.sent == 1 and summary.errors == 0  # the dialect accepted it
    assert fake.requests == [expected_body(record, decoding, server, grammar_format, tmp_path)]
    suffix = "" if decoding == "free" else f".{decoding}"
    assert responses(tmp_path, MODEL + suffix)[0]["decoding"] == decoding


def test_shapes_a_server_cannot_take_are_refused() -> None:
    with pytest.raises(SchedcError, match="B305"):
        Options(model=MODEL, decoding="grammar", server="openai")
    with pytest.raises(SchedcError, match="B305"):
        Options(model=MODEL, decoding="grammar", server="llama.cpp", grammar_format="lark")
    with pytest.raises(SchedcError, match="B304"):
        Options(model=MODEL, decoding="regex")


@pytest.mark.parametrize("example", sorted(p.stem for p in (ROOT / "examples").glob("*.sched")))
def test_every_schema_is_inside_openai_strict_mode(example: str) -> None:
    instance = load_instance(ROOT / "examples" / f"{example}.sched")
    schema = strict_schema(json_schema(answer_spec(instance, None, None)))
    assert strict_problems(schema) == []
    body = request_body(Options(model=MODEL, decoding="json-schema", server="openai"), "s", "p", schema)
    assert body["response_format"]["json_schema"]["strict"] is True


def test_the_fjsp_schemas_anyof_is_inside_strict_mode() -> None:
    """Jobs of different lengths make the items an ``anyOf`` of closed objects: strict mode takes it."""
    [instance] = import_paths("fjsp", [DATA / "fjsp" / "brandimarte" / "Mk01.fjs"])
    schema = strict_schema(json_schema(answer_spec(instance, None, None)))
    variants = schema["properties"]["assignments"]["items"]["anyOf"]
    assert len(variants) > 1 and all(v["additionalProperties"] is False for v in variants)
    assert strict_problems(schema) == []
    assert strict_problems({"anyOf": [schema]}) == ["the root must be an object, not anyOf"]


def test_strict_problems_names_what_strict_mode_refuses() -> None:
    loose = {"type": "object", "properties": {"a": {"type": "string", "minLength": 2}}, "required": []}
    problems = strict_problems(loose)
    assert any("additionalProperties" in p for p in problems) and any("required" in p for p in problems)
    assert any("minLength" in p for p in problems)


# ---------------------------------------------------------------------------------------------- eval


def test_eval_reads_structured_answers(tmp_path: Path) -> None:
    [record] = rendered_dataset(tmp_path, ("rcpsp_small",), ("v4",))
    instance = load_instance(tmp_path / record["spec"])
    names = {p["ir"]: p["shown"] for p in record["names"]}
    verifier = Verifier(instance, None, names)
    text = verifier.write(solve(instance, load_family(instance.family), SolveOptions(time_limit=5, workers=1,
                                                                                      seed=1)).solution)
    items = [{"activity": line.split(": ")[0], "start": int(line.split(": ")[1])} for line in text.splitlines()]
    structured = json.dumps({"assignments": items})
    assert answer_text(instance, None, structured) == text
    assert answer_text(instance, None, f"```json\n{structured}\n```") == text
    assert answer_text(instance, None, "{not json") == "{not json"
    slot = {k: record.get(k) for k in ("id", "instance", "family", "variant", "seed", "names")}
    slots = [{**slot, "model": MODEL, "difficulty": "Easy", "text": structured},
             {**slot, "model": MODEL, "difficulty": "Easy", "text": '{"assignments": "none"}'}]
    good, bad = check_group({"spec": str(tmp_path / record["spec"]), "slots": slots})
    assert good["feasible"] and good["coverage"] == 1.0 and not bad["extracted"]


# ---------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("args", "message"), [
    (["--extra-body", "[1]"], "B306"), (["--extra-body", "{oops"], "B306"),
    (["--decoding", "regex"], "'regex' is not one of"), (["--server", "tgi"], "'tgi' is not one of"),
    (["--decoding", "grammar", "--server", "openai"], "B305"), (["--retries", "-1"], "B302"),
    (["--concurrency", "0"], "B301")])
def test_bad_options_are_clear_errors(tmp_path: Path, args: list[str], message: str) -> None:
    write_dataset(tmp_path, ["a"])
    done = CliRunner().invoke(app, ["bench", "run", str(tmp_path), "--endpoint", "http://127.0.0.1:9/v1",
                                    "--model", MODEL, *args])
    assert done.exit_code == 2 and message in done.output and "Traceback" not in done.output


def test_a_dataset_with_a_torn_last_line_runs_with_a_warning(tmp_path: Path) -> None:
    write_dataset(tmp_path, ["a", "b"])
    path = tmp_path / "dataset.jsonl"
    path.write_bytes(path.read_bytes() + b'{"id": "r9", "sys')
    with FakeServer() as server:
        summary = run(tmp_path, server.url, MODEL, options=Options(model=MODEL), settings=settings(server),
                      warn=quiet)
    assert summary.total == 2 and summary.sent == 2 and any("torn last line" in w for w in summary.warnings)


# ---------------------------------------------------------------------------------------------- no answer


def test_an_endpoint_that_answers_nothing_exits_3_with_a_message(tmp_path: Path) -> None:
    """Before: exit 1 like any partial failure, and only the summary line's error count to say why."""
    write_dataset(tmp_path, ["a", "b", "c"])
    args = ["bench", "run", str(tmp_path), "--model", MODEL, "--retries", "1", "--backoff", "0.001"]
    with FakeServer(plan=lambda key, attempt: "500") as server:
        dead = CliRunner().invoke(app, [*args, "--endpoint", server.url])
    assert dead.exit_code == 3, dead.output
    assert f"error: {server.url} answered none of the 3 prompts sent (last: HTTP 500 (after 2 attempts))" \
        in dead.stderr
    with FakeServer(plan=lambda key, attempt: "500" if prompt_is(key, server_b, "b") else None) as server_b:
        partial = CliRunner().invoke(app, [*args, "--endpoint", server_b.url])
    assert partial.exit_code == 1, partial.output
    assert "warning: 1 prompts got no answer (last: HTTP 500" in partial.stderr


def prompt_is(key: str, server: FakeServer, prompt: str) -> bool:
    """Whether the request of ``key`` (the server's hash of its body) asks ``prompt``."""
    import hashlib

    return any(hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest() == key
               and body["messages"][-1]["content"] == prompt for body in server.requests)


def test_progress_is_one_rich_line_with_rate_and_eta_in_a_log(tmp_path: Path) -> None:
    """stderr redirected to a log: one line with count, rate and ETA (before: ``\\r``-rewritten counts)."""
    write_dataset(tmp_path, [f"p{i}" for i in range(12)])
    with FakeServer() as server:
        process = _cli(tmp_path, server.url)
        stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert "\r" not in stderr
    [line] = [line for line in stderr.splitlines() if line.startswith(f"run {MODEL}")]
    assert "12/12" in line and re.search(r"\d+(\.\d)?/(s|min)", line) and "ETA" in line
