"""``schedc snapshot update|check``: what a snapshot holds, what ``check`` says when a spec changes (meaning
first, then sentences, then grammars), exit statuses, bad input, and the same bytes in every process."""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedc.cli import app
from schedc.core.diagnostics import SchedcError
from schedc.pipeline import grammar_file, render_file
from schedc.snapshot import dumps, loads, observe, options
from schedc.snapshot.diff import Hunk, claim_changes, compare, sentences, solve_changes, without_moves
from tests.conftest import ROOT
from tests.test_claims import USER_FAMILY, USER_INSTANCE

runner = CliRunner()
EXAMPLES = ROOT / "examples"
BOUND = "soft 1 count_bounds max_assignments agents=employee[contract=full] max=4"
SENTENCE_4 = "Its rules: Every nurse with contract full should have at most 4 shifts in total; each shift above the " \
             "maximum is penalised by 1."


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def copy(tmp_path: Path, *names: str) -> Path:
    """A folder holding copies of bundled examples."""
    folder = tmp_path / "specs"
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(EXAMPLES / name, folder / name)
    return folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


# --------------------------------------------------------------------------- what check says


def test_a_changed_bound_is_reported_as_its_claim_then_its_sentences(tmp_path: Path) -> None:
    folder = copy(tmp_path, "inrc2010_small.sched", "ft06.sched")
    assert run("snapshot", "update", folder).exit_code == 0
    snap = folder / "__snapshots__" / "inrc2010_small.snap.json"
    before = snap.read_text(encoding="utf-8")
    edit(folder / "inrc2010_small.sched", BOUND, BOUND.replace("max=4", "max=3"))

    result = run("snapshot", "check", folder)
    assert result.exit_code == 1, result.output
    out = result.stdout
    claim = "    `max_assignments` of contract full: max 4 → 3"
    assert claim in out.splitlines()
    assert out.index("  claims:") < out.index(claim) < out.index("  renderings, sentence by sentence:")
    # v1 and v2 (seed 42) say it in the same words: one group, the old sentence out, the new one in
    group = out.splitlines().index("    v1/42 v2/42:")
    assert out.splitlines()[group + 1:group + 3] == [f"      - {SENTENCE_4}",
                                                    f"      + {SENTENCE_4.replace('most 4', 'most 3')}"]
    assert "ft06" not in out.split("\n\n")[0] and "1 of 2 snapshots changed" in out
    assert "schedc snapshot update " + str(folder) in out

    # the snapshot file changes in few lines: the claim's bound and the one line of each rendering saying it
    assert run("snapshot", "update", folder).exit_code == 0
    changed = [line for line in difflib.unified_diff(before.splitlines(), snap.read_text(encoding="utf-8")
                                                     .splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed[:2] == ['-      "max": 4,', '+      "max": 3,']
    assert 2 < len(changed) <= 2 + 2 * 5 and all("most 3" in c or "than 3" in c for c in changed[3::2])
    assert run("snapshot", "check", folder).exit_code == 0


def test_the_report_shown_in_the_docs_is_what_check_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README.md and docs/snapshots.md show a check run on the bundled examples: it is this one."""
    shutil.copytree(EXAMPLES, tmp_path / "examples", ignore=shutil.ignore_patterns("sources", "dfjsp"))
    monkeypatch.chdir(tmp_path)
    assert run("snapshot", "update", "examples", "--dir", "snapshots", "--seeds", "42,43,44").exit_code == 0
    before = (tmp_path / "snapshots" / "inrc2010_small.snap.json").read_text(encoding="utf-8").splitlines()
    edit(tmp_path / "examples" / "inrc2010_small.sched", BOUND, BOUND.replace("max=4", "max=3"))
    result = run("snapshot", "check", "examples", "--dir", "snapshots")
    assert result.exit_code == 1
    printed = result.stdout.splitlines()
    for doc in (ROOT / "README.md", ROOT / "docs" / "snapshots.md"):
        text = doc.read_text(encoding="utf-8")
        shown = text[text.index("examples/inrc2010_small.sched: changed"):].split("```")[0].splitlines()
        assert shown[-1] == printed[-1] and len(shown) > 10
        assert [line for line in shown if line.strip() not in ("…", "")] == [
            line for line in printed if line in shown and line.strip()], doc
    assert run("snapshot", "update", "examples", "--dir", "snapshots").exit_code == 0
    after = (tmp_path / "snapshots" / "inrc2010_small.snap.json").read_text(encoding="utf-8").splitlines()
    changed = [line for line in difflib.unified_diff(before, after, lineterm="", n=0) if line[:1] == "+"][1:]
    assert len(changed) == 14  # README: "`update` then changes 14 lines"


def test_a_duration_is_a_data_change(tmp_path: Path) -> None:
    folder = copy(tmp_path, "ft06.sched")
    assert run("snapshot", "update", folder, "--variants", "v1").exit_code == 0
    edit(folder / "ft06.sched", "J1 M3:1 M1:3", "J1 M3:1 M1:4")
    out = run("snapshot", "check", folder).stdout
    assert "  data:\n    duration J1.2: 3 → 4\n" in out
    assert "for 3 time units, then to Machine 2" in out.split("      - ")[1]
    assert "for 4 time units, then to Machine 2" in out.split("      + ")[1]


def test_a_constraint_removed_and_added(tmp_path: Path) -> None:
    folder = copy(tmp_path, "inrc2010_small.sched")
    line = "soft 1 pattern_prohibition late_then_early agents=employee[contract=full] pattern=[L E]\n"
    assert run("snapshot", "update", folder, "--variants", "v1").exit_code == 0
    edit(folder / "inrc2010_small.sched", line, "")
    removed = run("snapshot", "check", folder)
    assert removed.exit_code == 1
    assert ("    constraint `late_then_early` removed: soft (weight 1) pattern_prohibition of contract full"
            in removed.stdout.splitlines())
    assert "- " in removed.stdout and "shift L" in removed.stdout.split("renderings")[1]

    assert run("snapshot", "update", folder).exit_code == 0
    edit(folder / "inrc2010_small.sched", "minimize penalty", line + "minimize penalty")
    added = run("snapshot", "check", folder).stdout
    assert "    constraint `late_then_early` added: soft (weight 1) pattern_prohibition of contract full" in added
    assert "\n      + " in added and "\n      - " not in added.split("renderings")[1]


def test_a_new_job_changes_the_grammars(tmp_path: Path) -> None:
    folder = copy(tmp_path, "ft06.sched")
    assert run("snapshot", "update", folder, "--variants", "v1,v4", "--formats", "gbnf,json-schema").exit_code == 0
    spec = folder / "ft06.sched"
    edit(spec, "  J6 M2:3 M4:3 M6:9 M1:10 M5:4 M3:1\n", "  J6 M2:3 M4:3 M6:9 M1:10 M5:4 M3:1\n  J7 M1:2\n")
    result = run("snapshot", "check", folder)
    assert result.exit_code == 1
    out = result.stdout
    assert "    size jobs: 6 → 7" in out and "    duration J7.1 added: 2" in out
    grammars = out[out.index("  grammars, line by line:"):]
    assert "    gbnf v1/42:" in grammars and '"Job 7 step "' in grammars
    assert "    json-schema v1/42:" in grammars
    report = json.loads(run("snapshot", "check", folder, "--json").stdout)["specs"][0]
    schema = [c for c in report["grammars"] if c["format"] == "json-schema" and c["keys"] == ["v1/42"]]
    assert any(line.strip() == '"Job 7"' for hunk in schema[0]["hunks"] for line in hunk["added"])
    assert out.index("  data:") < out.index("  renderings, sentence by sentence:") < out.index("  grammars")


def test_claim_changes_name_modality_weight_and_table_rows() -> None:
    old = {"cover": {"kind": "coverage", "hard": True, "weight": 1,
                     "requirements": [[0, None, "E", 1, 1], [2, None, "E", 2, 2], [3, None, "L", 1, 1]]},
           "max_shifts": {"kind": "count_bounds", "hard": True, "weight": 1, "max": 12,
                          "agents": {"cls": "employee", "names": [], "where": [["contract", "full"]]}}}
    new = {"cover": {**old["cover"], "requirements": [[0, None, "E", 1, 1], [2, None, "E", 3, 3]]},
           "max_shifts": {**old["max_shifts"], "hard": False, "weight": 5, "max": 11, "min": 2}}
    assert claim_changes(old, new) == [
        '`cover`: requirements row [2, null, "E", 2, 2] → [2, null, "E", 3, 3]',
        '`cover`: requirements row [3, null, "L", 1, 1] removed',
        "`max_shifts` of contract full: hard → soft",
        "`max_shifts` of contract full: max 12 → 11",
        "`max_shifts` of contract full: min 2 added",
        "`max_shifts` of contract full: weight 1 → 5"]
    part = {**new["max_shifts"], "agents": {"cls": "employee", "names": [], "where": [["contract", "part"]]}}
    assert claim_changes(new, {**new, "max_shifts": part}) == [
        '`max_shifts`: agents.where row ["contract", "full"] → ["contract", "part"]']


def test_options_are_kept_in_the_snapshot(tmp_path: Path) -> None:
    folder = copy(tmp_path, "rcpsp_small.sched")
    assert run("snapshot", "update", folder, "--variants", "v1,v3a", "--seeds", "42,43").exit_code == 0
    stored = json.loads((folder / "__snapshots__" / "rcpsp_small.snap.json").read_text(encoding="utf-8"))
    assert sorted(stored["renderings"]) == ["v1/42", "v1/43", "v3a/42", "v3a/43"]
    assert stored["renderings"]["v1/43"] == {"same_as": "v1/42"}  # v1 does not vary with the seed
    assert run("snapshot", "check", folder).exit_code == 0  # the stored options, not the defaults
    narrower = run("snapshot", "check", folder, "--seeds", "42")
    assert narrower.exit_code == 1
    assert "    option seeds: 42, 43 → 42" in narrower.stdout and "    v1/43 v3a/43: removed" in narrower.stdout


def test_json_report(tmp_path: Path) -> None:
    folder = copy(tmp_path, "inrc2010_small.sched")
    run("snapshot", "update", folder, "--variants", "v1")
    edit(folder / "inrc2010_small.sched", BOUND, BOUND.replace("max=4", "max=3"))
    result = run("snapshot", "check", folder, "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["changed"] == 1 and report["unchanged"] == 0
    [spec] = report["specs"]
    assert spec["status"] == "changed" and spec["claims"] == ["`max_assignments` of contract full: max 4 → 3"]
    assert spec["semantic"] == spec["claims"]
    [change] = spec["renderings"]
    assert change["keys"] == ["v1/42"] and change["hunks"] == [{"removed": [SENTENCE_4],
                                                                "added": [SENTENCE_4.replace("most 4", "most 3")]}]


# --------------------------------------------------------------------------- what a snapshot holds


def test_the_snapshot_holds_what_render_and_grammar_print() -> None:
    spec = EXAMPLES / "inrc2010_small.sched"
    document = observe(spec, options(["v1", "v4"], [42, 7], ["gbnf", "text"]))
    for variant in ("v1", "v4"):
        for seed in (42, 7):
            rendering = render_file(spec, variant, seed)
            entry = document["renderings"][f"{variant}/{seed}"]
            entry = document["renderings"][entry["same_as"]] if "same_as" in entry else entry
            assert "\n".join(entry["system"]) + "\n\n" + "\n".join(entry["prompt"]) + "\n" == rendering.text()
            assert entry["theme"] == rendering.theme
            for fmt in ("gbnf", "text"):
                grammar = document["grammars"][fmt][f"{variant}/{seed}"]
                grammar = document["grammars"][fmt][grammar["same_as"]] if "same_as" in grammar else grammar
                assert "\n".join(grammar["lines"]) == grammar_file(spec, fmt, variant, seed)
    claims = {c["constraint"]: {k: v for k, v in c.items() if k not in ("constraint", "text")}
              for c in json.loads(json.dumps(render_file(spec).to_json()))["claims"]}
    assert document["claims"] == claims
    assert document["data"]["attr employee Ann contract"] == ["full"]
    assert not any(name.startswith(("rule ", "cover ")) for name in document["data"])  # those are claims


def test_the_file_reads_back_as_the_document_and_is_line_oriented() -> None:
    document = observe(EXAMPLES / "inrc2010_small.sched", options(["v1"], [42], ["gbnf"]))
    text = dumps(document)
    assert loads(text) == document
    lines = text.splitlines()
    assert '      "max": 4,' in lines  # one scalar per line
    assert '        [2, null, "E", 2, 2],' in lines  # one table row per line
    rules = [line for line in lines if SENTENCE_4 in line]  # the contract's line of the v1 prompt
    assert len(rules) == 1 and rules[0].startswith('        "Contract full (full time) counts weekends')
    assert list(json.loads(text)) == sorted(document) and text.endswith("}\n") and "\r" not in text


def test_a_user_family_is_snapshot_and_its_own_text_checked(tmp_path: Path) -> None:
    (tmp_path / "workshop.sched").write_text(USER_FAMILY, encoding="utf-8")
    (tmp_path / "w1.sched").write_text(USER_INSTANCE, encoding="utf-8")
    written = run("snapshot", "update", tmp_path, "--variants", "v1")
    assert written.exit_code == 0, written.output
    assert sorted(p.name for p in (tmp_path / "__snapshots__").iterdir()) == ["w1.snap.json"]  # not the family
    edit(tmp_path / "workshop.sched", "A small workshop makes jobs", "A small workshop builds jobs")
    out = run("snapshot", "check", tmp_path).stdout
    assert "      - A small workshop makes jobs, each a fixed sequence of steps on given machines." in out
    assert "      + A small workshop builds jobs, each a fixed sequence of steps on given machines." in out


def test_a_spec_gone_is_reported_and_update_deletes_its_snapshot(tmp_path: Path) -> None:
    folder = copy(tmp_path, "ft06.sched", "rcpsp_small.sched")
    run("snapshot", "update", folder, "--variants", "v1")
    (folder / "ft06.sched").unlink()
    result = run("snapshot", "check", folder)
    assert result.exit_code == 1
    assert f"{folder / '__snapshots__' / 'ft06.snap.json'}: snapshot without a spec\n" in result.stdout
    assert "removed " + str(folder / "__snapshots__" / "ft06.snap.json") in run("snapshot", "update", folder).stdout
    assert not (folder / "__snapshots__" / "ft06.snap.json").exists()
    assert run("snapshot", "check", folder).exit_code == 0
    # a file given alone is stored where its folder's snapshot is, and does not make the others orphans
    assert run("snapshot", "check", folder / "rcpsp_small.sched").exit_code == 0


def test_dir_holds_the_snapshots_of_nested_folders(tmp_path: Path) -> None:
    folder = copy(tmp_path, "ft06.sched")
    (folder / "more").mkdir()
    shutil.copy(EXAMPLES / "rcpsp_small.sched", folder / "more" / "rcpsp_small.sched")
    snaps = tmp_path / "snaps"
    assert run("snapshot", "update", folder, "--dir", snaps, "--variants", "v1").exit_code == 0
    assert sorted(p.relative_to(snaps).as_posix() for p in snaps.rglob("*.json")) == [
        "ft06.snap.json", "more/rcpsp_small.snap.json"]
    assert not (folder / "__snapshots__").exists()
    assert run("snapshot", "check", folder, "--dir", snaps).exit_code == 0


def test_sentences_and_moves() -> None:
    assert sentences(["A b. C d.", "", "e.g. f. G h", "  "]) == ["A b.", "C d.", "e.g. f.", "G h"]
    found, moved = without_moves([Hunk(removed=["X.", "Y."], added=[]), Hunk(removed=[], added=["X.", "Z."])])
    assert found == [Hunk(removed=["Y."], added=[]), Hunk(removed=[], added=["Z."])] and moved == 1


def test_an_unproven_reference_objective_is_a_note_not_a_change() -> None:
    proven = {"status": "optimal", "objective": 55, "proven": True}
    assert solve_changes(proven, {**proven, "objective": 54}) == (
        ["reference optimal, objective 55 → optimal, objective 54"], [])
    found = {"status": "feasible", "objective": 60, "proven": False}
    changes, notes = solve_changes(found, {**found, "objective": 58})
    assert changes == [] and notes == ["reference feasible, objective 60 → feasible, objective 58 "
                                       "(not compared: not proven within the time limit)"]
    document = observe(EXAMPLES / "ft06.sched", options(["v1"]))
    diff = compare({**document, "solve": found}, {**document, "solve": {**found, "objective": 58}}, "s", "f")
    assert diff.status == "unchanged" and diff.notes


def test_with_solve_stores_the_proven_optimum(tmp_path: Path) -> None:
    folder = copy(tmp_path, "ft06.sched")
    assert run("snapshot", "update", folder, "--variants", "v1", "--with-solve", "--time-limit", "20").exit_code == 0
    stored = json.loads((folder / "__snapshots__" / "ft06.snap.json").read_text(encoding="utf-8"))
    assert stored["solve"] == {"status": "optimal", "objective": 55, "proven": True}
    assert stored["options"]["with_solve"] is True and stored["options"]["time_limit"] == 20.0


# --------------------------------------------------------------------------- exit statuses and bad input


def test_exit_statuses_and_diagnostics_without_traceback(tmp_path: Path) -> None:
    folder = copy(tmp_path, "ft06.sched")
    assert run("snapshot", "check", folder).exit_code == 1  # no snapshot yet is a change
    assert "ft06.sched: no snapshot yet" in run("snapshot", "check", folder).stdout
    assert run("snapshot", "update", folder, "--variants", "v1").exit_code == 0
    assert run("snapshot", "check", folder).exit_code == 0
    snap = folder / "__snapshots__" / "ft06.snap.json"
    good = snap.read_text(encoding="utf-8")

    cases = {
        "missing": ((tmp_path / "nope.sched",), "nope.sched: error[E950]: no such file or folder"),
        "family": ((ROOT / "specs" / "jobshop.sched",), "jobshop.sched:1:1: error[E951]"),
        "empty folder": ((tmp_path / "empty",), "error[E950]: no .sched instance in this folder"),
        "bad variant": ((folder, "--variants", "v9"), "error[E954]: unknown variant 'v9'"),
        "bad seeds": ((folder, "--seeds", "4x"), "error[E954]: --seeds takes comma-separated integers"),
        "bad format": ((folder, "--formats", "xml"), "error[E954]: unknown grammar format 'xml'"),
    }
    (tmp_path / "empty").mkdir()
    for name, (args, message) in cases.items():
        for command in ("check", "update"):
            result = run("snapshot", command, *args)
            assert result.exit_code == 2 and message in result.output, (name, command, result.output)
            assert "Traceback" not in result.output and result.output.count("error[") == 1

    snap.write_text(good.replace('"claims": {', '"claims": {{', 1), encoding="utf-8")
    corrupt = run("snapshot", "check", folder)
    assert corrupt.exit_code == 2
    assert f"{snap}:2:14: error[E952]: the snapshot is not valid JSON" in corrupt.output
    assert '   2 |   "claims": {{' in corrupt.output and "Traceback" not in corrupt.output
    assert run("snapshot", "update", folder).exit_code == 2 and "{{" in snap.read_text(encoding="utf-8")
    for text, message in [(good.replace('"seeds": [42]', '"seeds": ["42"]'),
                           "error[E953]: not a schedc snapshot: Expected `int`, got `str` - at `$.options.seeds[0]`"),
                          (good.replace('"schedc_snapshot": 1', '"schedc_snapshot": 7'), "snapshot format 7"),
                          (good.replace('"variants": ["v1"]', '"variants": ["v9"]'),
                           f"{snap}: error[E954]: unknown variant 'v9'"),
                          ('{"a": 1, "a": 2}', "names the key 'a' twice"),
                          (good.replace('"v1/42": {', '"v1/43": {"same_as": "v2/42"}, "v1/42": {'),
                           "renderings.v1/43: same_as 'v2/42' names no entry with content")]:
        snap.write_text(text, encoding="utf-8")
        result = run("snapshot", "check", folder)
        assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output, text
    snap.write_bytes(good.replace("\n", "\r\n").encode("utf-8"))  # a checkout with Windows line ends
    assert run("snapshot", "check", folder).exit_code == 0
    snap.write_text(json.dumps(json.loads(good), indent=4), encoding="utf-8")  # the same document, hand-laid
    relaid = run("snapshot", "check", folder)
    assert relaid.exit_code == 1 and "the file holds the same snapshot in another layout" in relaid.stdout
    assert run("snapshot", "update", folder).exit_code == 0 and snap.read_text(encoding="utf-8") == good


def test_a_malformed_spec_stops_every_write(tmp_path: Path) -> None:
    folder = copy(tmp_path, "ft06.sched", "rcpsp_small.sched")
    (folder / "bad.sched").write_text("instance bad family jobshop\njobs tabl\n", encoding="utf-8")
    result = run("snapshot", "update", folder)
    assert result.exit_code == 2 and "bad.sched:2:6: error[E002]" in result.output
    assert not (folder / "__snapshots__").exists()  # nothing written, not even the good specs
    with pytest.raises(SchedcError, match="E950"):
        from schedc.snapshot import check

        check([])


def test_two_specs_for_one_snapshot_file_are_refused(tmp_path: Path) -> None:
    one, two = copy(tmp_path, "ft06.sched"), tmp_path / "other"
    two.mkdir()
    shutil.copy(EXAMPLES / "ft06.sched", two / "ft06.sched")
    result = run("snapshot", "update", one, two, "--dir", tmp_path / "snaps")
    assert result.exit_code == 2 and "error[E955]" in result.output and "would share the snapshot" in result.output


# --------------------------------------------------------------------------- determinism


def test_the_same_bytes_in_processes_with_other_hash_seeds(tmp_path: Path) -> None:
    outputs = []
    for hash_seed in ("0", "4242"):
        out = tmp_path / f"snaps{hash_seed}"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-m", "schedc", "snapshot", "update", str(EXAMPLES), "--dir", str(out),
                               "--seeds", "42,43", "--formats", "gbnf,json-schema"], env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        outputs.append({p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*.snap.json"))})
    assert outputs[0] == outputs[1]
    # every instance of examples/ and its folders (a user family's instance beside its family spec)
    instances = [p for p in EXAMPLES.rglob("*.sched") if "sources" not in p.parts
                 and re.search(r"^instance ", p.read_text(encoding="utf-8"), re.MULTILINE)]
    assert len(outputs[0]) == len(instances)
    here = dumps(observe(EXAMPLES / "ft06.sched", options(seeds=[42, 43], formats=["gbnf", "json-schema"])))
    assert outputs[0]["ft06.snap.json"] == here.encode("utf-8")
