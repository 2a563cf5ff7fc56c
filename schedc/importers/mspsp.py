"""iMOPSE MS-RCPSP ``.def`` files → IR (family ``mspsp``).

The iMOPSE data set (Myszkowski, Skowroński, Olech, Oślizło, "Hybrid ant colony optimization in
solving multi-skill resource-constrained project scheduling problem", Soft Computing 19, 2015;
https://github.com/imopse/iMOPSE, ``configurations/problems/MSRCPSP``) describes a project as

- a header: ``Tasks: N``, ``Resources: R``, ``Precedence relations: P``, ``Number of skill types: K``;
- after the line starting ``ResourceID``: one line per resource ``ID SALARY Qs: l Qs: l ...`` — the
  skill types the resource has, each with its level;
- after the line starting ``TaskID``: one line per task ``ID DURATION Qs: l [PREDECESSOR IDs...]`` — the
  skill type and the least level the task requires, then the tasks that must end before it starts.

Its meaning (iMOPSE's ``CResource::HasSkill`` and scheduler): each task is carried out, without
interruption, by exactly one resource that has the required skill type at the required level or
higher; a resource works on one task at a time; precedences are end-to-start. The objective here is
the makespan. **Left out**: the salaries and the cost objective (``Σ salary × duration`` of the
assigned resource), iMOPSE's second objective — the salary column is read and checked, not imported.

Mapping: task i becomes activity ``A<i>`` (one mode, its duration, no resource use), resource r the
worker ``W<r>`` of class ``worker``; a level is a skill of its own — skill type s at level l is the skill
``Q<s>L<l>`` — and a worker with type s at level L lists ``Q<s>L0 … Q<s>L<L>`` (the levels it covers), so
that "a level at least l" is "the skill ``Q<s>L<l>``". Each task is one ``skill_requirements`` row
``A<i> Q<s>L<l> 1`` (a task listing several skills, which the reader accepts though no published file
has one, gets one row each — one worker per skill, the MSPSP reading, where iMOPSE's scheduler would
want one resource covering all of them).

Error codes (file, line and column): I801 the file cannot be read; I802 a header count is missing or
not a number; I803 a section line (``ResourceID``, ``TaskID``) is missing; I804 a resource or task line
is missing or malformed; I805 ids out of order (not 1..N in file order); I806 a predecessor id outside
1..N or the task itself; I807 a duration or level below 0.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.importers.common import BksRow, all_of, checked, make_meta
from schedc.importers.tokens import read_source
from schedc.ir import Activity, Entity, Instance, Mode, Objective
from schedc.kinds import Edge, ModeChoice, PrecedenceLag
from schedc.kinds.skill_requirements import SkillNeedUnit, SkillRequirements

_SKILL = re.compile(r"Q(-?[0-9]{1,9})\s*:\s*(-?[0-9]{1,9})")
_NUMBER = re.compile(r"-?[0-9]{1,12}(?:\.[0-9]{0,12})?")
_HEADER = {"tasks": r"Tasks:", "resources": r"Resources:"}


class DefResource(msgspec.Struct, frozen=True, kw_only=True):
    """A resource line: id, salary, and (skill type, level) pairs in file order."""

    id: int
    salary: float
    skills: tuple[tuple[int, int], ...]


class DefTask(msgspec.Struct, frozen=True, kw_only=True):
    """A task line: id, duration, required (skill type, least level) pairs, predecessor ids."""

    id: int
    duration: int
    skills: tuple[tuple[int, int], ...]
    predecessors: tuple[int, ...]


class DefData(msgspec.Struct, frozen=True, kw_only=True):
    """An iMOPSE ``.def`` file as read (resources and tasks in file order, ids 1..n)."""

    name: str
    resources: tuple[DefResource, ...]
    tasks: tuple[DefTask, ...]


def read_def(path: str | Path) -> DefData:
    """Read and check one ``.def`` file (errors name the file, line and column)."""
    path = Path(path)
    text = read_source(path, code="I801")
    lines = text.splitlines()
    file = str(path)

    def error(code: str, message: str, line: int | None = None, column: int = 1) -> SchedcError:
        return SchedcError.at(code, message, file=file, line=line, column=column, source=text)

    counts: dict[str, int] = {}
    for key, label in _HEADER.items():
        found = next(((i, m) for i, raw in enumerate(lines, start=1)
                      if (m := re.match(rf"\s*{label}\s*([0-9]{{1,7}})\s*$", raw))), None)
        if found is None:
            raise error("I802", f"the header has no '{label} N' line")
        counts[key] = int(found[1].group(1))
    sections = {}
    for key in ("ResourceID", "TaskID"):
        at = next((i for i, raw in enumerate(lines, start=1) if raw.strip().startswith(key)), None)
        if at is None:
            raise error("I803", f"no line starts with {key!r}")
        sections[key] = at
    resources = tuple(_resource(lines, sections["ResourceID"] + k, k + 1, error)
                      for k in range(counts["resources"]))
    tasks = tuple(_task(lines, sections["TaskID"] + k, k + 1, counts["tasks"], error)
                  for k in range(counts["tasks"]))
    return DefData(name=path.stem, resources=resources, tasks=tasks)


def _line(lines: list[str], index: int, what: str, error) -> tuple[list[str], str]:  # type: ignore[no-untyped-def]
    if index >= len(lines) or not lines[index].strip() or lines[index].lstrip().startswith("="):
        raise error("I804", f"{what} is missing (line {index + 1} holds no such line)", min(index + 1, len(lines)))
    raw = lines[index]
    return raw.split(), raw


def _id(tokens: list[str], expected: int, number: int, what: str, error) -> None:  # type: ignore[no-untyped-def]
    if not tokens[0].isdigit() or int(tokens[0]) != expected:
        raise error("I805", f"{what} line holds id {tokens[0]!r}, expected {expected} (ids are 1..N in file order)",
                    number)


def _resource(lines: list[str], index: int, expected: int, error) -> DefResource:  # type: ignore[no-untyped-def]
    tokens, raw = _line(lines, index, f"resource {expected}", error)
    number = index + 1
    _id(tokens, expected, number, "a resource", error)
    if len(tokens) < 2 or not _NUMBER.fullmatch(tokens[1]):
        raise error("I804", "a resource line is 'ID SALARY Qs: level ...'", number)
    skills = _skills(raw, number, error)
    if not skills:
        raise error("I804", f"resource {expected} lists no skill", number)
    return DefResource(id=expected, salary=float(tokens[1]), skills=skills)


def _task(lines: list[str], index: int, expected: int, n: int, error) -> DefTask:  # type: ignore[no-untyped-def]
    tokens, raw = _line(lines, index, f"task {expected}", error)
    number = index + 1
    _id(tokens, expected, number, "a task", error)
    if len(tokens) < 2 or not tokens[1].lstrip("-").isdigit():
        raise error("I804", "a task line is 'ID DURATION Qs: level [PREDECESSOR IDs]'", number)
    duration = int(tokens[1])
    if duration < 0:
        raise error("I807", f"task {expected} has a negative duration {duration}", number, raw.find(tokens[1]) + 1)
    skills = _skills(raw, number, error)
    if not skills:
        raise error("I804", f"task {expected} requires no skill", number)
    rest = _SKILL.split(raw)[-1].split()  # the tokens after the last skill: predecessor ids
    predecessors = []
    for token in rest:
        if not token.isdigit() or not 1 <= int(token) <= n or int(token) == expected:
            raise error("I806", f"task {expected} names predecessor {token!r}, not a task 1..{n} other than itself",
                        number, raw.rfind(token) + 1)
        predecessors.append(int(token))
    return DefTask(id=expected, duration=duration, skills=skills, predecessors=tuple(predecessors))


def _skills(raw: str, number: int, error) -> tuple[tuple[int, int], ...]:  # type: ignore[no-untyped-def]
    out = []
    for m in _SKILL.finditer(raw):
        skill, level = int(m.group(1)), int(m.group(2))
        if skill < 0 or level < 0:
            raise error("I807", f"skill Q{skill} with level {level}: types and levels are at least 0", number,
                        m.start() + 1)
        out.append((skill, level))
    return tuple(out)


def skill_name(skill: int, level: int) -> str:
    """The skill of type ``skill`` at level ``level`` or higher: ``Q2L1``."""
    return f"Q{skill}L{level}"


def import_mspsp(path: str | Path, bks: dict[str, BksRow] | None = None) -> Instance:
    """Import one iMOPSE ``.def`` file as an ``mspsp`` instance (makespan; salaries left out)."""
    path = Path(path)
    data = read_def(path)
    workers = tuple(Entity(name=f"W{r.id}", cls="worker",
                           attrs={"skills": tuple(skill_name(s, lv) for s, top in r.skills for lv in range(top + 1))})
                    for r in data.resources)
    activities = tuple(Activity(name=f"A{t.id}", modes=(Mode(duration=t.duration, uses=()),)) for t in data.tasks)
    edges = tuple(Edge(before=f"A{p}", after=f"A{t.id}") for t in data.tasks for p in t.predecessors)
    needs = tuple(SkillNeedUnit(activity=f"A{t.id}", skill=skill_name(s, lv), count=1)
                  for t in data.tasks for s, lv in dict.fromkeys(t.skills))
    constraints = (*((PrecedenceLag(id="precedence", edges=edges),) if edges else ()), ModeChoice(id="modes"),
                   SkillRequirements(id="skills", workers=all_of("worker"), needs=needs))
    meta = make_meta(data.name, f"iMOPSE MS-RCPSP {path.parent.name}/{path.name}", bks)
    return checked(Instance(name=data.name, family="mspsp", meta=meta, activities=activities, entities=workers,
                            constraints=constraints, objective=Objective(measure="makespan")))
