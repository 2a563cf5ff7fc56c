"""When to retry a request and how long to wait, as strategies of the retry library ``tenacity``.

The retry loop itself — attempts, stop condition, which exceptions are retried, sleeping between
attempts — is :class:`tenacity.AsyncRetrying` (:meth:`schedc.bench.run.Sender.complete`). What
tenacity does not provide is here:

* :data:`RETRY_STATUS` — the HTTP statuses that are transport faults (the request may succeed later);
  every other 4xx is the request's own fault and is recorded at once.
* :class:`Backoff` — a tenacity wait strategy. Retry ``k`` (after attempt ``k + 1``, ``k`` from 0)
  waits ``d·(1+u)/2`` with ``d = min(cap, base·2^k)`` and ``u`` uniform in [0, 1) from an explicitly
  seeded :class:`random.Random` ("equal jitter": at least half the exponential step, so concurrent
  clients spread out without ever hammering at once). tenacity's own jittered waits draw from the
  global random generator, which a reproducible run must not. A server's ``Retry-After`` (delta
  seconds or an HTTP date) or ``retry-after-ms``, carried by the exception of the failed attempt
  (its ``wait``), replaces the computed wait, capped at ``cap``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime

from tenacity import RetryCallState
from tenacity.wait import wait_base

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


def retry_after(headers: Mapping[str, str] | None, now: Callable[[], float] = time.time) -> float | None:
    """Seconds a server asked us to wait (``retry-after-ms``, ``Retry-After`` seconds or date), or None."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - now())


class Backoff(wait_base):
    """Seeded equal-jitter exponential backoff honouring a server's wait (see the module docstring);
    one stream for the whole run."""

    def __init__(self, base: float = 1.0, cap: float = 60.0, seed: int = 0):
        self.base, self.cap, self.seed = base, cap, seed
        self.rng = random.Random(seed)

    def delay(self, retry: int, server_wait: float | None = None) -> float:
        """How long to wait before retry number ``retry + 1``."""
        if server_wait is not None:
            return min(self.cap, server_wait)
        step = min(self.cap, self.base * 2 ** retry)
        return step * (1 + self.rng.random()) / 2

    def __call__(self, retry_state: RetryCallState) -> float:
        """The tenacity wait after a failed attempt: the server's wait if its exception names one."""
        failure = retry_state.outcome.exception() if retry_state.outcome is not None else None
        return self.delay(retry_state.attempt_number - 1, getattr(failure, "wait", None))
