"""Any text is storable, everywhere it enters (#24 item 9).

A lone surrogate (what ``os.listdir`` gives for a file name that is not UTF-8) may come in
through any text a person or a model hands the library: the request, the system prompt, the
model id, the provider's name, the strategy's name, a tool's name, description, arguments,
result or error, the model's reply, its finish reason, its error, a person's answer, the
report's labels. Each is escaped where it enters (as visible ``\\udcff`` text,
:func:`footprint_lab.messages.storable_text`), so the run is saved, loaded back equal,
exported to OTel and written as the HTML report and the Inspector's page.

Property (hypothesis, 1,000 examples): surrogate text in any set of entries, a small scripted
run; the checkpoint, every request the provider was sent, the save/load round trip and
``to_otel`` all succeed, and the text is kept escaped. The report and the Inspector's page
(plotly, about half a second a page) are written by a second property, over every entry at
once. A run file holding lone surrogates (written by hand or by another tool) loads storable.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import (
    Agent,
    ProviderRequest,
    ProviderResponse,
    Reply,
    ScriptedProvider,
    StrategyInput,
    StrategyResult,
    ask_human,
    load_run,
    tool,
)
from footprint_lab.agent._runfile_io import with_checksum
from footprint_lab.agent.run import Run
from footprint_lab.export import to_otel
from footprint_lab.importers import load_otel
from footprint_lab.lab import Inspector, capture, write_report
from footprint_lab.messages import storable_text
from tests.budget import examples

ENTRIES = (
    "request",
    "system",
    "model",
    "provider",
    "strategy",
    "tool_name",
    "tool_description",
    "argument_key",
    "argument_value",
    "tool_result",
    "tool_error",
    "reply",
    "finish_reason",
    "provider_error",
    "answer",
    "label",
)

_ANY_CHAR = st.characters(codec=None, exclude_categories=())
LONE_SURROGATE = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
SURROGATE_TEXT = st.tuples(
    st.text(_ANY_CHAR, max_size=6), LONE_SURROGATE, st.text(_ANY_CHAR, max_size=6)
).map("".join)
"""Text holding at least one lone surrogate (and maybe more, anywhere)."""

TEXTS = st.dictionaries(st.sampled_from(ENTRIES), SURROGATE_TEXT, min_size=1)


@dataclass
class Named:
    """A custom strategy whose name is given: drops all but the newest turn."""

    name: str

    def plan(self, input: StrategyInput) -> StrategyResult | None:
        return input.drop(self.name, input.plan_removal(1))


class Finishing(ScriptedProvider):
    """The scripted provider, its replies ending with a given finish reason."""

    finish: str | None = None

    async def complete(self, request: ProviderRequest) -> ProviderResponse:
        response = await super().complete(request)
        return ProviderResponse(
            message=response.message,
            usage=response.usage,
            finish_reason=self.finish or response.finish_reason,
        )


def _run(texts: dict[str, str]) -> tuple[Run, Finishing]:
    name = texts.get("tool_name", "probe")
    value = texts.get("argument_value", "v")

    def probe(path: str = "") -> str:
        if "tool_error" in texts:
            raise ValueError(texts["tool_error"])
        return texts.get("tool_result", "r") + " " + "pad " * 40

    made = tool(name=name, description=texts.get("tool_description", "Probe."))(probe)
    calls: list[tuple[str, dict[str, Any]]] = [(name, {"path": value})]
    if "argument_key" in texts:  # a call the tool refuses (unknown argument), kept as sent
        calls.append((name, {texts["argument_key"]: value}))
    call = Reply.tool_calls(calls)
    last = (
        Reply.fail(texts["provider_error"])
        if "provider_error" in texts
        else Reply.text(texts.get("reply", "ok"))
    )
    script = [call, call, call]
    if "answer" in texts:
        script.append(Reply.tool_call("ask_human", question="which?"))
    provider = Finishing([*script, last], name=texts.get("provider", "scripted"))
    provider.finish = texts.get("finish_reason")
    builder = Agent.create(provider=provider, model=texts.get("model", "m"), max_iterations=8)
    builder = builder.tools(made, ask_human)
    if "system" in texts:
        builder = builder.system(texts["system"])
    if "strategy" in texts:
        builder = builder.window(Named(texts["strategy"]))
    run = builder.build().run(texts.get("request", "go"))
    if "answer" in texts:
        assert run.status == "paused", run.error
        run = run.resume(texts["answer"])
    assert run.status == ("error" if "provider_error" in texts else "done"), run.error
    return run, provider


def _strings(value: Any) -> list[str]:
    """Every string inside a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


UNUSED = {"reply": "provider_error", "tool_result": "tool_error"}
"""An entry that never shows when the other is given (the call fails, the tool raises)."""


def _kept_escaped(texts: dict[str, str], saved: dict[str, Any], sent: list[Any]) -> None:
    stored = "\x00".join(_strings(saved))
    wire = "\x00".join(_strings(sent))
    for entry, text in texts.items():
        escaped = storable_text(text)
        assert "\\u" in escaped  # visibly escaped, never dropped
        if entry == "label" or UNUSED.get(entry) in texts:
            continue  # the label only shows in the report
        if entry == "finish_reason":
            assert any(c.get("finish_reason") == escaped for c in saved["calls"])
            continue
        where = wire if entry == "tool_description" else stored
        assert escaped in where, f"the {entry} text is not kept, escaped"


@settings(max_examples=examples(1000), deadline=None)
@given(texts=TEXTS)
def test_surrogate_text_at_any_entry_is_saved_loaded_and_exported(texts: dict[str, str]) -> None:
    run, provider = _run(texts)
    body = run.checkpoint().model_dump_json()
    body.encode("utf-8")
    sent = [r.model_dump(mode="json") for r in provider.requests]
    json.dumps(sent, ensure_ascii=False).encode("utf-8")  # what a real provider would send
    _kept_escaped(texts, json.loads(body), sent)
    with tempfile.TemporaryDirectory() as folder:
        loaded = load_run(run.save(Path(folder) / "run.json"))
        assert loaded.checkpoint().model_dump_json() == body  # the same run, text and all
        path = to_otel(run, Path(folder) / "run.otel.json")
        json.loads(path.read_text(encoding="utf-8"))


@settings(max_examples=5, deadline=None)
@given(texts=st.fixed_dictionaries(dict.fromkeys(ENTRIES, SURROGATE_TEXT)))
def test_surrogate_text_at_every_entry_writes_the_report(texts: dict[str, str]) -> None:
    texts.pop("provider_error" if texts["request"] < texts["system"] else "reply")
    run, _ = _run(texts)
    label = texts["label"]
    with tempfile.TemporaryDirectory() as folder:
        loaded = load_run(run.save(Path(folder) / "run.json"))
        report = write_report({label: {label: run}}, Path(folder) / "r.html")
        lone = next(ch for ch in texts["request"] if 0xD800 <= ord(ch) <= 0xDFFF)
        assert f"\\u{ord(lone):04x}" in report.read_text(encoding="utf-8")
        page = Inspector(loaded).to_html(Path(folder) / "inspector.html")
        page.read_text(encoding="utf-8")
        frames = capture(loaded, label=label)
        json.dumps(frames.info, ensure_ascii=False, default=str).encode("utf-8")


def test_a_run_file_holding_lone_surrogates_loads_as_storable_text(tmp_path: Path) -> None:
    run, _ = _run({})
    data = json.loads(run.checkpoint().model_dump_json())
    data["model"] = "m-\udcff"
    data["provider"] = "p-\ud800"
    data["meta"] = {"note-\udcff": ["x-\udfff"]}
    text = json.dumps(data, separators=(",", ":"))  # ASCII: the surrogates as \\uXXXX escapes
    assert "\\udcff" in text
    path = tmp_path / "edited.json"
    path.write_text(with_checksum(text), encoding="utf-8")
    loaded = load_run(path)  # the checksum matches: the file is what its writer meant
    assert (loaded.model, loaded.provider) == ("m-\\udcff", "p-\\ud800")
    assert loaded.meta == {"note-\\udcff": ["x-\\udfff"]}
    loaded.save(tmp_path / "again.json")
    to_otel(loaded, tmp_path / "loaded.otel.json").read_text(encoding="utf-8")


def test_an_otel_file_holding_lone_surrogates_loads_as_storable_text(tmp_path: Path) -> None:
    run, _ = _run({"model": "MODELX"})
    text = to_otel(run, tmp_path / "run.otel.json").read_text(encoding="utf-8")
    # In the run's own JSON attributes the model becomes a lone surrogate once read; at the
    # top level, the visible text "\udcff" (what storable text is).
    edited = tmp_path / "edited.otel.json"
    edited.write_text(text.replace("MODELX", "MODEL\\\\udcff"), encoding="utf-8")
    (loaded,) = load_otel(edited)
    assert loaded.model == "MODEL\\udcff"
    loaded.save(tmp_path / "loaded.json")
