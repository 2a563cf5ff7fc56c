"""The verifier: an answer text → a constraint-by-constraint report.

Steps (DESIGN.md §5): extract the schedule lines (:mod:`schedc.verify.answers`); resolve names
and values, reporting unknown entities, duplicates, out-of-domain values and missing
assignments; judge the decisions with every constraint kind's own ``check``
(:mod:`schedc.verify.evaluate`); recompute the objective, compare it with a stated one and with
the best known value. A :class:`Verifier` is built once per (instance, names) and checks
any number of answers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from operator import attrgetter
from typing import Literal

import msgspec

from schedc.core.solution import Assignment, Solution
from schedc.ir import Family, Instance
from schedc.ir.answer_roles import mode_roles, role_keys, role_members
from schedc.ir.names import NameMap, canonical_names
from schedc.kinds import CountBounds, Coverage, OnePerSlot, SkillRequirements
from schedc.kinds.context import Violation
from schedc.verify import failure_modes
from schedc.verify.answers import (
    KEEP,
    AnswerFormat,
    AnswerLine,
    AnswerStream,
    Extraction,
    Skipped,
    shorten,
    split_list,
)
from schedc.verify.evaluate import Evaluation, Tally, evaluate, make_context, tally
from schedc.verify.report_text import format_report as format_report  # the text form, kept importable here
from schedc.verify.structured import decode_structured, structured_to_text

EPSILONS = (0.1, 0.5, 1.0, 5.0)
#: The most objects a structured answer may hold (or 20 per required assignment): a decoded object costs
#: some 30 times its text, so a larger one is refused before it is decoded (memory stays linear).
MAX_STRUCTURED_ITEMS = 100_000
_MAYBE_STRUCTURED = re.compile(r"\s*+(?:```|[{\[])")
_FENCED_JSON = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n\s*```\s*$", re.DOTALL)
IssueKind = Literal["unknown_entity", "duplicate", "conflicting_duplicate", "out_of_domain", "missing", "format"]
#: Structural issues that count as hard violations (missing ones count in coverage instead; a line
#: naming an unknown entity is a produced assignment that is wrong, as an out-of-domain one is).
COUNTED = ("unknown_entity", "duplicate", "conflicting_duplicate", "out_of_domain", "format")
DuplicatePolicy = Literal["error", "warn"]
#: ``error``: a repeated assignment is a hard violation (the SCHEDBench verifier). ``warn``: it is reported
#: and skipped but not counted, as the official ITC-2007 validator does ("repeated entry"); the first line
#: of an assignment is kept under both.
DUPLICATE_POLICIES: tuple[str, ...] = ("error", "warn")
_DUPLICATES = ("duplicate", "conflicting_duplicate")


class Issue(msgspec.Struct, frozen=True, kw_only=True):
    """A structural problem of an answer: which kind, on which line, in the prompt's words."""

    kind: IssueKind
    message: str
    line: int | None = None
    category: str = ""  # failure mode (:mod:`schedc.verify.failure_modes`), set when the report is made
    counted: bool = False  # a hard violation of the report (set when the report is made; missing lines never are)


class ViolationReport(msgspec.Struct, frozen=True, kw_only=True):
    kind: str
    constraint: str
    message: str
    amount: int = 1
    entities: tuple[str, ...] = ()
    category: str = ""  # failure mode (:mod:`schedc.verify.failure_modes`)


class CheckReport(msgspec.Struct, frozen=True, kw_only=True):
    """The verdict on one answer (``schedc check --json`` prints it)."""

    instance: str
    family: str
    extracted: bool
    extraction_error: str | None
    feasible: bool
    produced: int
    required: int
    coverage: float
    hard_violations: int
    violation_rate: float | None
    issues: list[Issue]
    violations: list[ViolationReport]
    objective: int | None
    objective_measure: str
    components: dict[str, int]
    stated_objective: int | None
    stated_objective_matches: bool | None
    bks: int | None
    bks_kind: str | None
    gap_pct: float | None
    optimal_within: dict[str, bool]
    skipped_lines: list[Skipped]
    stated_objective_error: float | None = None  # |stated − recomputed| / max(|recomputed|, 1)
    failure_modes: dict[str, int] = msgspec.field(default_factory=dict)  # problems per failure-mode category
    # set by the check command when the answer's names are a themed rendering's but no --variant was given
    naming_hint: str | None = None
    #: Issues counted (in ``hard_violations`` and ``failure_modes``) but not listed, by kind: a report lists the
    #: first ``Verifier.keep`` issues and skipped lines of an answer in full.
    omitted_issues: dict[str, int] = msgspec.field(default_factory=dict)
    omitted_skipped_lines: int = 0


class IssueLog:
    """The structural issues of one answer: every one counted by kind, the first ``keep`` kept in full.

    It stands where a list of issues stood (``append``, iteration over the kept ones), so that an answer
    repeating one line millions of times costs counts, not records.
    """

    def __init__(self, keep: int | None = KEEP):
        self.keep = keep
        self.kept: list[Issue] = []
        self.counts: Counter[str] = Counter()

    def append(self, issue: Issue) -> None:
        self.counts[issue.kind] += 1
        if self.keep is None or len(self.kept) < self.keep:
            self.kept.append(issue)

    def full(self) -> bool:
        """Whether a further issue would only be counted (its message need not be written)."""
        return self.keep is not None and len(self.kept) >= self.keep

    def __iter__(self) -> Iterator[Issue]:
        return iter(self.kept)

    def __len__(self) -> int:
        return sum(self.counts.values())

    def __getitem__(self, index: int) -> Issue:
        return self.kept[index]

    def omitted(self) -> dict[str, int]:
        """Issues counted but not kept, by kind."""
        shown = Counter(i.kind for i in self.kept)
        return {kind: n - shown[kind] for kind, n in sorted(self.counts.items()) if n > shown[kind]}


class Verifier:
    """Checks answers against one instance under one display-name mapping."""

    def __init__(self, instance: Instance, family: Family | None = None, names: Mapping[str, str] | None = None,
                 duplicates: DuplicatePolicy = "error", keep: int | None = KEEP):
        """``keep``: how many structural issues and skipped lines a report lists in full (None: all); the
        others are counted (``omitted_issues``, ``omitted_skipped_lines``) and count as before."""
        self.keep = keep
        if duplicates not in DUPLICATE_POLICIES:
            raise ValueError(f"unknown duplicate policy {duplicates!r} (policies: {', '.join(DUPLICATE_POLICIES)})")
        self.counted = COUNTED if duplicates == "error" else tuple(k for k in COUNTED if k not in _DUPLICATES)
        if family is None:
            from schedc.lang.family import load_family

            family = load_family(instance.family)
        self.instance = instance
        self.family = family
        display = canonical_names(instance, family)
        display.update(names or {})
        step_word = dict(family.roles).get("operation", "step")
        for a in instance.activities:  # "Sourdough step 2" when job J1 is shown as "Sourdough"
            if a.job is not None and a.name not in (names or {}):
                display[a.name] = f"{display[a.job]} {step_word} {a.step}"
        self.names = NameMap(display)
        self.ctx = make_context(instance, family, display)
        self.format = AnswerFormat(family)
        #: resource → its role, and per activity the resources of each role its modes use (:meth:`_role_mode`)
        self.members = role_members(instance, self.format.roles)
        self.role_modes = {a.name: role_keys(a, self.format.roles, self.members) for a in instance.activities} \
            if self.format.roles else {}
        self.steps = {(a.job, a.step): a.name for a in instance.activities if a.job is not None}
        self.jobs = list(dict.fromkeys(a.job for a in instance.activities if a.job is not None))
        #: the workers answers may name (``skill_requirements``), in declaration order
        self.workers = list(dict.fromkeys(w for c in instance.constraints if isinstance(c, SkillRequirements)
                                          for w in self.ctx.select(c.workers)))
        # only a hard one_per_slot makes a second value of an agent-slot, or a missing agent-slot, an error of
        # the answer's structure; under a soft one both are schedules the rule scores
        self.per_agent_key = any(isinstance(c, OnePerSlot) and c.per == "agent" and c.active and c.hard
                                 for c in instance.constraints)
        self.exactly = any(isinstance(c, OnePerSlot) and c.exactly and c.active and c.hard
                           for c in instance.constraints)

    # ------------------------------------------------------------------ entry points

    def check(self, text: str, detail: bool = True) -> CheckReport:
        """Verify an answer text (never raises on any text).

        ``detail=False`` counts violations without making their records (:func:`schedc.verify.evaluate.tally`)
        and leaves the report's list of violations empty (``bench eval`` keeps only the counts); every
        other field, counts and failure modes included, is the same as with ``detail=True``.

        A structured answer — a JSON object ``{"assignments": [...]}`` as ``schedc grammar
        --format json-schema`` describes, bare or in a code fence — is read as the lines it stands for;
        one that cannot be read (not JSON, wrong types, non-finite or huge numbers) is read as text, and
        if no line is extracted the report's ``extraction_error`` says what was wrong with it.
        """
        text, structured_error = self._structured_as_text(text)
        stream = AnswerStream(text, self.format, self.keep)
        issues = IssueLog(self.keep)
        solution = self.decisions(stream, issues)
        if not stream.produced and not self._empty_schedule(stream, structured_error):
            return self._not_extracted(stream, structured_error)
        evaluation = evaluate(self.ctx, solution) if detail else tally(self.ctx, solution)
        return self._report(stream, solution, evaluation, issues)

    def _empty_schedule(self, extraction: AnswerStream, structured_error: str | None) -> bool:
        """Whether an answer without schedule lines is the empty schedule: it says nothing else (at most the
        header and a stated objective) and the instance requires no line (every activity optional, no
        assignment demanded), so that an optimum with nothing scheduled is read back as written."""
        return (structured_error is None and self.coverage(Solution())[1] == 0
                and extraction.skipped_count == len(extraction.skipped)
                and all(s.reason == "states an objective value" for s in extraction.skipped))

    def _structured_as_text(self, text: str) -> tuple[str, str | None]:
        """(the answer as text, why a structured answer could not be read or None)."""
        if not _MAYBE_STRUCTURED.match(text):  # neither JSON nor a fence: no copy of a huge text answer is made
            return text, None
        body = _FENCED_JSON.sub(r"\1", text).strip()
        if not body.startswith(("{", "[")):
            return text, None
        objects, limit = body.count("{"), max(MAX_STRUCTURED_ITEMS, 20 * self.coverage(Solution())[1])
        if objects > limit:  # decoded, each would cost some 30 times its text: refuse before decoding
            return text, f"the structured answer holds {objects:,} objects, more than {limit:,}"
        try:
            data = decode_structured(body)
        except ValueError as exc:
            return text, f"the structured answer is {exc}"
        if not isinstance(data, dict) or "assignments" not in data:
            return text, 'a structured answer is an object {"assignments": [...]}'
        try:
            return structured_to_text(self.instance, self.family, None, data), None
        except ValueError as exc:  # not a well-formed structured answer: extraction reports what it skips
            return text, f"the structured answer is not well formed: {exc}"

    def decisions(self, extraction: Extraction | AnswerStream, issues: list[Issue] | IssueLog) -> Solution:
        """Resolve extracted lines into a solution, recording structural issues (a stream is read here)."""
        counted = _Counted(extraction.lines)
        if self.instance.activities:
            solution = self._interval_decisions(counted, issues)
        else:
            solution = self._slot_decisions(counted, issues)
        if extraction.header is not None and "count" in extraction.header:
            stated = int(extraction.header["count"])
            if stated != counted.count:
                issues.append(Issue(kind="format", message=f"the header announces {stated} assignments but "
                                    f"{counted.count} lines follow"))
        elif self.format.header is not None:
            issues.append(Issue(kind="format", message=f"missing header line {self.format.header_template!r}"))
        return solution

    # ------------------------------------------------------------------ interval families

    def _interval_decisions(self, lines: Iterable[AnswerLine], issues: list[Issue] | IssueLog) -> Solution:
        starts: dict[str, int] = {}
        modes: dict[str, int] = {}
        teams: dict[str, tuple[str, ...]] = {}
        first_line: dict[str, int] = {}
        for line in lines:
            activity = self._activity(line, issues)
            if activity is None:
                continue
            start = int(line.fields["start"])
            mode = self._mode(activity, line, issues)
            if mode is None:
                continue
            team = self._team(line, issues) if "workers" in line.fields else ()
            if start < 0:
                issues.append(Issue(kind="out_of_domain", line=line.line,
                                    message=f"{self.names.show(activity)} starts at {start} < 0"))
                continue
            if activity in starts:
                same = (starts[activity], modes[activity]) == (start, mode)
                issues.append(Issue(kind="duplicate" if same else "conflicting_duplicate", line=line.line,
                                    message=_quiet(issues) or f"{self.names.show(activity)} is given again (first "
                                    f"on line {first_line[activity]}); the first one is kept"))
                continue
            starts[activity], modes[activity], first_line[activity] = start, mode, line.line
            if team:
                teams[activity] = team
        missing = [a.name for a in self.instance.activities if a.name not in starts and a.name not in self.ctx.optional]
        if missing:  # an optional activity without a line is not performed (docs/language.md)
            issues.append(Issue(kind="missing", message=f"{len(missing)} of {self.coverage(Solution())[1]} "
                                f"activities have no line: {self._listing(missing)}"))
        return Solution(starts=starts, modes=modes, workers=teams)

    def _team(self, line: AnswerLine, issues: list[Issue] | IssueLog) -> tuple[str, ...]:
        """The workers a line names (``workers=W1,W4``), each once; an unknown name is an issue with its
        column, and the line keeps the workers that are known."""
        workers = self.names.resolver("worker", self.workers)
        team: list[str] = []
        written = line.fields["workers"]
        offset = line.text.find(written)
        for name in split_list(written):
            worker = NameMap.lookup(workers, name)
            if worker is None:
                column = line.text.find(name, max(offset, 0)) + 1
                issues.append(Issue(kind="unknown_entity", line=line.line, message=f"unknown worker {_quote(name)}"
                                    + (f" (column {column})" if column > 0 else "")))
            elif worker not in team:
                team.append(worker)
        return tuple(team)

    def _activity(self, line: AnswerLine, issues: list[Issue] | IssueLog) -> str | None:
        fields = line.fields
        if "job" in fields:
            jobs = self.names.resolver("job", self.jobs)
            job = NameMap.lookup(jobs, fields["job"])
            if job is None:
                issues.append(Issue(kind="unknown_entity", line=line.line,
                                    message=f"unknown job {_quote(fields['job'])}"))
                return None
            name = self.steps.get((job, int(fields["step"])))
            if name is None:
                count = sum(1 for j, _ in self.steps if j == job)
                issues.append(Issue(kind="unknown_entity", line=line.line, message=f"{self.names.show(job)} has no "
                                    f"step {fields['step']} (steps 1..{count})"))
            return name
        activities = self.names.resolver("activity", self.ctx.activities)
        name = NameMap.lookup(activities, fields.get("activity", ""))
        if name is None:
            issues.append(Issue(kind="unknown_entity", line=line.line,
                                message=f"unknown activity {_quote(fields.get('activity'))}"))
        return name

    def _mode(self, activity: str, line: AnswerLine, issues: list[Issue] | IssueLog) -> int | None:
        modes = self.ctx.activities[activity].modes
        shown = self.names.show(activity)
        if self.format.roles:
            return self._role_mode(activity, line, issues)
        if "machine" in line.fields:
            machine = NameMap.lookup(self.names.resolver("machine", self.ctx.resources), line.fields["machine"])
            if machine is None:
                issues.append(Issue(kind="unknown_entity", line=line.line,
                                    message=f"unknown machine {_quote(line.fields['machine'])}"))
                return None
            for number, mode in enumerate(modes, start=1):
                if any(u.resource == machine for u in mode.uses):
                    return number
            issues.append(Issue(kind="out_of_domain", line=line.line,
                                message=f"{self.names.show(machine)} cannot process {shown}"))
            return None
        if "mode" in line.fields:
            number = int(line.fields["mode"])
            if not 1 <= number <= len(modes):
                issues.append(Issue(kind="out_of_domain", line=line.line,
                                    message=f"{shown} has no mode {number} (modes 1..{len(modes)})"))
                return None
            return number
        return 1

    def _role_mode(self, activity: str, line: AnswerLine, issues: list[Issue] | IssueLog) -> int | None:
        """The mode a line names by its resources per role (``room=OR3 surgeon=Hale``), or None with an issue:
        an unknown name, or a combination that is no mode of the activity — at the column of the first
        field no mode agrees with, saying what that field could have been."""
        roles = self.format.roles
        words = dict(self.family.roles)
        candidates = [(n, key) for n, key in enumerate(self.role_modes[activity], start=1) if key is not None]
        every = candidates
        written, position = line.text.casefold(), 0
        for index, role in enumerate(roles):
            value = line.fields[role]
            found = written.find(value.casefold(), position)
            column, position = (found + 1, found + len(value)) if found >= 0 else (None, position)
            at = f" (column {column})" if column else ""
            members = [name for name, cls in self.members.items() if cls == role]
            resource = NameMap.lookup(self.names.resolver(role, members), value)
            if resource is None:
                issues.append(Issue(kind="unknown_entity", line=line.line, message=f"unknown {words.get(role, role)} "
                                    f"{_quote(value)}{at}; expected {self._names_of(members)}"))
                return None
            left = [(n, key) for n, key in candidates if key[index] == resource]
            if not every:  # modes the semantic pass refuses (E214), in an IR built past it
                issues.append(Issue(kind="out_of_domain", line=line.line, message=(
                    f"{self.names.show(activity)} has no mode that uses one "
                    + " and one ".join(words.get(r, r) for r in roles) + f"{at}: no answer can name its mode")))
                return None
            if not left:
                chosen = ", ".join(f"{words.get(r, r)}={self.names.show(key)}"
                                   for r, key in zip(roles[:index], candidates[0][1], strict=False))
                options = self._names_of(list(dict.fromkeys(key[index] for _, key in candidates)))
                issues.append(Issue(kind="out_of_domain", line=line.line, message=(
                    f"{self.names.show(activity)} has no mode with " + (f"{chosen} and " if chosen else "")
                    + f"{words.get(role, role)}={self.names.show(resource)}{at}; expected {words.get(role, role)} "
                    f"{options}; its modes: {self._role_listing(every)}")))
                return None
            candidates = left
        return candidates[0][0]

    def _names_of(self, resources: list[str]) -> str:
        return "one of " + ", ".join(self.names.show(r) for r in resources) if len(resources) > 1 else \
            ", ".join(self.names.show(r) for r in resources)

    def _role_listing(self, candidates: list[tuple[int, tuple[str, ...]]]) -> str:
        words = dict(self.family.roles)
        return ", ".join("(" + ", ".join(f"{words.get(r, r)}={self.names.show(x)}"
                                         for r, x in zip(self.format.roles, key, strict=True)) + ")"
                         for _, key in candidates)

    # ------------------------------------------------------------------ slot families

    def _slot_decisions(self, lines: Iterable[AnswerLine], issues: list[Issue] | IssueLog) -> Solution:
        agents = self.names.resolver("agent", self.ctx.agents)
        values = self.names.resolver("value", self.ctx.values)
        kept: dict[tuple, tuple[str, int]] = {}
        assignments: list[Assignment] = []
        for line in lines:
            assignment = self._assignment(line, agents, values, issues)
            if assignment is None:
                continue
            key = (assignment.agent, assignment.day, assignment.period)
            if not self.per_agent_key:
                key += (assignment.value,)
            if key in kept:
                same = kept[key][0] == assignment.value
                issues.append(Issue(kind="duplicate" if same else "conflicting_duplicate", line=line.line,
                                    message=_quiet(issues) or f"{self.names.show(assignment.agent)} is given again "
                                    f"for {self._slot_text(assignment.day, assignment.period)} (first on line "
                                    f"{kept[key][1]}); the first one is kept"))
                continue
            kept[key] = (assignment.value, line.line)
            assignments.append(assignment)
        if self.exactly:
            slots = self.ctx.days * self.ctx.periods
            have = {(a.agent, a.day, a.period) for a in assignments}
            missing = len(self.ctx.agents) * slots - len(have)
            if missing:
                issues.append(Issue(kind="missing", message=f"{missing} of {len(self.ctx.agents) * slots} "
                                    "agent-days have no line (every one must be listed)"))
        return Solution(assignments=tuple(assignments))

    def _assignment(self, line: AnswerLine, agents: dict[str, str], values: dict[str, str],
                    issues: list[Issue] | IssueLog) -> Assignment | None:
        f = line.fields
        agent = NameMap.lookup(agents, f.get("agent", ""))
        value = NameMap.lookup(values, f.get("value", ""))
        problems = []
        roles = dict(self.family.roles)
        if agent is None:
            problems.append(f"unknown {roles.get(self.ctx.agent_cls, self.ctx.agent_cls)} {_quote(f.get('agent'))}")
        if value is None:
            problems.append(f"unknown {roles.get(self.ctx.value_cls, self.ctx.value_cls)} {_quote(f.get('value'))}")
        if problems:
            issues.append(Issue(kind="unknown_entity", line=line.line, message="; ".join(problems)))
            return None
        day = self._day_index(int(f["day"]))
        period = int(f.get("period", 0))
        if not 0 <= day < self.ctx.days or not 0 <= period < self.ctx.periods:
            issues.append(Issue(kind="out_of_domain", line=line.line, message=f"{self._slot_text_written(f)} "
                                f"is outside the horizon ({self._horizon_text()})"))
            return None
        assert agent is not None and value is not None
        return Assignment(agent, day, period, value)

    def _day_index(self, written: int) -> int:
        mode = self.family.day_names
        if mode == "index1":
            return written - 1
        if mode == "date":
            cal = self.instance.calendar
            first = cal.start_date.day if cal is not None and cal.start_date is not None else 1
            return written - first
        return written

    def day_display(self, day: int) -> int:
        """How day index ``day`` is written in prompts and answers of this family."""
        mode = self.family.day_names
        if mode == "index1":
            return day + 1
        if mode == "date":
            cal = self.instance.calendar
            return day + (cal.start_date.day if cal is not None and cal.start_date is not None else 1)
        return day

    def _slot_text(self, day: int, period: int) -> str:
        text = f"day {self.day_display(day)}"
        return text if self.ctx.periods == 1 else f"{text} period {period}"

    def _slot_text_written(self, fields: dict[str, str]) -> str:
        text = f"day {fields['day']}"
        return text + (f" period {fields['period']}" if "period" in fields else "")

    def _horizon_text(self) -> str:
        first, last = self.day_display(0), self.day_display(self.ctx.days - 1)
        text = f"days {first}..{last}"
        return text if "period" not in self.format.fields else f"{text}, periods 0..{self.ctx.periods - 1}"

    def _listing(self, names: list[str], limit: int = 5) -> str:
        shown = ", ".join(self.names.show(n) for n in names[:limit])
        return shown + (f", … (+{len(names) - limit})" if len(names) > limit else "")

    # ------------------------------------------------------------------ writing answers

    def write(self, solution: Solution) -> str:
        """A solution as answer text in the family's format, with this verifier's names."""
        lines = [self._fill(fields) for fields in self._answer_fields(solution)]
        if self.format.header_template:
            lines.insert(0, self.format.header_template.replace("<count>", str(len(lines))))
        return "\n".join(lines) + "\n"

    def _answer_fields(self, solution: Solution) -> list[dict[str, object]]:
        if self.instance.activities:
            rows = []
            for a in self.instance.activities:
                if a.name not in solution.starts:
                    continue
                number = solution.modes.get(a.name, 1)
                mode = a.modes[number - 1]
                team = solution.workers.get(a.name, ())
                row: dict[str, object] = {
                    "job": self.names.show(a.job or ""), "step": a.step, "activity": self.names.show(a.name),
                    "start": solution.starts[a.name], "mode": number,
                    "machine": self.names.show(mode.uses[0].resource) if mode.uses else "",
                    "workers": ", ".join(self.names.show(w) for w in team) or "-"}
                for role, used in mode_roles(mode, self.members).items():
                    row[role] = self.names.show(used[0])
                rows.append(row)
            return rows
        return [{"agent": self.names.show(x.agent), "value": self.names.show(x.value),
                 "day": self.day_display(x.day), "period": x.period} for x in solution.assignments]

    def _fill(self, fields: dict[str, object]) -> str:
        return re.sub(r"<([a-z_]+)>", lambda m: str(fields[m.group(1)]), self.format.template)

    # ------------------------------------------------------------------ report

    def coverage(self, solution: Solution) -> tuple[int, int]:
        """(present, required) assignments of the answer."""
        if self.instance.activities:  # optional activities are not required
            return len(set(solution.starts) - self.ctx.optional), len(self.instance.activities) - len(self.ctx.optional)
        if self.exactly:
            present = len({(a.agent, a.day, a.period) for a in solution.assignments})
            return present, len(self.ctx.agents) * self.ctx.days * self.ctx.periods
        return _demand_coverage(self, solution)

    def _not_extracted(self, extraction: Extraction | AnswerStream, structured_error: str | None = None
                       ) -> CheckReport:
        required = self.coverage(Solution())[1]
        reason = f"no line matches the answer format {self.format.template!r}"
        if structured_error is not None:
            reason += f"; {structured_error}"
        return CheckReport(
            instance=self.instance.name, family=self.family.name, extracted=False,
            extraction_error=reason, feasible=False,
            produced=0, required=required, coverage=0.0, hard_violations=0, violation_rate=None, issues=[],
            violations=[], objective=None, objective_measure=self.instance.objective.measure, components={},
            stated_objective=extraction.stated_objective, stated_objective_matches=None,
            bks=self.instance.meta.bks, bks_kind=self.instance.meta.bks_kind, gap_pct=None, optimal_within={},
            skipped_lines=list(extraction.skipped), failure_modes=failure_modes.count(["unparseable"]),
            omitted_skipped_lines=_omitted_skipped(extraction))

    def _report(self, extraction: AnswerStream, solution: Solution, evaluation: Evaluation | Tally,
                issues: IssueLog) -> CheckReport:
        present, required = self.coverage(solution)
        counted = sum(n for kind, n in issues.counts.items() if kind in self.counted)
        # (kind, amount) → violations: the failure-mode category depends on these only (an answer with
        # every job-shop activity at 0 has ~10⁵ overlapping pairs)
        if isinstance(evaluation, Tally):
            records: tuple[Violation, ...] = ()
            sizes = Counter(evaluation.sizes)
        else:
            records = evaluation.violations
            sizes = Counter(map(attrgetter("kind", "amount"), records))
        hard = sum(sizes.values()) + counted
        produced = extraction.produced
        complete = present >= required and not (issues.counts["missing"] or issues.counts["unknown_entity"])
        feasible = complete and hard == 0
        objective = evaluation.objective if complete else None
        bks = self.instance.meta.bks
        gap = None
        if feasible and objective is not None and bks:
            gap = (objective - bks) / bks * 100.0
        elif feasible and objective is not None and bks == 0:
            gap = 0.0 if objective == 0 else None
        stated = extraction.stated_objective
        listed = [msgspec.structs.replace(i, category=failure_modes.issue_category(i.kind),
                                          counted=i.kind in self.counted) for i in issues]
        category = {key: failure_modes.violation_category(*key) for key in sizes}
        violations = [ViolationReport(kind=v.kind, constraint=v.constraint, message=v.message, amount=v.amount,
                                      entities=v.entities, category=category[v.kind, v.amount])
                      for v in records]
        seen: Counter[str] = Counter()
        for kind, number in issues.counts.items():
            seen[failure_modes.issue_category(kind)] += number
        seen["unparseable"] += extraction.unparseable
        for key, number in sizes.items():
            seen[category[key]] += number
        modes = failure_modes.count(seen.elements())
        return CheckReport(
            instance=self.instance.name, family=self.family.name, extracted=True, extraction_error=None,
            feasible=feasible, produced=produced, required=required,
            coverage=round(min(present, required) / required, 6) if required else 1.0,
            hard_violations=hard, violation_rate=round(hard / produced, 6) if produced else None,
            issues=listed, violations=violations,
            objective=objective, objective_measure=self.instance.objective.measure,
            components=evaluation.components, stated_objective=stated,
            stated_objective_matches=None if stated is None or objective is None else stated == objective,
            bks=bks, bks_kind=self.instance.meta.bks_kind, gap_pct=None if gap is None else round(gap, 4),
            optimal_within={f"{eps:g}": gap <= eps + 1e-9 for eps in EPSILONS} if gap is not None else {},
            skipped_lines=list(extraction.skipped), stated_objective_error=_relative_error(stated, objective),
            failure_modes=modes, omitted_issues=issues.omitted(), omitted_skipped_lines=extraction.omitted_skipped)


class _Counted:
    """An iterable of answer lines that counts the lines it has given."""

    def __init__(self, lines: Iterable[AnswerLine]):
        self.lines, self.count = lines, 0

    def __iter__(self) -> Iterator[AnswerLine]:
        for line in self.lines:
            self.count += 1
            yield line


def _quiet(issues: list[Issue] | IssueLog) -> str:
    """An empty message for an issue that will only be counted (no need to write it), else ''."""
    return "(counted)" if isinstance(issues, IssueLog) and issues.full() else ""


def _quote(written: str | None) -> str:
    """A name as an answer wrote it, quoted for a message (a huge one cut short)."""
    return repr(written if written is None else shorten(written, 80))


def _omitted_skipped(extraction: Extraction | AnswerStream) -> int:
    return extraction.omitted_skipped if isinstance(extraction, AnswerStream) else 0


def _relative_error(stated: int | None, objective: int | None) -> float | None:
    """|stated − recomputed| / max(|recomputed|, 1) (an objective of 0 compares absolutely)."""
    if stated is None or objective is None:
        return None
    return round(abs(stated - objective) / max(abs(objective), 1), 6)


def _demand_coverage(verifier: Verifier, solution: Solution) -> tuple[int, int]:
    """Coverage of slot families without a full grid: filled demand units / demanded units.

    Demand comes from ``coverage`` requirements (their minimum) or, failing those, from
    per-agent ``count_bounds`` minimums (e.g. the lectures of each course).
    """
    ctx = verifier.ctx
    counts: dict[tuple, int] = {}
    for a in solution.assignments:
        counts[(a.day, a.value)] = counts.get((a.day, a.value), 0) + 1
        counts[("agent", a.agent)] = counts.get(("agent", a.agent), 0) + 1
    for c in ctx.instance.constraints:
        if isinstance(c, Coverage) and c.active and c.hard:
            reqs = [r for r in c.requirements if r.min]
            return (sum(min(counts.get((r.day, r.value), 0), r.min or 0) for r in reqs),
                    sum(r.min or 0 for r in reqs))
    for c in ctx.instance.constraints:
        if isinstance(c, CountBounds) and c.active and c.hard and c.values.mode == "work" and c.min is not None:
            lows = {agent: ctx.bound(c.min, agent) or 0 for agent in ctx.select(c.agents)}
            return (sum(min(counts.get(("agent", agent), 0), low) for agent, low in lows.items()),
                    sum(lows.values()))
    return len(solution.assignments), len(solution.assignments)
