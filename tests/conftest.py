"""Shared test fixtures: where the bundled and the (optional) shared data live."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

# A suite started as a background job of a script (``cmd &``, nohup) inherits SIGINT ignored, and so
# would every ``schedc`` the tests start: the interrupt tests (tests/test_runner_operator.py) would see
# their SIGINT ignored, and the redelivery hook would turn a swallowed interrupt into SIGTERM, which
# ends this whole run ("Terminated"). They test what an interactive run does: SIGINT as Python's
# default, which the children then start with too.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
ROOT = TESTS.parent
# The development data set beside the checkout; CI has it too, but tests must not need it.
SHARED = ROOT.parent / "shared" / "data"


def shared_or_skip(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test when that folder is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path


@pytest.fixture
def data() -> Path:
    return DATA
