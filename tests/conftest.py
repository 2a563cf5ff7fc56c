"""Shared test fixtures: where the bundled and the (optional) shared data live."""

from __future__ import annotations

from pathlib import Path

import pytest

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
