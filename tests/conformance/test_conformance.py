"""Conformance: random small valid specs, and every part of schedc held against the others (issue 27).

Each drawn spec (:mod:`tests.conformance.strategies`) is checked by :func:`tests.conformance.oracle.run`:
CP-SAT and HiGHS agree on the optimum (or on infeasibility), every answer verifies with the solver's
objective term by term, the claim interpreter agrees with the verifier, every variant renders with
claims equal to the IR, and nothing raises but ``SchedcError``. A finding that :mod:`tests.conformance.known`
does not explain fails the test with the spec's text.

CI runs a fixed-seed slice (``derandomize=True``): specs of any kind, and a few specs focused on each
kind (every spec of a focused draw has rules of that kind). The long run is one ``slow`` test; it
prints its totals::

    PYTHONPATH=. python -m pytest -p no:cacheprovider -m slow -s tests/conformance/test_conformance.py

(``CONFORMANCE_EXAMPLES=N`` sets its number of specs, default 3000; ``CONFORMANCE_SEED=S`` its seed;
``CONFORMANCE_FAILURES=FILE`` writes every failing spec to FILE, where the output shows the first 10.)
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from schedc.kinds import KINDS
from tests.conformance import oracle
from tests.conformance.coverage import expected, observed, reached
from tests.conformance.known import KNOWN, known
from tests.conformance.strategies import Spec, specs

SLICE = settings(derandomize=True, database=None, deadline=None, print_blob=False,
                 phases=[Phase.explicit, Phase.generate, Phase.shrink],
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
#: specs of any kind in the CI slice, and specs focused on each kind
SLICE_ANY = 100
SLICE_PER_KIND = 6
#: the long run prints a progress line every this many specs
PROGRESS_EVERY = 100

#: Rejections a drawn spec may meet: forms the generator draws on purpose that the semantic pass refuses
#: (with file:line:col, which the oracle checks). (code, pattern of the message, why)
EXPECTED_REJECTIONS: tuple[tuple[str, str, str], ...] = (
    ("E211", r"window_pattern_cost prices the pattern of each weekend", "windows=days in window_pattern_cost"),
    ("E210", r"give min=, the fewest days", "a spread without min="),
    ("E209", r"holds no assignments", "agents= of a class without assignments (branch semantics)"),
    ("E213", r"no solver backend encodes", "a form no backend encodes (branch semantics)"),
)


def unexplained(outcome: oracle.Outcome, tally: Counter[str] | None = None) -> list[str]:
    """The findings of one spec that no known failure explains, and a rejection nothing expects."""
    out = []
    for finding in outcome.findings:
        entry = known(outcome, finding)
        if tally is not None:
            tally[f"finding {finding.prop}/{finding.side}" + (f" (known: {entry.key})" if entry else "")] += 1
        if entry is None:
            out.append(str(finding))
    if outcome.rejected is not None:
        reasons = [r for r in outcome.rejected if not any(
            r.startswith(code) and re.search(pattern, r) for code, pattern, _ in EXPECTED_REJECTIONS)]
        if tally is not None:
            tally["rejected (expected)" if not reasons else "rejected (unexpected)"] += 1
        out += [f"[load/generator|semantic] a drawn spec is rejected: {r}" for r in reasons]
    return out


def conforms(spec: Spec, tally: Counter[str] | None = None) -> None:
    outcome = oracle.run(spec)
    if tally is not None:
        tally["specs"] += 1
        tally.update(outcome.counts)
    problems = unexplained(outcome, tally)
    assert not problems, "\n".join(problems) + "\n\n" + spec.show()


@settings(SLICE, max_examples=SLICE_ANY)
@given(spec=specs())
def test_every_drawn_spec_conforms(spec: Spec) -> None:
    conforms(spec)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_drawn_spec_with_rules_of_each_kind_conforms(kind: str) -> None:
    @settings(SLICE, max_examples=SLICE_PER_KIND)
    @given(spec=specs(kind))
    def check(spec: Spec) -> None:
        conforms(spec)

    check()


def test_the_drawn_specs_cover_every_kind_and_parameter_form() -> None:
    """Every (kind, form) of :func:`tests.conformance.coverage.expected` — computed from the kinds registry —
    is reached by draws focused on each kind (parsed without the semantic pass, so that forms it rejects
    count). A kind or a field added to a kind fails here until the generator draws it."""
    missing = sorted(expected() - reached())
    assert not missing, f"{len(missing)} kinds × forms the generator does not reach: {missing}"


@pytest.mark.parametrize("entry", KNOWN, ids=[k.key for k in KNOWN])
def test_a_known_failure_still_fails(entry: object) -> None:
    """Each known failure's spec still shows it; once it does not, the fix has landed: delete the entry."""
    outcome = oracle.run(entry.repro)  # type: ignore[attr-defined]
    hits = [f for f in outcome.findings if entry.matches(outcome, f)]  # type: ignore[attr-defined]
    assert hits, (f"known failure {entry.key!r} ({entry.branch}) no longer occurs: delete it from "  # type: ignore[attr-defined]
                  f"tests/conformance/known.py (findings now: {[str(f)[:200] for f in outcome.findings]})")


@pytest.mark.slow
def test_the_long_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Many more specs (``CONFORMANCE_EXAMPLES``, default 3000) from an explicit seed; prints the totals.
    ``CONFORMANCE_FOCUS=kind,kind`` draws only specs focused on those kinds (each spec has rules of one)."""
    examples = int(os.environ.get("CONFORMANCE_EXAMPLES", "3000"))
    focus = [k for k in os.environ.get("CONFORMANCE_FOCUS", "").split(",") if k]
    drawn = st.one_of(*(specs(focus=k) for k in focus)) if focus else specs()
    tally: Counter[str] = Counter()
    forms: set[tuple[str, str]] = set()
    failures: list[str] = []
    began = time.perf_counter()

    @seed(int(os.environ.get("CONFORMANCE_SEED", "27")))
    @settings(database=None, deadline=None, max_examples=examples, print_blob=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
    @given(spec=drawn)
    def run(spec: Spec) -> None:
        outcome = oracle.run(spec)
        tally["specs"] += 1
        tally.update(outcome.counts)
        if outcome.instance is not None and outcome.family is not None:
            forms.update(observed(outcome.instance, outcome.family, spec.text, spec.family_text is not None))
        problems = unexplained(outcome, tally)
        if problems:
            failures.append("\n".join(problems) + "\n" + spec.show())
        if tally["specs"] % PROGRESS_EVERY == 0:  # a run of hours shows where it is
            with capsys.disabled():
                print(f"  … {tally['specs']} specs, {time.perf_counter() - began:.0f} s, "
                      f"{len(failures)} with unexplained findings", flush=True)

    run()
    seconds = time.perf_counter() - began
    reached = len(forms & expected())
    with capsys.disabled():
        print(f"\nconformance long run: {tally['specs']} specs in {seconds:.0f} s; kinds × forms reached "
              f"{reached} of {len(expected())}")
        for key, value in sorted(tally.items()):
            print(f"  {key}: {value}")
        for failure in failures[:10]:
            print("---\n" + failure)
    if (report := os.environ.get("CONFORMANCE_FAILURES")) and failures:  # every failing spec, to read them all
        with open(report, "w", encoding="utf-8") as out:
            out.write("".join("---\n" + failure + "\n" for failure in failures))
    assert not failures, f"{len(failures)} specs with unexplained findings (first above)"

