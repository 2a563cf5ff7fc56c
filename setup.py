"""Packaging beside ``pyproject.toml``: the list of packages.

The template folders (``templates/<family>/<category>/``) hold only Jinja2 files, yet setuptools
treats every folder below a package as a package of its own and warns for each one it is not told
about ("Package would be ignored"). They are listed here, computed from the tree, so that a new
family's or category's folder needs no edit. Everything else is configured in ``pyproject.toml``.
"""

from pathlib import Path

from setuptools import setup

#: Data folders of their own outside ``schedc/`` (mapped in ``pyproject.toml``'s ``package-dir``).
MAPPED = ["schedc.grammar", "schedc.specs", "schedc.templates"]
#: the checkout this file is in
HERE = Path(__file__).resolve().parent


def code_packages(root: Path = HERE / "schedc") -> list[str]:
    """``schedc`` and every package below it (a folder with an ``__init__.py``), so a new one needs no edit."""
    return ["schedc"] + ["schedc." + ".".join(p.parent.relative_to(root).parts)
                         for p in sorted(root.rglob("__init__.py")) if p.parent != root]


def backend_packages(root: Path = HERE / "backends") -> list[str]:
    """``schedc.backends`` and every package below it (the top-level ``backends/`` folder, mapped in)."""
    return ["schedc." + ".".join(("backends", *p.parent.relative_to(root).parts))
            for p in sorted(root.rglob("__init__.py"))]


def template_packages(root: Path = HERE / "templates") -> list[str]:
    """``schedc.templates.<folder>`` for every folder below ``templates/``."""
    return ["schedc.templates." + ".".join(p.relative_to(root).parts)
            for p in sorted(root.rglob("*")) if p.is_dir() and p.name != "__pycache__"]


setup(packages=code_packages() + backend_packages() + MAPPED + template_packages())
