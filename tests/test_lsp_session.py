"""A whole editor session with ``schedc lsp`` over stdio, driven by ``pytest-lsp``: a document with two
errors gets its diagnostics as it is opened, they go away when the text is fixed, and hover,
completion, go-to-definition and formatting answer as the analysis does (``tests/test_lsp.py``).

Needs the optional extras (``pip install 'schedc[lsp]' pytest-lsp``); skipped, saying so, without them.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("pygls", reason="the optional extra pygls is not installed (pip install 'schedc[lsp]')")
pytest_lsp = pytest.importorskip("pytest_lsp", reason="pytest-lsp is not installed (pip install pytest-lsp)")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from tests.conftest import ROOT  # noqa: E402

EXAMPLES = ROOT / "examples"
FT06 = (EXAMPLES / "ft06.sched").read_text(encoding="utf-8")
BROKEN = FT06.replace("J1.1 -> J1.2", "J1.1 -> J9.2").replace("  M1 unary", "      M1    unary")
URI = (EXAMPLES / "ft06.sched").as_uri()  # beside the examples: its family is found there


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "schedc", "lsp"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()


def line_of(text: str, needle: str) -> int:
    return next(k for k, line in enumerate(text.splitlines()) if needle in line)


async def open_document(client: LanguageClient, text: str, version: int = 1) -> list[types.Diagnostic]:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=URI, language_id="sched", version=version, text=text)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return client.diagnostics[URI]


@pytest.mark.asyncio
async def test_diagnostics_as_you_type(client: LanguageClient) -> None:
    [problem] = await open_document(client, BROKEN)
    line = line_of(BROKEN, "J1.1 -> J9.2")
    assert problem.code == "E202" and problem.source == "schedc" and "J9.2" in problem.message
    assert (problem.range.start.line, problem.range.start.character, problem.range.end.character) == (line, 10, 14)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=FT06)]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[URI]) == []  # fixed: cleared


@pytest.mark.asyncio
async def test_hover_completion_definition_and_formatting(client: LanguageClient) -> None:
    await open_document(client, FT06)
    document = types.TextDocumentIdentifier(uri=URI)
    kind_line = line_of(FT06, "hard precedence_lag routes")
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=document, position=types.Position(line=kind_line, character=8)))
    assert hover is not None and "**precedence_lag**" in hover.contents.value
    assert "Formal meaning" in hover.contents.value

    completion = await client.text_document_completion_async(types.CompletionParams(
        text_document=document, position=types.Position(line=kind_line, character=5)))
    labels = {item.label for item in completion.items}
    assert {"precedence_lag", "unary_no_overlap", "coverage"} <= labels

    use = line_of(FT06, "J3.1 -> J3.2")
    location = await client.text_document_definition_async(types.DefinitionParams(
        text_document=document, position=types.Position(line=use, character=3)))
    assert location.uri == URI and FT06.splitlines()[location.range.start.line].strip().startswith("J3 M3:5")

    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=3),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=FT06.replace("  M1 unary",
                                                                                        "      M1    unary"))]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    edits = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=document, options=types.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert len(edits) == 1 and edits[0].new_text == FT06 and edits[0].range.start.line == 0
