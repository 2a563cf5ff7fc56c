"""``schedc bench run``: send every prompt to an OpenAI-compatible chat endpoint (standard library only).

Each dataset record becomes ``POST {URL}/chat/completions`` with messages [system, user]
(temperature 0). Responses are appended to a JSON-lines file, one object per prompt:
``{"model", "id", "text", "usage", "error"}``.

* Cache: ``OUT/cache/<model>.jsonl`` keyed by (model, sha256 of system + user text); a cached prompt is
  never sent again — a rerun pays nothing for answers it already has. Errors are not cached.
* A rerun also skips ids that already have a text in the responses file.
* Retries: HTTP 429/5xx and network errors are retried up to ``retries`` times with exponential
  backoff (``backoff · 2^k`` seconds, capped at 60, ``Retry-After`` honoured); then an error record.
* Rate limiting: at most ``rate`` requests per second over all threads (None: unlimited);
  ``concurrency`` threads.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedc.bench.evaluate import filter_records, load_dataset, read_jsonl
from schedc.diagnostics import SchedcError

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


@dataclass
class RunSummary:
    """What a run did."""

    total: int = 0
    sent: int = 0
    cached: int = 0
    skipped: int = 0
    errors: int = 0
    requests: int = 0


def prompt_key(model: str, system: str, prompt: str) -> str:
    """The cache key of a prompt: sha256 over model, system and user text."""
    return hashlib.sha256(f"{model}\x1f{system}\x1f{prompt}".encode()).hexdigest()


class RateLimiter:
    """At most ``rate`` acquisitions per second, evenly spaced, shared by all threads."""

    def __init__(self, rate: float | None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.interval = 1.0 / rate if rate else 0.0
        self.next = 0.0
        self.lock = threading.Lock()
        self.clock, self.sleep = clock, sleep

    def acquire(self) -> None:
        if not self.interval:
            return
        with self.lock:
            now = self.clock()
            wait = max(0.0, self.next - now)
            self.next = max(now, self.next) + self.interval
        if wait:
            self.sleep(wait)


class JsonlAppender:
    """Thread-safe appends of JSON lines (flushed per line, so a crash loses at most one line)."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.lock = path, threading.Lock()

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"
        with self.lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()


class ChatClient:
    """POST /chat/completions with bounded retries and exponential backoff."""

    def __init__(self, endpoint: str, model: str, api_key: str | None = None, timeout: float = 120.0,
                 retries: int = 4, backoff: float = 1.0, limiter: RateLimiter | None = None,
                 sleep: Callable[[float], None] = time.sleep, max_tokens: int | None = None):
        self.url = endpoint.rstrip("/") + "/chat/completions"
        self.model, self.api_key, self.timeout = model, api_key, timeout
        self.retries, self.backoff, self.sleep = retries, backoff, sleep
        self.limiter = limiter or RateLimiter(None)
        self.max_tokens = max_tokens
        self.requests = 0
        self.lock = threading.Lock()

    def _request(self, system: str, prompt: str) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "temperature": 0,
                                "messages": [{"role": "system", "content": system},
                                             {"role": "user", "content": prompt}]}
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, json.dumps(body).encode(), headers, method="POST")
        self.limiter.acquire()
        with self.lock:
            self.requests += 1
        with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 - user's endpoint
            return json.loads(response.read().decode("utf-8"))

    def complete(self, system: str, prompt: str) -> tuple[str | None, dict[str, Any] | None, str | None]:
        """(text, usage, error) after at most ``retries`` retries."""
        error = "no attempt"
        for attempt in range(self.retries + 1):
            delay = min(60.0, self.backoff * 2 ** attempt)
            try:
                data = self._request(system, prompt)
                return data["choices"][0]["message"]["content"], data.get("usage"), None
            except urllib.error.HTTPError as exc:
                error = f"HTTP {exc.code}: {exc.reason}"
                if exc.code not in RETRY_STATUS:
                    return None, None, error
                delay = _retry_after(exc) or delay
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                error = f"network error: {getattr(exc, 'reason', exc)}"
            except (KeyError, IndexError, TypeError, ValueError) as exc:
                return None, None, f"unexpected response: {exc!r}"
            if attempt < self.retries:
                self.sleep(delay)
        return None, None, f"{error} (after {self.retries + 1} attempts)"


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    value = exc.headers.get("Retry-After") if exc.headers else None
    try:
        return min(60.0, float(value)) if value else None
    except ValueError:
        return None


def _safe(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model)


def _load_cache(path: Path) -> dict[str, dict[str, Any]]:
    return {r["key"]: r for r in read_jsonl(path)} if path.is_file() else {}


def _answered(path: Path, model: str) -> set[str]:
    if not path.is_file():
        return set()
    return {r["id"] for r in read_jsonl(path) if r.get("model") == model and isinstance(r.get("text"), str)
            and not r.get("error")}


def run(out: Path, endpoint: str, model: str, responses: Path | None = None, concurrency: int = 4,
        rate: float | None = None, retries: int = 4, backoff: float = 1.0, timeout: float = 120.0,
        api_key: str | None = None, limit: int | None = None, max_tokens: int | None = None,
        progress: bool = False, sleep: Callable[[float], None] = time.sleep, families: Sequence[str] | None = None,
        instances: Sequence[str] | None = None) -> RunSummary:
    """Query ``model`` on every prompt of the benchmark in ``out`` (see the module docstring)."""
    if concurrency < 1:
        raise SchedcError.at("B301", f"--concurrency must be at least 1 (got {concurrency})")
    out = Path(out)
    dataset = filter_records(load_dataset(out), families, instances)[:limit]
    responses = Path(responses) if responses else out / "responses" / f"{_safe(model)}.jsonl"
    cache_path = out / "cache" / f"{_safe(model)}.jsonl"
    cache, done = _load_cache(cache_path), _answered(responses, model)
    writer, cache_writer = JsonlAppender(responses), JsonlAppender(cache_path)
    client = ChatClient(endpoint, model, api_key, timeout, retries, backoff, RateLimiter(rate), sleep, max_tokens)
    summary = RunSummary(total=len(dataset))
    lock = threading.Lock()

    def one(record: dict[str, Any]) -> None:
        if record["id"] in done:
            with lock:
                summary.skipped += 1
            return
        key = prompt_key(model, record["system"], record["prompt"])
        hit = cache.get(key)
        if hit is not None:
            text, usage, error = hit["text"], hit.get("usage"), None
        else:
            text, usage, error = client.complete(record["system"], record["prompt"])
            if error is None:
                cache_writer.append({"key": key, "model": model, "text": text, "usage": usage})
        writer.append({"model": model, "id": record["id"], "text": text, "usage": usage, "error": error})
        with lock:
            summary.cached += hit is not None
            summary.sent += hit is None and error is None
            summary.errors += error is not None

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        futures = [pool.submit(one, r) for r in dataset]
        iterator = futures
        if progress:
            from schedc.bench.executor import _with_progress
            iterator = _with_progress(iter(futures), len(futures), f"run {model}")  # type: ignore[assignment]
        for future in iterator:
            future.result()
    summary.requests = client.requests
    return summary
