"""Snapshot tests of renderings inside pytest: the ``schedc_snapshot`` fixture, a syrupy extension.

Takes in specs and options from a test (``schedc_snapshot.assert_match("specs/my.sched", variants=[...],
seeds=[...])``); gives out a syrupy snapshot holding the same document ``schedc snapshot update`` writes
(:mod:`schedc.snapshot`), compared and updated by syrupy (``pytest --snapshot-update``), and on a
difference a failure message that lists the changes meaning first: claims and data, then the sentences of
each rendering, then the grammars.

:mod:`schedc.testing.plugin` is the pytest plugin (the ``pytest11`` entry point ``schedc``, loaded by
pytest in every environment where schedc is installed: it imports nothing but pytest until the fixture is
used); :mod:`schedc.testing.extension` holds the syrupy parts and imports syrupy, which is needed only
there (``pip install 'schedc[testing]'``). A stage just below :mod:`schedc.cli` (see
``tests/test_import_graph.py``): nothing in schedc imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schedc.testing.extension import SchedcSnapshot, SchedcSnapshotExtension

__all__ = ["SchedcSnapshot", "SchedcSnapshotExtension"]


def __getattr__(name: str) -> Any:
    """``SchedcSnapshot`` and ``SchedcSnapshotExtension`` on first use (they import syrupy)."""
    if name in __all__:
        from schedc.testing import extension

        return getattr(extension, name)
    raise AttributeError(f"module 'schedc.testing' has no attribute {name!r}")
