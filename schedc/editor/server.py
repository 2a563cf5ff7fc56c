"""``schedc lsp``: the Language Server Protocol over stdio, with ``pygls`` (optional extra ``lsp``).

Features, each a thin call of :mod:`schedc.editor.analysis`:

* diagnostics as you type (``textDocument/publishDiagnostics`` on open, change and save), with the
  codes of ``schedc parse`` and the position of each span;
* hover, completion (triggered by a space and ``=``), go to definition, and document formatting
  (the whole document replaced by its ``schedc fmt`` form; nothing when it does not parse).

Documents are synchronised in full (a ``.sched`` file is small, and one parse per change is what
the diagnostics need anyway). A family named by an instance is looked up beside the document first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from schedc import __version__
from schedc.core.diagnostics import SchedcError
from schedc.editor import analysis

try:
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path
except ImportError:  # the optional extra is missing: say how to get it
    raise SchedcError.at("E960", "`schedc lsp` needs the pygls package",
                         hint="pip install 'schedc[lsp]'") from None

SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}
SORT = {"keyword": types.CompletionItemKind.Keyword, "kind": types.CompletionItemKind.Class,
        "parameter": types.CompletionItemKind.Property, "name": types.CompletionItemKind.Variable}


class SchedServer(LanguageServer):
    """The server, with the outline of each document's last text that parsed."""

    def __init__(self) -> None:
        super().__init__("schedc", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.outlines: dict[str, analysis.Outline] = {}


server = SchedServer()


def _where(uri: str) -> tuple[str, list[Path]]:
    """The file name diagnostics carry, and where a family is looked up (beside the document)."""
    path = to_fs_path(uri) or uri
    return path, [Path(path).parent]


def _range(r: analysis.Range) -> types.Range:
    return types.Range(start=types.Position(line=r.start.line, character=r.start.character),
                       end=types.Position(line=r.end.line, character=r.end.character))


def _position(p: types.Position) -> analysis.Position:
    return analysis.Position(p.line, p.character)


def publish(ls: SchedServer, uri: str) -> None:
    """Check the document and publish its diagnostics (an empty list clears them)."""
    document = ls.workspace.get_text_document(uri)
    file, search = _where(uri)
    problems, outline = analysis.diagnostics(document.source, file, search)
    if outline is not None:
        ls.outlines[uri] = outline
    found = [types.Diagnostic(range=_range(p.range), message=p.message, code=p.code, source="schedc",
                              severity=SEVERITY[p.severity]) for p in problems]
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=found,
                                                                        version=document.version))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: SchedServer, params: types.DidOpenTextDocumentParams) -> None:
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: SchedServer, params: types.DidChangeTextDocumentParams) -> None:
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: SchedServer, params: types.DidSaveTextDocumentParams) -> None:
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: SchedServer, params: types.HoverParams) -> types.Hover | None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    found = analysis.hover(document.source, _position(params.position), ls.outlines.get(params.text_document.uri))
    if found is None:
        return None
    text, where = found
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=_range(where))


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[" ", "="]))
def completion(ls: SchedServer, params: types.CompletionParams) -> types.CompletionList:
    document = ls.workspace.get_text_document(params.text_document.uri)
    items = analysis.completions(document.source, _position(params.position),
                                 ls.outlines.get(params.text_document.uri))
    return types.CompletionList(is_incomplete=False, items=[
        types.CompletionItem(label=c.label, kind=SORT[c.sort], detail=c.detail) for c in items])


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: SchedServer, params: types.DefinitionParams) -> types.Location | None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    found = analysis.definition(document.source, _position(params.position),
                                ls.outlines.get(params.text_document.uri))
    return None if found is None else types.Location(uri=params.text_document.uri, range=_range(found))


@server.feature(types.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: SchedServer, params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    file, search = _where(params.text_document.uri)
    canonical = analysis.formatted(document.source, file, search)
    if canonical is None or canonical == document.source:
        return None if canonical is None else []
    lines = document.source.splitlines()
    end = types.Position(line=len(lines), character=0)
    return [types.TextEdit(range=types.Range(start=types.Position(line=0, character=0), end=end),
                           new_text=canonical)]


def serve(**options: Any) -> None:
    """Serve over stdio until the client says exit."""
    server.start_io(**options)
