"""schedc: a declarative DSL compiler for scheduling problems."""

__version__ = "0.1.0"
