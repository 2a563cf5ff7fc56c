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
        if finding.prop != self.prop or not re.search(self.pattern, finding.message):
            return False
        return self.key != "agents-of-groups" or _groups_selected(outcome)


def _groups_selected(outcome: Outcome) -> bool:
    """Whether some rule selects ``agents=`` of a class that is not the decision's agents."""
    if outcome.instance is None or outcome.family is None or outcome.family.decision is None:
        return False
    agent = outcome.family.decision.agent
    return any(getattr(c, "agents", None) is not None and c.agents.cls != agent for c in outcome.instance.constraints)


_COHORTS = """\
family cohorts {
  title "Course timetabling with cohorts"
  structure slot
  objective penalty
  kinds [one_per_slot count_bounds spread]
  class course (lectures:int)
  class room ()
  class cohort (members:names)
  decision agent=course value=room grain=period
  answer "<agent>|<value>|<day>|<period>"
  roles [course "course" room "room" cohort "cohort"]
}
"""

_SHOP = """\
instance {name} family jobshop
{head}resources table
  M1 unary
end
jobs table
  J1 M1:2 M1:1
  J2 M1:2
end
{rules}
minimize makespan
"""


def _shop(name: str, rules: str, head: str = "") -> Spec:
    return Spec(name=name, structure="interval", family="jobshop", text=_SHOP.format(name=name, head=head,
                                                                                      rules=rules))


KNOWN: tuple[Known, ...] = (
)




def known(outcome: Outcome, finding: Finding) -> Known | None:
    """The entry that explains a finding, if any."""
    return next((k for k in KNOWN if k.matches(outcome, finding)), None)
