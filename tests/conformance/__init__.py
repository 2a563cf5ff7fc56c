"""Conformance of schedc with itself (issue 27): random small valid specs, and the properties every
spec must have. See README.md in this folder."""
