"""``load`` and ``detect_format``: every real file is told as its format and loads to the runs
its own loader gives, named in ``meta["format"]``; so do folders, saved runs and OTLP files.
What no format claims is a TranscriptError that names the file and lists the formats tried;
what is broken *for its format* is that format's own TranscriptError; mutated real files of
every format give runs or a TranscriptError, never another exception."""

from __future__ import annotations

import json
import tempfile
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from footprint_lab import load_run, replay, sliding_window
from footprint_lab.agent.origin import Import
from footprint_lab.agent.run import Run
from footprint_lab.export import to_otel
from footprint_lab.importers import (
    FORMATS,
    TranscriptError,
    detect_format,
    is_whole_folder,
    load,
    load_aider,
    load_claude_code,
    load_codex,
    load_gemini_cli,
    load_inspect,
    load_mini_swe_agent,
    load_openai_responses,
    load_openhands,
    load_openhands_v1,
    load_otel,
    load_pi,
    load_swe_agent,
    load_tau_bench,
)
from tests.budget import examples
from tests.importers.helpers import mutate

ROOT = Path(__file__).resolve().parents[2] / "data"
TRANSCRIPTS = ROOT / "transcripts"
TAU = ROOT / "tau-bench"
LOADERS: dict[str, Any] = {
    "swe-agent": load_swe_agent,
    "mini-swe-agent": load_mini_swe_agent,
    "openhands": load_openhands,
    "openhands-v1": load_openhands_v1,
    "inspect": load_inspect,
    "claude-code": load_claude_code,
    "codex": load_codex,
    "gemini-cli": load_gemini_cli,
    "openai-responses": load_openai_responses,
    "aider": load_aider,
    "pi": load_pi,
    "tau-bench": load_tau_bench,
    "otel": load_otel,
    "footprint-lab-run": lambda path, strict=False: [load_run(path)],
}
DOCS = {"LICENSE", "README.md", "SOURCE.md"}


def real_files() -> list[tuple[Path, str]]:
    """Every real transcript file (and folder read whole), with the format its folder holds."""
    found = [
        (path, path.parent.name)
        for path in sorted(TRANSCRIPTS.glob("*/*"))
        if (path.is_file() or is_whole_folder(path))
        and path.name not in DOCS
        and not path.name.startswith("LICENSE")
    ]
    return [*found, (TAU / "gpt-4o-airline-dev.json", "tau-bench")]


REAL = real_files()
IDS = [f"{fmt}/{path.name}" for path, fmt in REAL]
REAL_FILES = [(path, fmt) for path, fmt in REAL if path.is_file()]
"""The real sources that are files (an OpenHands V1 conversation is a folder)."""


@cache
def written() -> dict[str, bytes]:
    """A saved run and an OTLP file footprint_lab wrote, as bytes (made once)."""
    run = replay(load_tau_bench(TAU)[3], sliding_window(keep_recent_turns=2))
    assert run.records  # so the files carry window records too
    with tempfile.TemporaryDirectory() as folder:
        saved = run.save(Path(folder) / "run.json").read_bytes()
        otel = to_otel(run, Path(folder) / "run.otel.json").read_bytes()
    return {"footprint-lab-run": saved, "otel": otel}


def counts(run: Run) -> tuple[int, int, int, int, int, int]:
    """(messages, tool calls, tool results, calls, records, problems) of a run."""
    messages = run.ledger.messages
    return (
        len(messages),
        sum(len(m.tool_calls) for m in messages),
        sum(m.role == "tool" for m in messages),
        len(run.calls),
        len(run.records),
        len(run.import_problems),
    )


def same_runs(loaded: list[Run], direct: list[Run], fmt: str) -> None:
    """``loaded`` (by :func:`load`) are ``direct`` (by the format's loader), format named."""
    assert [counts(r) for r in loaded] == [counts(r) for r in direct]
    for ours, theirs in zip(loaded, direct, strict=True):
        if isinstance(theirs.origin, Import) and theirs.origin.path is None:
            # An import read now: load names its format and the file it came from.
            assert isinstance(ours.origin, Import) and ours.origin.format == fmt
            assert ours.origin.path is not None
            assert ours.origin.recorded == theirs.origin.recorded
        else:  # a run this lab made (a run file, a trace it wrote) keeps its own origin
            assert ours.origin == theirs.origin
    assert [r.meta for r in loaded] == [r.meta for r in direct]
    assert [[m.content for m in r.ledger.messages] for r in loaded] == [
        [m.content for m in r.ledger.messages] for r in direct
    ]


# -- every real file -------------------------------------------------------------------------


def test_there_are_real_files_of_every_transcript_format() -> None:
    """Every format but the OpenAI Responses one has real files here (no public file of that
    format exists: its tests read inputs built from the vendor's documented shapes)."""
    assert {fmt for _, fmt in REAL} == set(FORMATS) - {
        "openai-responses",
        "otel",
        "footprint-lab-run",
    }
    assert len(REAL) == 35


@pytest.mark.parametrize(("path", "fmt"), REAL, ids=IDS)
def test_every_real_file_is_detected_as_its_format(path: Path, fmt: str) -> None:
    assert detect_format(path) == fmt


@pytest.mark.parametrize(("path", "fmt"), REAL, ids=IDS)
def test_every_real_file_loads_the_runs_its_own_loader_gives(path: Path, fmt: str) -> None:
    direct = LOADERS[fmt](path)
    assert direct
    same_runs(load(path), direct, fmt)


def _content_told(path: Path) -> bool:
    """Whether the file's content alone (renamed) says its format: not a zip, and not a
    SWE-agent file with ``history`` but no ``trajectory`` (that is OpenHands' shape too, so
    the ``.traj`` suffix decides)."""
    if path.suffix == ".eval" or path.is_dir():
        return False
    if path.name.endswith(".traj.json") and path.read_bytes().lstrip().startswith(b"["):
        return False  # a bare list of messages is mini-swe-agent's by its name only
    return path.suffix != ".traj" or "trajectory" in json.loads(path.read_text("utf-8"))


@pytest.mark.parametrize(
    ("path", "fmt"),
    [(p, f) for p, f in REAL if _content_told(p)],
    ids=[i for i, (p, _) in zip(IDS, REAL, strict=True) if _content_told(p)],
)
def test_the_content_alone_tells_each_format(tmp_path: Path, path: Path, fmt: str) -> None:
    suffix = path.suffix if path.suffix in (".jsonl", ".md") else ".json"
    renamed = tmp_path / f"data{suffix}"
    renamed.write_bytes(path.read_bytes())
    assert detect_format(renamed) == fmt


@pytest.mark.parametrize("fmt", ["footprint-lab-run", "otel"])
def test_a_saved_run_and_an_otlp_file_are_detected_and_load(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / ("run.json" if fmt == "footprint-lab-run" else "run.otel.json")
    path.write_bytes(written()[fmt])
    assert detect_format(path) == fmt
    same_runs(load(path), LOADERS[fmt](path), fmt)
    assert counts(load(path)[0])[4] > 0  # the window records came back


def test_a_folder_loads_file_by_file_as_its_loader_does() -> None:
    for fmt in ("swe-agent", "openhands", "inspect", "claude-code", "codex", "pi", "gemini-cli"):
        same_runs(load(TRANSCRIPTS / fmt), LOADERS[fmt](TRANSCRIPTS / fmt), fmt)
    same_runs(load(TAU), load_tau_bench(TAU), "tau-bench")
    assert detect_format(TAU) == "tau-bench"
    everything = load(TRANSCRIPTS)  # the README and SOURCE beside the folders are skipped
    folders = sorted(p for p in TRANSCRIPTS.iterdir() if p.is_dir())
    by_folder = [run for folder in folders for run in load(folder)]
    assert len(folders) == 10 and len(everything) == len(by_folder) > 0
    assert [counts(r) for r in everything] == [counts(r) for r in by_folder]
    assert [r.origin.format for r in everything] == [r.origin.format for r in by_folder]


def test_a_folder_of_nothing_readable_and_a_missing_path_are_transcript_errors(
    tmp_path: Path,
) -> None:
    (tmp_path / "README.md").write_text("# notes")
    with pytest.raises(TranscriptError, match="no transcript files") as caught:
        load(tmp_path)
    assert caught.value.path == str(tmp_path)
    with pytest.raises(TranscriptError, match="a folder") as caught:
        detect_format(tmp_path)
    missing = tmp_path / "missing.json"
    with pytest.raises(TranscriptError, match="cannot read") as caught:
        load(missing)
    assert caught.value.path == str(missing)


def test_strict_is_passed_to_the_formats_loader(tmp_path: Path) -> None:
    orphan = {
        "type": "user",
        "sessionId": "s",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "nobody", "content": "x"}],
        },
    }
    path = tmp_path / "session.jsonl"
    path.write_text(json.dumps(orphan) + "\n")
    (run,) = load(path)
    assert run.origin.format == "claude-code" and len(run.import_problems) == 1
    with pytest.raises(TranscriptError, match="orphan result") as caught:
        load(path, strict=True)
    assert (caught.value.source, caught.value.index, caught.value.unit) == (
        "claude-code",
        1,
        "line",
    )


# -- what no format claims -------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"


def _zip_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "a.zip"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("header.json", "{}")
        return path.read_bytes()


UNKNOWN: list[tuple[str, bytes, str]] = [
    ("image.png", PNG, "not UTF-8"),
    ("empty.json", b"", "empty file"),
    ("blank.jsonl", b"\n  \n", "empty file"),
    ("object.json", b'{"name": "x", "items": [1, 2]}', "no known shape"),
    ("numbers.json", b"[1, 2, 3]", "no known shape"),
    ("nothing.json", b"[]", "no known shape"),
    ("text.json", b"hello, world", "not JSON"),
    ("random.jsonl", b'{"a": 1, "b": [true]}\n{"c": null}\n{"type": "x"}\n', "no known shape"),
    ("archive.zip", _zip_bytes(), "a zip archive"),
    ("log.json", _zip_bytes(), "a zip archive"),
]


@pytest.mark.parametrize(("name", "payload", "says"), UNKNOWN, ids=[u[0] for u in UNKNOWN])
def test_a_file_no_format_claims_names_the_file_and_what_was_tried(
    tmp_path: Path, name: str, payload: bytes, says: str
) -> None:
    path = tmp_path / name
    path.write_bytes(payload)
    for call in (detect_format, load):
        with pytest.raises(TranscriptError, match=says) as caught:
            call(path)
        error = caught.value
        assert (error.source, error.path, error.index) == ("load", str(path), None)
        assert str(path) in str(error) and "tried" in str(error)
        assert all(name in str(error) for name in FORMATS)


def test_a_folder_with_one_unknown_file_fails_on_that_file(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes(
        (TRANSCRIPTS / "claude-code" / "edge_cases.jsonl").read_bytes()
    )
    (tmp_path / "b.png").write_bytes(PNG)
    with pytest.raises(TranscriptError, match="tried") as caught:
        load(tmp_path)
    assert caught.value.path == str(tmp_path / "b.png")


# -- broken for its format: the format's own error ---------------------------------------------


def _cut(payload: bytes) -> bytes:
    """``payload`` cut in half, never just after a line break (a JSON-lines file cut there
    would be whole)."""
    cut = len(payload) // 2
    while payload[cut - 1 : cut] in (b"\n", b"\r", b" "):
        cut -= 1
    return payload[:cut]


TRUNCATED = [(p.name, p.read_bytes(), f) for p, f in REAL_FILES] + [
    ("run.json", b"", "footprint-lab-run"),
    ("run.otel.json", b"", "otel"),
]


@pytest.mark.parametrize(("name", "payload", "fmt"), TRUNCATED, ids=[t[0] for t in TRUNCATED])
def test_a_truncated_file_is_its_formats_own_transcript_error(
    tmp_path: Path, name: str, payload: bytes, fmt: str
) -> None:
    path = tmp_path / name
    path.write_bytes(_cut(payload or written()[fmt]))
    assert detect_format(path) == fmt
    with pytest.raises(TranscriptError) as caught:
        load(path)
    error = caught.value
    assert (error.source, error.path) == (fmt, str(path)), str(error)
    assert "tried" not in str(error)
    if fmt != "footprint-lab-run":  # load_run's own error is a RunFileError
        with pytest.raises(TranscriptError) as direct:
            LOADERS[fmt](path)
        assert (direct.value.index, direct.value.field, direct.value.problem) == (
            error.index,
            error.field,
            error.problem,
        )


def test_a_broken_saved_run_names_the_place_in_the_document(tmp_path: Path) -> None:
    document = json.loads(written()["footprint-lab-run"])
    document.pop("checksum")
    document["ledger"]["messages"][0]["role"] = "robot"
    path = tmp_path / "run.json"
    path.write_text(json.dumps(document))
    with pytest.raises(TranscriptError) as caught:
        load(path)
    error = caught.value
    assert (error.source, error.path) == ("footprint-lab-run", str(path))
    assert error.field.startswith("ledger.messages[0]"), str(error)


# -- fuzzing ---------------------------------------------------------------------------------

FUZZ = settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SOURCES = [(p.name, f) for p, f in REAL_FILES] + [
    ("run.json", "footprint-lab-run"),
    ("run.otel.json", "otel"),
]
PATHS = {p.name: p for p, _ in REAL_FILES}
WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["type", "role", "id", "content"]), st.text(max_size=3)),
    st.integers(60, 300).map(lambda n: json.loads("[" * n + "]" * n)),
)


def _payload(name: str, fmt: str) -> bytes:
    return written()[fmt] if name not in PATHS else PATHS[name].read_bytes()


def _mutate_json(data: st.DataObject, value: Any) -> Any:
    for _ in range(data.draw(st.integers(1, 3))):
        value = mutate(data.draw, value, WRONG)
    return value


def _mutated(data: st.DataObject, payload: bytes) -> bytes:
    how = data.draw(st.sampled_from(["json", "line", "cut", "bytes"]), label="how")
    text = payload.decode("utf-8", "replace") if how in ("json", "line") else ""
    if how == "json":
        try:
            value = json.loads(text)
        except ValueError:
            how = "line"  # JSON lines: mutate one line instead
        else:
            event("mutated the document")
            mutated = _mutate_json(data, value)
            return json.dumps(mutated, allow_nan=True).encode("utf-8", "surrogatepass")
    if how == "line":
        lines = text.split("\n")
        k = data.draw(st.integers(0, len(lines) - 1))
        try:
            value = json.loads(lines[k])
        except ValueError:
            value = data.draw(WRONG)
        lines[k] = json.dumps(_mutate_json(data, value), allow_nan=True)
        event("mutated a line")
        return "\n".join(lines).encode("utf-8", "surrogatepass")
    if how == "cut":
        event("cut")
        return payload[: data.draw(st.integers(0, len(payload)))]
    event("changed bytes")
    start = data.draw(st.integers(0, len(payload)))
    end = data.draw(st.integers(start, min(len(payload), start + 64)))
    return payload[:start] + data.draw(st.binary(max_size=16)) + payload[end:]


@FUZZ
@given(st.data(), st.sampled_from(SOURCES), st.sampled_from([None, ".json", ".jsonl"]))
def test_a_mutated_real_file_of_any_format_loads_or_is_a_transcript_error(
    data: st.DataObject, source: tuple[str, str], suffix: str | None
) -> None:
    name, fmt = source
    payload = _mutated(data, _payload(name, fmt))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / (name if suffix is None else f"file{suffix}")
        path.write_bytes(payload)
        try:
            runs = load(path)
        except TranscriptError as exc:
            event(f"rejected by {exc.source}")
            assert exc.path == str(path) and exc.field and exc.problem
            assert str(path) in str(exc)
            return
        event(f"loaded as {detect_format(path)}")
        # An import names the format it was read as; a run this lab made keeps its origin.
        found = detect_format(path)
        assert all(
            r.origin.format == found
            for r in runs
            if isinstance(r.origin, Import) and r.origin.path == str(path)
        )
