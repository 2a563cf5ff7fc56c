"""``schedc bench run`` against operator mistakes: two runs on one responses file, a full disk, a folder that
cannot be written, a bad endpoint, a signal at any moment. Each ends in one line and a documented exit status
(2 bad input, 74 a file could not be written, 130 a signal), never a traceback, and loses nothing already saved.
"""

from __future__ import annotations

import errno
import json
import signal
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest

from schedc.bench import jsonl
from schedc.bench.decoding import Options
from schedc.bench.jsonl import WriterLock
from schedc.bench.run import run
from schedc.core.diagnostics import SchedcError
from schedc.core.inputs import EXIT_IO, WriteFailed
from tests.conftest import ROOT
from tests.fake_server import FakeServer, answer_of
from tests.test_runner import MODEL, quiet, responses, settings, write_dataset


def _cli(out: Path, url: str, *extra: str) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "schedc", "bench", "run", str(out), "--endpoint", url, "--model", MODEL,
            "--backoff", "0.001", "--timeout", "5", *extra]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def _wait_for(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return bool(condition())  # type: ignore[operator]


# ---------------------------------------------------------------------------------------------- one writer


def test_a_second_run_on_the_same_responses_file_refuses_and_sends_nothing(tmp_path: Path) -> None:
    write_dataset(tmp_path, [f"p{i}" for i in range(5)])
    holder = WriterLock(tmp_path / "responses" / f"{MODEL}.jsonl")  # another run holds the file
    assert holder.acquire()
    try:
        with FakeServer() as server:
            with pytest.raises(SchedcError) as caught:
                run(tmp_path, server.url, MODEL, options=Options(model=MODEL), settings=settings(server), warn=quiet)
            assert "B310" in str(caught.value) and "another `schedc bench run`" in str(caught.value)
            assert server.requests == []
    finally:
        holder.release()
    with FakeServer() as server:  # once the other run is done, a run goes ahead
        summary = run(tmp_path, server.url, MODEL, options=Options(model=MODEL), settings=settings(server),
                      warn=quiet)
    assert summary.sent == 5 and len(server.requests) == 5


def test_two_processes_on_one_folder_send_each_prompt_once(tmp_path: Path) -> None:
    """Started together, they once sent every prompt twice and wrote every record twice. The server holds its
    replies until the second run has ended, so the first is surely running (and holding the file) meanwhile."""
    import threading

    write_dataset(tmp_path, [f"prompt {i}" for i in range(40)])
    release = threading.Event()

    def held(body: dict) -> str:
        release.wait(120)
        return answer_of(body)

    with FakeServer(reply=held) as server:
        first = _cli(tmp_path, server.url, "--concurrency", "2")
        try:
            assert _wait_for(lambda: len(server.requests) >= 1, 60), "the first run never started"
            second = _cli(tmp_path, server.url, "--concurrency", "2")
            out2, err2 = second.communicate(timeout=120)
        finally:
            release.set()
        out1, err1 = first.communicate(timeout=300)
    assert first.returncode == 0, err1
    assert second.returncode == 2 and "B310" in err2 and "Traceback" not in err2
    assert len(server.requests) == 40
    assert sorted(r["id"] for r in responses(tmp_path)) == [f"r{i:04d}" for i in range(40)]


def test_cache_lines_are_appended_under_a_lock(tmp_path: Path) -> None:
    """The cache has other writers (runs of other decodings): a shared appender never interleaves lines."""
    appender = jsonl.JsonlAppender(tmp_path / "cache.jsonl", shared=True)
    other = WriterLock(tmp_path / "cache.jsonl")
    assert other.acquire()  # held by someone else: an append waits for it
    import threading

    done = threading.Event()
    worker = threading.Thread(target=lambda: (appender.append({"key": "k"}), done.set()))
    worker.start()
    assert not done.wait(0.3)  # still waiting for the lock
    other.release()
    assert done.wait(30)
    worker.join()
    appender.close()
    assert [json.loads(x) for x in (tmp_path / "cache.jsonl").read_text().splitlines()] == [{"key": "k"}]


# ---------------------------------------------------------------------------------------------- files that fail


def test_a_full_disk_stops_the_run_with_what_was_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_dataset(tmp_path, [f"p{i}" for i in range(30)])
    original = jsonl.JsonlAppender.append
    written = {"n": 0}

    def append(self: jsonl.JsonlAppender, record: dict) -> None:
        if self.path.name == f"{MODEL}.jsonl" and self.path.parent.name == "responses":
            if written["n"] >= 6:
                raise OSError(errno.ENOSPC, "No space left on device")
            written["n"] += 1
        original(self, record)

    monkeypatch.setattr(jsonl.JsonlAppender, "append", append)
    with FakeServer() as server:
        with pytest.raises(WriteFailed) as caught:
            run(tmp_path, server.url, MODEL, options=Options(model=MODEL), settings=settings(server, concurrency=2),
                warn=quiet)
        sent_at_failure = len(server.requests)
    message = str(caught.value)
    assert "No space left on device" in message and "6 records were saved before it; a rerun resumes" in message
    assert caught.value.exit_code == EXIT_IO and len(message.splitlines()) == 2  # the message and its hint
    assert sent_at_failure < 30  # the run stopped: no request that could not be recorded
    assert len(responses(tmp_path)) == 6
    monkeypatch.setattr(jsonl.JsonlAppender, "append", original)
    with FakeServer() as server:  # space again: the rerun sends only what is missing
        again = run(tmp_path, server.url, MODEL, options=Options(model=MODEL), settings=settings(server), warn=quiet)
    assert again.skipped == 6 and again.sent + again.cached == 24
    assert sorted(r["id"] for r in responses(tmp_path)) == [f"r{i:04d}" for i in range(30)]


def test_a_full_disk_from_the_command_line_is_one_line_and_exit_74(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from schedc.cli import app

    write_dataset(tmp_path, [f"p{i}" for i in range(5)])

    def full(self: jsonl.JsonlAppender, record: dict) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(jsonl.JsonlAppender, "append", full)
    with FakeServer() as server:
        result = CliRunner().invoke(app, ["bench", "run", str(tmp_path), "--endpoint", server.url, "--model", MODEL,
                                          "--backoff", "0.001"])
    assert result.exit_code == EXIT_IO
    assert "error[W001]: cannot write: No space left on device; 0 records were saved before it" in result.output
    assert "Traceback" not in result.output


def test_a_responses_file_that_cannot_be_created_is_one_line_and_exit_74(tmp_path: Path) -> None:
    write_dataset(tmp_path, ["p"])
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the responses folder should be")
    with FakeServer() as server:
        process = _cli(tmp_path, server.url, "--responses", str(blocker / "responses.jsonl"))
        out, err = process.communicate(timeout=120)
    assert process.returncode == EXIT_IO and "error[W001]: cannot write" in err and "Traceback" not in err
    assert server.requests == []


@pytest.mark.parametrize(("endpoint", "words"), [("http://127.0.0.1:99999/v1", "Port out of range"),
                                                  ("ftp://127.0.0.1/v1", "not an http(s) URL"),
                                                  ("localhost:8000", "not an http(s) URL"),
                                                  ("http://[::1/v1", "not a valid URL")])
def test_a_bad_endpoint_is_refused_before_anything_starts(tmp_path: Path, endpoint: str, words: str) -> None:
    write_dataset(tmp_path, ["p"])
    process = _cli(tmp_path, endpoint)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 2 and "B303" in err and words in err and "Traceback" not in err
    assert not (tmp_path / "responses").exists()


# ---------------------------------------------------------------------------------------------- signals


def _importing_commands(pid: int) -> bool:
    """Whether process ``pid`` has begun importing schedc's commands (msgspec's extension is mapped: the first
    import of :mod:`schedc.core.diagnostics`)."""
    try:
        return "msgspec/_core" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return True  # it ended: nothing left to wait for


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("after", [0.0, 0.2, 0.5])
def test_a_signal_at_start_ends_with_130_and_no_traceback(tmp_path: Path, signum: int, after: float) -> None:
    """From the moment schedc's commands are being imported — then while it reads and plans, and sends — exit
    130 and one line (it once was a KeyboardInterrupt traceback with status -2, or a bare SIGTERM death).
    Before schedc's code runs, while the interpreter itself starts, no Python program can answer a signal."""
    write_dataset(tmp_path, [f"p{i}" for i in range(50)])
    with FakeServer(delay=0.2) as server:
        process = _cli(tmp_path, server.url)
        assert _wait_for(lambda: _importing_commands(process.pid), 60)
        time.sleep(after)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 130, (out, err)
    assert "Traceback" not in err


def test_an_interrupt_swallowed_by_a_callback_still_interrupts() -> None:
    """An interrupt raised inside a weak-reference callback (the import system's module-lock callback, where a
    SIGINT at start once landed: the run went on to its end and exited 0) is raised again in the main thread;
    other unraisable exceptions go to the hook that was there before."""
    from schedc.cli import _redeliver_swallowed_interrupts

    class Thing:
        pass

    def interrupt(_ref: object) -> None:
        raise KeyboardInterrupt

    def fail(_ref: object) -> None:
        raise ValueError("not an interrupt")

    passed_on: list[object] = []
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _redeliver_swallowed_interrupts(passed_on.append)
    try:
        thing = Thing()
        ref = weakref.ref(thing, fail)
        del thing
        assert ref() is None and [type(u.exc_value) for u in passed_on] == [ValueError]
        thing = Thing()
        ref = weakref.ref(thing, interrupt)
        with pytest.raises(KeyboardInterrupt):
            del thing
            time.sleep(5)  # the signal comes again a moment later, and ends the sleep
        assert len(passed_on) == 1
    finally:
        sys.unraisablehook = previous_hook


_INTERRUPT_IN_EXEC = """
import sys
import schedc.pipeline

def interrupted(*args, **kwargs):
    exec("raise KeyboardInterrupt")  # as a signal landing in code made by exec (dataclasses, pydantic)

schedc.pipeline.render_file = interrupted
sys.argv = ["schedc", "render", "examples/ft06.sched", "--variant", "v1"]
from schedc.cli import main
main()
"""


def test_an_interrupt_raised_in_exec_code_ends_with_130_and_one_line() -> None:
    """Typer turns the interrupt into a silent SystemExit(130); raised inside ``exec`` code it also set the
    interpreter's unhandled-interrupt flag, which made the process kill itself with SIGINT at exit (status -2,
    nothing on stderr: the signal test above caught it once in ~60 runs on a loaded machine)."""
    process = subprocess.run([sys.executable, "-c", _INTERRUPT_IN_EXEC], capture_output=True, text=True, cwd=ROOT,
                             timeout=120)
    assert process.returncode == 130, (process.stdout, process.stderr)
    assert process.stderr.strip() == "interrupted" and "Traceback" not in process.stderr
