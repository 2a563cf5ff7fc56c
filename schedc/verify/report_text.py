"""The verifier's report for people: what ``schedc check`` prints without ``--json``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from schedc.verify.verifier import CheckReport, Issue


def format_report(report: CheckReport, limit: int = 20) -> str:
    """A readable report for people (``schedc check`` without ``--json``).

    The hard violations the verdict counts are listed under it, so that their number is the
    number of items listed (with ``… N more`` past ``limit``); issues that are no violation —
    missing assignments, which lower the coverage, and repeated lines under ``--duplicates warn`` —
    are listed apart. The violation rate is shown as the division it is (docs/check.md).
    """
    out = [f"{report.instance} ({report.family})"]
    if report.naming_hint:
        out.append(f"hint: {report.naming_hint}")
    if not report.extracted:
        out.append(f"NOT EXTRACTED: {report.extraction_error}")
        out += [f"  line {s.line}: skipped ({s.reason}): {s.text[:80]}" for s in report.skipped_lines[:limit]]
        unlisted = len(report.skipped_lines) + report.omitted_skipped_lines - limit
        if unlisted > 0:
            out.append(f"  … and {unlisted:,} more skipped lines")
        return "\n".join(out)
    skipped = len(report.skipped_lines) + report.omitted_skipped_lines
    out.append(f"extracted {report.produced} schedule lines" + (f", skipped {skipped}" if skipped else ""))
    out.append(f"coverage {report.coverage * 100:.1f}% of {report.required} required assignments")
    out.append(_verdict_line(report))
    counted = [_issue_line(i) for i in report.issues if i.counted]
    counted += [f"  [{v.kind} {v.constraint}] {v.message}" for v in report.violations]
    out += _limited(counted, max(len(counted), report.hard_violations), limit, "hard violations")
    others = [_issue_line(i) for i in report.issues if not i.counted]
    if others:
        out.append("not counted as violations:")
        out += _limited(others, len(others), limit, "issues")
    for kind, number in report.omitted_issues.items():  # counted in the totals, listed nowhere (not in --json)
        out.append(f"  … and {number:,} more {kind.replace('_', ' ')} issues (counted, not listed)")
    out.append(_objective_line(report))
    for name, cost in report.components.items():
        if cost:
            out.append(f"  {name}: {cost}")
    return "\n".join(out)


def _verdict_line(report: CheckReport) -> str:
    """``INFEASIBLE: H hard violations in P produced assignments, violation rate H/P = R``."""
    hard = report.hard_violations
    verdict = "FEASIBLE" if report.feasible else "INFEASIBLE" if hard else "INFEASIBLE (incomplete)"
    text = f"{verdict}: {hard} hard violation{'' if hard == 1 else 's'}"
    if report.violation_rate is not None:
        text += (f" in {report.produced} produced assignments, violation rate {hard}/{report.produced} = "
                 f"{report.violation_rate:.3f}")
    return text


def _issue_line(issue: Issue) -> str:
    where = f"line {issue.line}: " if issue.line else ""
    return f"  {where}{issue.kind.replace('_', ' ')}: {issue.message}"


def _limited(lines: list[str], total: int, limit: int, what: str) -> list[str]:
    """The first ``limit`` of ``lines`` and a note of how many of ``total`` are not shown."""
    shown = lines[:limit]
    if total > len(shown):
        shown.append(f"  … {total - len(shown)} more {what} (see --json)")
    return shown


def _objective_line(report: CheckReport) -> str:
    if report.objective is None:
        text = f"{report.objective_measure}: not computed (incomplete schedule)"
    else:
        text = f"{report.objective_measure}: {report.objective}"
    if report.stated_objective is not None:
        agrees = {True: "agrees", False: "DISAGREES", None: "not comparable"}[report.stated_objective_matches]
        text += f"; stated {report.stated_objective} ({agrees})"
    if report.bks is not None:
        text += f"; best known {report.bks} ({report.bks_kind or 'unknown status'})"
    if report.gap_pct is not None:
        within = [eps for eps, ok in report.optimal_within.items() if ok]
        text += f"; gap {report.gap_pct:.2f}%" + (f", optimal within {within[0]}%" if within else "")
    return text
