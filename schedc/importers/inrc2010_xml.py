"""Positioned XML elements and typed access to them, for the INRC-2010 reader.

expat (standard library) parses the file into :class:`XmlNode` objects that keep the line and
column of their start tag; the accessors read children, attributes and values and raise a
:class:`~schedc.core.diagnostics.SchedcError` at the element (codes I501–I523 of
:mod:`schedc.importers.inrc2010_reader`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from xml.parsers import expat

from schedc.core.diagnostics import SchedcError
from schedc.importers.inrc2010_records import ANY, WEEKDAYS

DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
TIME_RE = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})")
UINT_RE = re.compile(r"[0-9]{1,4000}")  # int() refuses longer digit strings
BOOLEANS: Mapping[str, bool] = {"true": True, "1": True, "false": False, "0": False}


# --------------------------------------------------------------------------------------------
# XML tree with positions
# --------------------------------------------------------------------------------------------


class XmlNode:
    """A parsed element: tag, attributes, children, text chunks and 1-based start position."""

    __slots__ = ("tag", "attrs", "children", "parts", "line", "column")

    def __init__(self, tag: str, attrs: dict[str, str], line: int, column: int):
        self.tag = tag
        self.attrs = attrs
        self.children: list[XmlNode] = []
        self.parts: list[str] = []
        self.line = line
        self.column = column

    def text(self) -> str:
        """All character data directly inside this element, stripped."""
        return "".join(self.parts).strip()


class XmlFile:
    """The file being read: its name and text, for positioned errors."""

    __slots__ = ("file", "source")

    def __init__(self, file: str, source: str):
        self.file = file
        self.source = source

    def error(self, code: str, message: str, node: XmlNode | None, hint: str | None = None) -> SchedcError:
        """A :class:`SchedcError` at ``node``'s start tag (no position if ``node`` is None)."""
        line = node.line if node is not None else None
        column = node.column if node is not None else 1
        return SchedcError.at(code, message, file=self.file, line=line, column=column, hint=hint,
                              source=self.source)


def parse_tree(ctx: XmlFile) -> XmlNode:
    """Parse the XML text with expat into :class:`XmlNode` objects carrying line/column."""
    parser = expat.ParserCreate(encoding="UTF-8")
    parser.buffer_text = True
    stack: list[XmlNode] = []
    roots: list[XmlNode] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        node = XmlNode(tag, attrs, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)

    def end(_tag: str) -> None:
        stack.pop()

    def chars(data: str) -> None:
        if stack:
            stack[-1].parts.append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(ctx.source.encode("utf-8"), True)
    except expat.ExpatError as exc:
        raise SchedcError.at("I501", f"malformed XML: {expat.ErrorString(exc.code)}", file=ctx.file,
                             line=exc.lineno, column=exc.offset + 1, source=ctx.source,
                             hint="expected a well-formed XML document") from None
    return roots[0]


# --------------------------------------------------------------------------------------------
# Generic element access
# --------------------------------------------------------------------------------------------


def group(ctx: XmlFile, node: XmlNode, allowed: Mapping[str, bool]) -> dict[str, list[XmlNode]]:
    """Group ``node``'s children by tag; ``allowed`` maps each tag to "may repeat"."""
    if "".join(node.parts).strip():
        raise ctx.error("I508", f"unexpected text inside <{node.tag}>", node,
                        hint="expected only child elements here")
    groups: dict[str, list[XmlNode]] = {}
    for child in node.children:
        repeat = allowed.get(child.tag)
        if repeat is None:
            raise ctx.error("I504", f"unexpected element <{child.tag}> in <{node.tag}>", child,
                            hint="expected one of " + ", ".join(f"<{t}>" for t in allowed))
        nodes = groups.setdefault(child.tag, [])
        if nodes and not repeat:
            raise ctx.error("I505", f"<{child.tag}> occurs twice in <{node.tag}> (first at line "
                            f"{nodes[0].line})", child, hint=f"expected at most one <{child.tag}>")
        nodes.append(child)
    return groups


def one(ctx: XmlFile, parent: XmlNode, groups: dict[str, list[XmlNode]], tag: str) -> XmlNode:
    """The single required child ``tag`` of ``parent``."""
    nodes = groups.get(tag)
    if not nodes:
        raise ctx.error("I503", f"<{parent.tag}> has no <{tag}>", parent, hint=f"expected a <{tag}> element")
    return nodes[0]


def opt(groups: dict[str, list[XmlNode]], tag: str) -> XmlNode | None:
    """The optional single child ``tag``, or None."""
    nodes = groups.get(tag)
    return nodes[0] if nodes else None


def some(ctx: XmlFile, parent: XmlNode, groups: dict[str, list[XmlNode]], tag: str) -> list[XmlNode]:
    """The repeated child ``tag``, at least one."""
    nodes = groups.get(tag)
    if not nodes:
        raise ctx.error("I503", f"<{parent.tag}> has no <{tag}>", parent,
                        hint=f"expected at least one <{tag}> element")
    return nodes


def children_of(ctx: XmlFile, node: XmlNode | None, tag: str) -> list[XmlNode]:
    """The ``tag`` children of a list element (empty if the list element is absent)."""
    if node is None:
        return []
    return group(ctx, node, {tag: True}).get(tag, [])


def leaf(ctx: XmlFile, node: XmlNode, what: str, allow_empty: bool = False) -> str:
    """The stripped text of a value element (no child elements allowed)."""
    if node.children:
        child = node.children[0]
        raise ctx.error("I504", f"unexpected element <{child.tag}> in <{node.tag}>", child,
                        hint=f"expected {what} as text")
    text = node.text()
    if not text and not allow_empty:
        raise ctx.error("I507", f"<{node.tag}> is empty", node, hint=f"expected {what}")
    return text


def attr(ctx: XmlFile, node: XmlNode, name: str) -> str:
    """A required attribute's value, stripped."""
    value = node.attrs.get(name)
    if value is None:
        raise ctx.error("I506", f"<{node.tag}> has no {name!r} attribute", node,
                        hint=f'expected <{node.tag} {name}="…">')
    return value.strip()


def id_attr(ctx: XmlFile, node: XmlNode) -> str:
    """The non-empty ``ID`` attribute of ``node``."""
    value = attr(ctx, node, "ID")
    if not value:
        raise ctx.error("I507", f"<{node.tag}> has an empty ID", node, hint="expected a non-empty ID")
    return value


def uint(ctx: XmlFile, node: XmlNode, raw: str, what: str, code: str) -> int:
    """``raw`` as a non-negative integer."""
    if not UINT_RE.fullmatch(raw):
        raise ctx.error(code, f"{what} is {raw!r}", node, hint="expected a non-negative integer")
    return int(raw)


def weight_attr(ctx: XmlFile, node: XmlNode) -> int:
    """The ``weight`` attribute as a non-negative integer."""
    return uint(ctx, node, attr(ctx, node, "weight"), f"the weight of <{node.tag}>", "I513")


def boolean(ctx: XmlFile, node: XmlNode, raw: str, what: str) -> bool:
    """``raw`` as an xs:boolean."""
    value = BOOLEANS.get(raw)
    if value is None:
        raise ctx.error("I515", f"{what} is {raw!r}", node, hint="expected true, false, 1 or 0")
    return value


def xml_date(ctx: XmlFile, node: XmlNode) -> date:
    """The text of ``node`` as a ``yyyy-mm-dd`` date."""
    raw = leaf(ctx, node, "a date yyyy-mm-dd")
    if DATE_RE.fullmatch(raw):
        try:
            return date.fromisoformat(raw)
        except ValueError:
            pass
    raise ctx.error("I509", f"<{node.tag}> is {raw!r}, not a date", node, hint="expected a date yyyy-mm-dd")


def clock_time(ctx: XmlFile, node: XmlNode) -> tuple[str, tuple[int, int, int]]:
    """The text of ``node`` as ``hh:mm:ss``: the text and its (h, m, s)."""
    raw = leaf(ctx, node, "a time hh:mm:ss")
    match = TIME_RE.fullmatch(raw)
    if match:
        hms = (int(match[1]), int(match[2]), int(match[3]))
        if hms[0] < 24 and hms[1] < 60 and hms[2] < 60:
            return raw, hms
    raise ctx.error("I512", f"<{node.tag}> is {raw!r}, not a time", node, hint="expected a time hh:mm:ss")


def weekday_name(ctx: XmlFile, node: XmlNode, allow_any: bool) -> str:
    """The text of ``node`` as a weekday name (or ``Any`` if allowed)."""
    raw = leaf(ctx, node, "a weekday name")
    if raw in WEEKDAYS or (allow_any and raw == ANY):
        return raw
    expected = ", ".join(WEEKDAYS) + (" or Any" if allow_any else "")
    raise ctx.error("I523", f"unknown weekday {raw!r} in <{node.tag}>", node,
                    hint=f"expected one of {expected}")


def ref(ctx: XmlFile, node: XmlNode, known: Mapping[str, object] | set[str], kind: str, code: str) -> str:
    """The text of ``node`` as the id of a known ``kind``."""
    raw = leaf(ctx, node, f"a {kind} id")
    if raw not in known:
        ids = sorted(known)
        listed = ", ".join(ids[:20]) if ids else "none declared"
        if len(ids) > 20:
            listed += f", … ({len(ids)} in all)"
        raise ctx.error(code, f"unknown {kind} {raw!r} in <{node.tag}>", node,
                        hint=f"expected one of: {listed}")
    return raw


def unique(ctx: XmlFile, node: XmlNode, key: str, seen: dict[str, int], kind: str) -> None:
    """Record ``key`` as seen at ``node``; fail if it was seen before."""
    if key in seen:
        raise ctx.error("I516", f"duplicate {kind} id {key!r} (first at line {seen[key]})", node,
                        hint=f"expected each {kind} id once")
    seen[key] = node.line


def id_list(ctx: XmlFile, node: XmlNode | None, tag: str, known: set[str] | None, kind: str,
             code: str) -> tuple[str, ...]:
    """The ids of a list like ``<Skills><Skill>…</Skill></Skills>``, unique, checked against ``known``."""
    ids: list[str] = []
    seen: dict[str, int] = {}
    for child in children_of(ctx, node, tag):
        if known is None:
            value = leaf(ctx, child, f"a {kind} id")
        else:
            value = ref(ctx, child, known, kind, code)
        unique(ctx, child, value, seen, kind)
        ids.append(value)
    return tuple(ids)


# --------------------------------------------------------------------------------------------
# The planning horizon
# --------------------------------------------------------------------------------------------


class Horizon:
    """Start date and length of the planning horizon, with date → day index lookup."""

    __slots__ = ("start", "end", "n_days")

    def __init__(self, start: date, end: date):
        self.start = start
        self.end = end
        self.n_days = (end - start).days + 1

    def day(self, ctx: XmlFile, node: XmlNode) -> tuple[int, date]:
        """The day index and date of a ``<Date>`` element, which must lie in the horizon."""
        value = xml_date(ctx, node)
        if not self.start <= value <= self.end:
            raise ctx.error("I511", f"date {value.isoformat()} lies outside the horizon", node,
                            hint=f"expected a date from {self.start.isoformat()} to {self.end.isoformat()}")
        return (value - self.start).days, value

    def weekday(self, day: int) -> str:
        """The weekday name of day index ``day``."""
        return WEEKDAYS[(self.start.weekday() + day) % 7]


def read_horizon(ctx: XmlFile, groups: dict[str, list[XmlNode]], root: XmlNode) -> Horizon:
    """``StartDate``/``EndDate``; the end must not precede the start."""
    start = xml_date(ctx, one(ctx, root, groups, "StartDate"))
    end_node = one(ctx, root, groups, "EndDate")
    end = xml_date(ctx, end_node)
    if end < start:
        raise ctx.error("I510", f"EndDate {end.isoformat()} is before StartDate {start.isoformat()}",
                        end_node, hint="expected an end date on or after the start date")
    return Horizon(start, end)
