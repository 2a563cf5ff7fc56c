"""Known failures: defects the conformance generator finds that other branches are fixing.

Each entry names the construct, the property it violates, the branch fixing it and a minimal spec that
shows it. A finding an entry matches does not fail the conformance tests; every other finding does.
``test_conformance.py::test_a_known_failure_still_fails`` runs each entry's spec and fails once the
defect is gone, saying which entry to delete: after merging a fix, delete its entries (and run the
conformance tests: a construct that now works may show the next defect behind it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.conformance.oracle import Finding, Outcome
from tests.conformance.strategies import Spec


@dataclass(frozen=True)
class Known:
    """A known defect: what it is, who fixes it, how it shows, and a minimal spec that shows it."""

    key: str
    branch: str
    construct: str
    prop: str
    pattern: str
    repro: Spec

    def matches(self, outcome: Outcome, finding: Finding) -> bool:
        """Whether ``finding`` (of ``outcome``) is this defect: its property and a message matching the pattern."""
        return finding.prop == self.prop and re.search(self.pattern, finding.message) is not None


#: empty since stop 37: every defect the generator found is fixed (tests/conformance/test_regressions.py)
KNOWN: tuple[Known, ...] = (
)




def known(outcome: Outcome, finding: Finding) -> Known | None:
    """The entry that explains a finding, if any."""
    return next((k for k in KNOWN if k.matches(outcome, finding)), None)
