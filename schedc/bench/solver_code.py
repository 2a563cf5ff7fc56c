"""SCHEDBench's solver-code condition: the model answers with a program whose printed schedule is verified.

``bench build --answer-mode solver-code`` renders the same instance text and response format as
the text condition and appends :func:`instruction` (this module's stanza, not a rendering
template) to the user prompt. ``bench eval`` takes the program out of the response
(:func:`extract_program`: the last fenced Python block, else the whole text), runs it in the
sandbox (:mod:`schedc.bench.sandbox`) and verifies what it printed exactly like a text answer.
A program that does not end with exit status 0 (error, timeout, limits) has no answer: its
output is not verified, and its ``program_status`` says why.
"""

from __future__ import annotations

import re

from schedc.bench.sandbox import Limits, run_program

ANSWER_MODES = ("text", "solver-code")
_FENCE = re.compile(r"^[ \t]*```[ \t]*(?P<lang>[A-Za-z0-9_+-]*)[^\n]*\n(?P<body>.*?)^[ \t]*```[ \t]*$",
                    re.MULTILINE | re.DOTALL)
PYTHON_TAGS = ("python", "python3", "py")


def instruction(limits: Limits | None = None) -> str:
    """The stanza appended to the user prompt in solver-code mode."""
    limits = limits or Limits()
    return (
        "Answer mode: program. Do not write the schedule yourself. Instead, write one complete Python 3 program "
        "that computes a schedule for the instance above and prints it to standard output in exactly the response "
        "format stated above (and nothing else on standard output). The program may use the Python standard "
        "library and Google OR-Tools (`from ortools.sat.python import cp_model`). It runs without network "
        f"access, without input files and without arguments, with at most {limits.cpu_seconds} s of CPU time, "
        f"{limits.wall_seconds:g} s of wall time and {limits.memory_bytes >> 20} MiB of memory. Put the program "
        "in a single fenced code block that starts with ```python."
    )


def extract_program(text: str) -> str:
    """The last fenced Python block of ``text`` (an untagged block counts when no tagged one exists), else ``text``."""
    blocks = [(m.group("lang").lower(), m.group("body")) for m in _FENCE.finditer(text.replace("\r\n", "\n"))]
    tagged = [body for lang, body in blocks if lang in PYTHON_TAGS]
    untagged = [body for lang, body in blocks if not lang]
    return (tagged or untagged or [text])[-1]


def run_answer(text: str, limits: Limits | None = None) -> tuple[str | None, str]:
    """(printed schedule or None, program status) of a solver-code response."""
    result = run_program(extract_program(text), limits)
    return (result.stdout if result.status == "ok" else None), result.status
