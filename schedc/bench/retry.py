"""When to retry a request and how long to wait: jittered exponential backoff honouring ``Retry-After``.

* :data:`RETRY_STATUS` — the HTTP statuses that are transport faults (the request may succeed later);
  every other 4xx is the request's own fault and is recorded at once.
* :class:`Backoff` — attempt ``k`` (0-based) waits ``d·(1+u)/2`` with ``d = min(cap, base·2^k)`` and ``u``
  uniform in [0, 1) from an explicitly seeded :class:`random.Random` ("equal jitter": at least half the
  exponential step, so concurrent clients spread out without ever hammering at once). A server's
  ``Retry-After`` (delta seconds or an HTTP date) or ``retry-after-ms`` replaces the computed wait,
  capped at ``cap``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

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


@dataclass
class Backoff:
    """Jittered exponential backoff (see the module docstring); one seeded stream for the whole run."""

    base: float = 1.0
    cap: float = 60.0
    seed: int = 0
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def delay(self, attempt: int, server_wait: float | None = None) -> float:
        """How long to wait before retry number ``attempt + 1``."""
        if server_wait is not None:
            return min(self.cap, server_wait)
        step = min(self.cap, self.base * 2 ** attempt)
        return step * (1 + self.rng.random()) / 2
