"""The pytest plugin of schedc: the ``schedc_snapshot`` fixture.

Registered through the ``pytest11`` entry point ``schedc`` (``pyproject.toml``), so a project with schedc
installed uses the fixture without any conftest code (``-p no:schedc`` turns it off). Importing this module
costs nothing beyond pytest: syrupy and the renderings are imported when a test asks for the fixture, and
without syrupy such a test is skipped, saying how to install it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from schedc.testing.extension import SchedcSnapshot

INSTALL_HINT = "schedc_snapshot needs syrupy: pip install 'schedc[testing]'"


@pytest.fixture
def schedc_snapshot(request: pytest.FixtureRequest) -> SchedcSnapshot:
    """Snapshot assertions of spec renderings: ``schedc_snapshot.assert_match(spec, variants=..., seeds=...,
    formats=..., with_solve=...)``; a relative ``spec`` is read from pytest's root folder. Honours
    ``pytest --snapshot-update`` (syrupy's own options)."""
    pytest.importorskip("syrupy", reason=INSTALL_HINT)
    from schedc.testing.extension import SchedcSnapshot

    return SchedcSnapshot(request.getfixturevalue("snapshot"), request.config.rootpath)
