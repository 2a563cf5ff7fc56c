"""``schedc bench run``: query an OpenAI-compatible chat endpoint on every prompt of a benchmark.

Client: the official ``openai`` package (``AsyncOpenAI``). It is maintained with the API it speaks, follows
every server dialect we target (vLLM, llama.cpp's server and OpenAI all implement its wire format),
passes server-specific fields through ``extra_body``, runs on httpx with connection pooling and timeouts,
and returns typed replies (``ChatCompletion``), which are read here. Retries are the retry library
``tenacity`` (:class:`tenacity.AsyncRetrying`) with the strategies of :mod:`schedc.bench.retry`; the
client's own retries are switched off (``max_retries=0``) because they cover neither a 200 reply whose
body is not JSON nor one without choices (those two checks are the only retry conditions written here),
draw their jitter from the global random generator, and cannot be counted or interrupted. The API key is
read from the environment variable named by ``--api-key-env`` and handed to the client only; it is never
written anywhere.

A run:

1. reads the dataset, the responses file and the cache (:mod:`schedc.bench.jsonl`: a torn last line is a
   warning, and is repaired before the first append);
2. skips records already answered in the responses file, answers from the cache those whose request it
   holds, and groups the rest by request (:func:`request_key` over the exact body): one request per
   distinct (model, system, prompt, decoding options), whose answer every record sharing it receives;
3. sends the requests with ``concurrency`` workers at most ``rate`` per second. Every transport fault —
   a body shorter than its Content-Length, a reply that is not the JSON of a chat completion, a reset,
   a timeout, HTTP 408/409/429/5xx — is retried up to ``retries`` times with jittered exponential
   backoff honouring ``Retry-After`` (:mod:`schedc.bench.retry`); then an error record is written
   (errors are not cached, so a rerun tries again). Other HTTP errors are recorded at once;
4. stops on SIGINT/SIGTERM (or ``stop``): no request is started after the signal, requests in flight get
   ``grace`` seconds to finish and are then cancelled (their records are not written, so a rerun sends
   them); files are flushed and the summary says ``interrupted``. A signal while the files are read and
   the requests planned (before any is sent) aborts at once (``KeyboardInterrupt``).

One writer per responses file: a run holds an exclusive ``flock`` on it (:class:`~schedc.bench.jsonl.WriterLock`)
and a second run on the same file refuses (``B310``) instead of sending every prompt again; the cache, which
runs of other decodings of the model share, is appended a locked line at a time. A file that cannot be
written (a full disk, no permission) stops the run: no request is started after it, and
:class:`~schedc.core.inputs.WriteFailed` says how many records were saved before (a rerun resumes). An
endpoint that is not an http(s) URL with a valid port is refused before anything starts (``B303``).

Records: ``{"model", "id", "text", "usage", "error", "decoding"}`` appended per line to
``OUT/responses/<model>[.<decoding>].jsonl``; cache ``OUT/cache/<model>.jsonl`` of ``{"key", "model",
"text", "usage"}``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from schedc.bench.dataset import filter_records
from schedc.bench.decoding import Constraints, Options, request_body
from schedc.bench.jsonl import JsonlAppender, WriterLock, read_records
from schedc.bench.progress import progress_bar
from schedc.bench.retry import RETRY_STATUS, Backoff, retry_after
from schedc.core.diagnostics import SchedcError
from schedc.core.inputs import WriteFailed, write_failed


@dataclass
class RunSummary:
    """What a run did: records by outcome, and HTTP attempts."""

    total: int = 0
    sent: int = 0
    cached: int = 0
    skipped: int = 0
    deduplicated: int = 0
    errors: int = 0
    requests: int = 0
    retries: int = 0
    unsent: int = 0
    interrupted: bool = False
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    last_error: str | None = None  # the error of the last request that got no answer

    @property
    def unanswered(self) -> bool:
        """True when requests were sent and the endpoint answered none of them."""
        return self.errors > 0 and self.sent == 0

    def line(self) -> str:
        """The one-line summary the CLI prints."""
        text = (f"{self.total} prompts: {self.sent} sent, {self.cached} from cache, {self.skipped} already answered, "
                f"{self.errors} errors ({self.requests} requests, {self.retries} retries, {self.deduplicated} "
                f"deduplicated, {self.seconds:.1f} s)")
        if self.interrupted:
            text += f"; interrupted: {self.unsent} not answered, a rerun resumes"
        return text


@dataclass(frozen=True)
class Settings:
    """Transport settings of a run."""

    endpoint: str
    api_key: str | None = None
    timeout: float = 120.0
    retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 60.0
    rate: float | None = None
    concurrency: int = 4
    grace: float = 0.5
    seed: int = 0


class Fault(Exception):
    """A transport fault worth retrying (with the server's wait, when it named one)."""

    def __init__(self, message: str, wait: float | None = None):
        super().__init__(message)
        self.wait = wait


class Refused(Exception):
    """A reply that retrying cannot change (an HTTP error outside :data:`RETRY_STATUS`)."""


def prompt_key(model: str, system: str, prompt: str) -> str:
    """The cache key of a free-decoding request at temperature 0 (the key earlier runs wrote)."""
    return hashlib.sha256(f"{model}\x1f{system}\x1f{prompt}".encode()).hexdigest()


def request_key(body: Mapping[str, Any]) -> str:
    """The cache and deduplication key of a request body: sha256 of its canonical JSON.

    A plain request (model, messages, temperature 0 and nothing else) keeps :func:`prompt_key`, so caches
    written before decoding options existed stay valid.
    """
    if set(body) == {"model", "messages", "temperature"} and body["temperature"] == 0:
        return prompt_key(body["model"], body["messages"][0]["content"], body["messages"][1]["content"])
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class RateLimiter:
    """At most ``rate`` starts per second, evenly spaced, over all workers."""

    def __init__(self, rate: float | None):
        self.interval = 1.0 / rate if rate else 0.0
        self.next = 0.0

    async def acquire(self, stop: asyncio.Event) -> None:
        """Wait for the next slot (returns early when ``stop`` is set)."""
        if not self.interval:
            return
        now = time.monotonic()
        wait = max(0.0, self.next - now)
        self.next = max(now, self.next) + self.interval
        if wait:
            await _sleep(wait, stop)


async def _sleep(seconds: float, stop: asyncio.Event) -> None:
    """Sleep ``seconds`` or until ``stop`` is set."""
    try:
        await asyncio.wait_for(stop.wait(), timeout=seconds)
    except TimeoutError:
        pass


class Sender:
    """One request with bounded retries over an ``openai.AsyncOpenAI`` client."""

    def __init__(self, settings: Settings, stop: asyncio.Event):
        try:
            import openai
        except ImportError:
            raise SchedcError.at("B308", "`schedc bench run` needs the openai client",
                                 hint="pip install 'schedc[bench]'") from None
        self.openai = openai
        self.client = openai.AsyncOpenAI(base_url=settings.endpoint, api_key=settings.api_key or "none",
                                         timeout=settings.timeout, max_retries=0)
        self.settings, self.stop = settings, stop
        self.backoff = Backoff(settings.backoff, settings.max_backoff, settings.seed)
        self.limiter = RateLimiter(settings.rate)
        self.requests = self.retries = 0

    async def complete(self, body: dict[str, Any]) -> tuple[Any, Any, str | None]:
        """(answer, usage, error) after at most ``retries`` retries; None error means success."""
        import tenacity

        async def pause(seconds: float) -> None:
            await _sleep(seconds, self.stop)

        retrying = tenacity.AsyncRetrying(stop=tenacity.stop_after_attempt(self.settings.retries + 1),
                                          retry=tenacity.retry_if_exception_type(Fault), wait=self.backoff,
                                          sleep=pause, reraise=True)
        try:
            async for attempt in retrying:
                with attempt:
                    if attempt.retry_state.attempt_number > 1:
                        self.retries += 1
                    await self.limiter.acquire(self.stop)
                    if self.stop.is_set():
                        raise asyncio.CancelledError
                    self.requests += 1
                    answer, usage = await self._attempt(body)
        except Refused as exc:
            return None, None, str(exc)
        except Fault as exc:
            return None, None, f"{exc} (after {self.settings.retries + 1} attempts)"
        return answer, usage, None

    async def _attempt(self, body: dict[str, Any]) -> tuple[Any, Any]:
        """One HTTP attempt: the answer and usage, or a :class:`Fault` / :class:`Refused`."""
        fields = {k: v for k, v in body.items() if k not in ("model", "messages")}
        try:
            completion = await self.client.chat.completions.create(
                model=body["model"], messages=body["messages"], extra_body=fields)
        except self.openai.APIStatusError as exc:
            status = exc.status_code
            if status in RETRY_STATUS:
                raise Fault(f"HTTP {status}", retry_after(exc.response.headers)) from None
            raise Refused(f"HTTP {status}: {_short(exc.message)}") from None
        except self.openai.APITimeoutError:
            raise Fault(f"timeout after {self.settings.timeout:g} s") from None
        except self.openai.APIConnectionError as exc:
            raise Fault(f"connection error: {_short(str(exc.__cause__ or exc))}") from None
        except json.JSONDecodeError as exc:  # a 200 whose body is not JSON
            raise Fault(f"invalid JSON in the reply: {_short(str(exc))}") from None
        return self.read(completion), _usage(completion)

    def read(self, completion: Any) -> Any:
        """The answer text of a typed chat completion, or a :class:`Fault` (a subclass may read more of it).

        The client builds replies without validating them, so a body without choices or text arrives
        as a completion that lacks them: that is checked here."""
        content = getattr(first_message(completion), "content", None)
        if not isinstance(content, str):
            raise Fault("the reply's choices[0].message.content is not a string")
        return content


def first_message(completion: Any) -> Any:
    """``choices[0].message`` of a completion, or a :class:`Fault` when the reply has no choice."""
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise Fault("the reply holds no choices")
    message = getattr(choices[0], "message", None)
    if message is None:
        raise Fault("the reply holds no choices[0].message")
    return message


def _usage(completion: Any) -> dict[str, Any] | None:
    """The token counts of a completion as plain data (None when the server sent none)."""
    usage = getattr(completion, "usage", None)
    dump = getattr(usage, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else None


def check_endpoint(endpoint: str) -> None:
    """A SchedcError (B303) unless ``endpoint`` is an http(s) URL with a host and, if any, a port in 0..65535."""
    try:
        parts = urlsplit(endpoint)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError as exc:
        raise SchedcError.at("B303", f"--endpoint {endpoint!r} is not a valid URL: {exc}",
                             hint="e.g. http://localhost:8000/v1") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SchedcError.at("B303", f"--endpoint {endpoint!r} is not an http(s) URL with a host",
                             hint="e.g. http://localhost:8000/v1")


def _short(text: str, limit: int = 200) -> str:
    return " ".join(text.split())[:limit]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def default_responses(out: Path, options: Options) -> Path:
    """``OUT/responses/<model>.jsonl`` (free decoding) or ``<model>.<decoding>.jsonl``."""
    suffix = "" if options.decoding == "free" else f".{options.decoding}"
    return Path(out) / "responses" / f"{_safe(options.model)}{suffix}.jsonl"


@dataclass
class Job:
    """One distinct request and the dataset ids that share it."""

    key: str
    body: dict[str, Any]
    ids: list[str]


class Run:
    """The state of one run (see the module docstring)."""

    def __init__(self, out: Path, options: Options, settings: Settings, responses: Path | None,
                 limit: int | None, warn: Callable[[str], None],
                 select: tuple[Sequence[str] | None, Sequence[str] | None] = (None, None)):
        if settings.concurrency < 1:
            raise SchedcError.at("B301", f"--concurrency must be at least 1 (got {settings.concurrency})")
        if settings.retries < 0 or settings.timeout <= 0:
            raise SchedcError.at("B302", "--retries must be ≥ 0 and --timeout > 0")
        check_endpoint(settings.endpoint)
        self.failure: WriteFailed | None = None
        self.saved = 0
        self.lock_holder = None
        self.out, self.options, self.settings = Path(out), options, settings
        self.summary = RunSummary()
        self.report = warn
        self.dataset = filter_records(self._dataset(None), *select)[:limit]
        self.summary.total = len(self.dataset)
        self.responses_path = Path(responses) if responses else default_responses(self.out, options)
        self.cache_path = self.out / "cache" / f"{_safe(options.model)}.jsonl"

    def _dataset(self, limit: int | None) -> list[dict[str, Any]]:
        """The dataset records (a torn last line tolerated, as in every file the runner reads)."""
        path = self.out / "dataset.jsonl"
        if not path.is_file():
            raise SchedcError.at("B203", f"no dataset in {self.out}", hint="run `schedc bench build` first")
        records = read_records(path, self.warn)
        for number, record in enumerate(records, start=1):
            if not all(isinstance(record.get(k), str) for k in ("id", "system", "prompt")):
                raise SchedcError.at("B209", 'a dataset record needs string "id", "system" and "prompt"',
                                     file=str(path), line=number)
        return records[:limit]

    def warn(self, message: str) -> None:
        """Report a warning now and keep it in the summary."""
        self.summary.warnings.append(message)
        self.report(message)

    def load(self) -> tuple[set[str], dict[str, dict[str, Any]]]:
        """The ids already answered, and the cache (read before :meth:`open` repairs a torn tail)."""
        done = {r.get("id") for r in read_records(self.responses_path, self.warn)
                if r.get("model") == self.options.model and isinstance(r.get("text"), str) and not r.get("error")}
        cache = {r["key"]: r for r in read_records(self.cache_path, self.warn) if isinstance(r.get("key"), str)}
        return done, cache

    def plan(self, done: set[str], cache: dict[str, dict[str, Any]],
             check: Callable[[], None] = lambda: None) -> list[Job]:
        """Write what the cache answers; the distinct requests still to send, in dataset order.

        ``check`` is called before each record (it raises to abort: a signal during a long plan).
        """
        constraints = Constraints(self.out, self.options)
        jobs: dict[str, Job] = {}
        for record in self.dataset:
            check()
            if record["id"] in done:
                self.summary.skipped += 1
                continue
            body = request_body(self.options, record["system"], record["prompt"], constraints.of(record))
            key = request_key(body)
            if key in cache:
                if not self.write(record["id"], cache[key]["text"], cache[key].get("usage"), None):
                    break  # the disk is full: nothing more can be recorded
                self.summary.cached += 1
            elif key in jobs:
                jobs[key].ids.append(record["id"])
            else:
                jobs[key] = Job(key, body, [record["id"]])
        return list(jobs.values())

    def lock(self) -> None:
        """Hold the responses file's writer lock, or a SchedcError (B310) when another run holds it."""
        self.lock_holder = WriterLock(self.responses_path)
        try:
            held = self.lock_holder.acquire()
        except OSError as exc:
            raise write_failed(self.responses_path, exc) from None
        if not held:
            self.lock_holder = None
            raise SchedcError.at("B310", "another `schedc bench run` is writing this responses file; refusing to "
                                 "send its prompts again", file=str(self.responses_path),
                                 hint="wait for it to finish (or stop it), then run again: the rerun resumes")

    def open(self) -> None:
        """Open (and repair) the responses and cache files (a WriteFailed when they cannot be opened)."""
        try:
            self.writer = JsonlAppender(self.responses_path)
            self.cache_writer = JsonlAppender(self.cache_path, shared=True)
        except OSError as exc:
            path = self.cache_path if hasattr(self, "writer") else self.responses_path
            raise write_failed(path, exc) from None
        for appender in (self.writer, self.cache_writer):
            if appender.repaired:
                self.warn(f"{appender.path}: cut a torn last line of {appender.repaired} bytes")

    def _failed(self, path: Path, exc: OSError) -> None:
        """Remember the first write failure (the run stops; :func:`run` raises it once files are closed)."""
        if self.failure is None:
            self.failure = write_failed(path, exc, f"{self.saved} records were saved before it; a rerun resumes")

    def write(self, record_id: str, text: str | None, usage: Any, error: str | None) -> bool:
        """Append one response record (False when it could not be written)."""
        if self.failure is not None:
            return False
        try:
            self.writer.append({"model": self.options.model, "id": record_id, "text": text, "usage": usage,
                                "error": error, "decoding": self.options.decoding})
        except OSError as exc:
            self._failed(self.responses_path, exc)
            return False
        self.saved += 1
        return True

    def finish(self, job: Job, text: str | None, usage: Any, error: str | None) -> None:
        """Record the answer of one request for every id sharing it (and cache it when it is one)."""
        if error is None and self.failure is None:
            try:
                self.cache_writer.append({"key": job.key, "model": self.options.model, "text": text, "usage": usage})
            except OSError as exc:
                self._failed(self.cache_path, exc)
        written = [self.write(record_id, text, usage, error) for record_id in job.ids]
        if not all(written):
            return  # not counted as answered: a rerun sends it again
        self.summary.sent += error is None
        self.summary.deduplicated += len(job.ids) - 1 if error is None else 0
        self.summary.errors += len(job.ids) if error is not None else 0
        if error is not None:
            self.summary.last_error = error

    def close(self) -> None:
        """Flush and close both files, then release the lock (a failure to flush is remembered, not raised)."""
        for appender in (getattr(self, "writer", None), getattr(self, "cache_writer", None)):
            if appender is not None:
                try:
                    appender.close()
                except OSError as exc:
                    self._failed(appender.path, exc)
        if self.lock_holder is not None:
            self.lock_holder.release()
            self.lock_holder = None

    async def send_all(self, jobs: list[Job], stop: asyncio.Event, progress: Callable[[int], None],
                       sender: Sender | None = None) -> None:
        """Send ``jobs`` with ``concurrency`` workers until done or stopped (with ``sender``, made beforehand)."""
        sender = sender or Sender(self.settings, stop)
        queue = list(reversed(jobs))
        unanswered = {id(job): job for job in jobs}

        async def worker() -> None:
            while queue and not stop.is_set():
                job = queue.pop()
                text, usage, error = await sender.complete(job.body)
                self.finish(job, text, usage, error)
                if self.failure is not None:
                    stop.set()  # no request is started that could not be recorded
                    continue
                del unanswered[id(job)]
                progress(len(job.ids))

        tasks = [asyncio.create_task(worker()) for _ in range(min(self.settings.concurrency, len(jobs)) or 1)]
        stopper = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait([*tasks, stopper], return_when=asyncio.FIRST_COMPLETED)
            while not all(t.done() for t in tasks) and not stop.is_set():
                await asyncio.wait([*tasks, stopper], return_when=asyncio.FIRST_COMPLETED)
            if stop.is_set():
                self.summary.interrupted = self.failure is None
                await asyncio.wait(tasks, timeout=self.settings.grace)
            for task in tasks:
                task.cancel()
            results = await asyncio.gather(*tasks, return_exceptions=True)
            for result in results:
                if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                    raise result
        finally:
            stopper.cancel()
            self.summary.requests, self.summary.retries = sender.requests, sender.retries
            self.summary.unsent = sum(len(job.ids) for job in unanswered.values())
            await sender.client.close()


def run(out: Path, endpoint: str, model: str, responses: Path | None = None, concurrency: int = 4,
        rate: float | None = None, retries: int = 4, backoff: float = 1.0, timeout: float = 120.0,
        api_key: str | None = None, limit: int | None = None, max_tokens: int | None = None,
        progress: bool = False, options: Options | None = None, settings: Settings | None = None,
        stop: threading.Event | None = None, handle_signals: bool = False,
        warn: Callable[[str], None] | None = None, families: Sequence[str] | None = None,
        instances: Sequence[str] | None = None) -> RunSummary:
    """Query ``model`` on every prompt of the benchmark in ``out`` (see the module docstring).

    ``options`` and ``settings``, when given, replace the keyword arguments they cover. ``handle_signals``
    turns SIGINT/SIGTERM into a stop (main thread only; the CLI sets it). ``families`` and ``instances``
    keep only those records (``name`` or ``family/name``).
    """
    options = options or Options(model=model, max_tokens=max_tokens)
    settings = settings or Settings(endpoint=endpoint, api_key=api_key, timeout=timeout, retries=retries,
                                    backoff=backoff, rate=rate, concurrency=concurrency)
    state = Run(out, options, settings, responses, limit, warn or (lambda m: print(f"warning: {m}", file=sys.stderr)),
                (families, instances))
    return asyncio.run(_main(state, progress, stop, handle_signals))


class _Interrupt:
    """SIGINT/SIGTERM before the first request: abort the reading and planning at once.

    The handler raises ``KeyboardInterrupt`` where the program is, and also remembers the signal: an
    exception raised inside a finalizer is printed and ignored by the interpreter, so :meth:`check`, called
    between records and phases, raises it again.
    """

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum: int, frame: Any) -> None:
        self.requested = True
        raise KeyboardInterrupt

    def check(self) -> None:
        if self.requested:
            raise KeyboardInterrupt


async def _main(state: Run, progress: bool, external: threading.Event | None, handle_signals: bool) -> RunSummary:
    """Lock, plan, send, flush; the summary (a WriteFailed when a file could not be written)."""
    started = time.monotonic()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    watcher = asyncio.create_task(_watch(external, stop)) if external is not None else None
    signals = (signal.SIGINT, signal.SIGTERM)
    interrupt = _Interrupt()
    previous = {signum: signal.signal(signum, interrupt) for signum in signals} if handle_signals else {}
    try:
        state.lock()
        done, cache = state.load()
        interrupt.check()
        state.open()
        jobs = state.plan(done, cache, interrupt.check)
        # the client is made here, where a signal still aborts at once: importing it takes seconds on a busy
        # machine, and done inside the event loop it would hold a graceful stop back that long
        sender = Sender(state.settings, stop) if jobs and state.failure is None else None
        interrupt.check()
        if handle_signals:  # from here on a signal stops the run gracefully: in-flight requests get their grace
            for signum in signals:
                loop.add_signal_handler(signum, stop.set)
            interrupt.check()  # a signal between the last check and the handlers above
        if jobs and state.failure is None:
            with progress_bar(f"run {state.options.model}", sum(len(j.ids) for j in jobs), progress) as tick:
                await state.send_all(jobs, stop, tick, sender)
    finally:
        state.close()
        if watcher is not None:
            watcher.cancel()
        for signum, handler in previous.items():
            loop.remove_signal_handler(signum)
            signal.signal(signum, handler)
    state.summary.seconds = time.monotonic() - started
    if state.failure is not None:
        state.failure.summary = state.summary  # type: ignore[attr-defined]
        raise state.failure
    return state.summary


async def _watch(external: threading.Event, stop: asyncio.Event, every: float = 0.05) -> None:
    """Set ``stop`` once ``external`` (a thread's event) is set."""
    while not external.is_set():
        await asyncio.sleep(every)
    stop.set()
