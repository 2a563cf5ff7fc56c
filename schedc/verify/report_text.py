"""The verifier's report for people: what ``schedc check`` prints without ``--json``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from schedc.verify.verifier import CheckReport


def format_report(report: CheckReport, limit: int = 20) -> str:
    """A readable report for people (``schedc check`` without ``--json``)."""
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
    verdict = "FEASIBLE" if report.feasible else "INFEASIBLE"
    rate = "" if report.violation_rate is None else f", violation rate {report.violation_rate:.3f}"
    out.append(f"{verdict}: {report.hard_violations} hard violations{rate}")
    for issue in report.issues[:limit]:
        where = f"line {issue.line}: " if issue.line else ""
        out.append(f"  {where}{issue.kind.replace('_', ' ')}: {issue.message}")
    for v in report.violations[:limit]:
        out.append(f"  [{v.kind} {v.constraint}] {v.message}")
    hidden = len(report.issues) + len(report.violations) - min(len(report.issues), limit) \
        - min(len(report.violations), limit)
    if hidden > 0:
        out.append(f"  … {hidden} more (see --json)")
    for kind, number in report.omitted_issues.items():  # counted, listed nowhere
        out.append(f"  … and {number:,} more {kind.replace('_', ' ')} issues (counted, not listed)")
    out.append(_objective_line(report))
    for name, cost in report.components.items():
        if cost:
            out.append(f"  {name}: {cost}")
    return "\n".join(out)


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
