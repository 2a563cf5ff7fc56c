"""The commands as library functions: what ``schedc`` runs behind each command.

Takes in paths, texts and IR instances; gives out written files, reports and solver results by
calling the stages below (language, importers, verification, renderings, grammars, backends).
Imported by the variants, benchmarks, dynamic shops, the CLI and the public API; imports none of them.
"""
