"""A light front door (#25 item 3): ``import footprint_lab`` loads only the root (with the
helper serving its lazy names, and the light shim that keeps ``footprint_lab.replay`` the
function), measured in a fresh interpreter; the window core's names load the core and nothing
above it; a room of the lab loads no chart or widget; the names that left a layer live in their
new homes and stay importable from their old paths."""

from __future__ import annotations

import inspect
import json
import pickle
import subprocess
import sys
import textwrap
from dataclasses import dataclass

import pytest

import footprint_lab
import footprint_lab._async
import footprint_lab.window.apply

CORE = {
    "messages",
    "usage",
    "_models",
    "_async",
    "_lazy",
    "_gc",
    "_repr",
    "_context_length",
    "window",
}
"""The core: the window package and the bottom modules it stands on (first name under
``footprint_lab``)."""

CORE_NAMES = sorted(n for n, module in footprint_lab._LAZY.items() if module.split(".")[1] in CORE)
"""Every name the root serves from the core."""

TYPING = {"typing_extensions", "typing_inspection"}
"""What pydantic stands on."""


@dataclass(frozen=True)
class Loaded:
    """What one statement, run first in a fresh interpreter, loaded."""

    ours: list[str]
    """Our modules, sorted."""
    others: set[str]
    """Third-party packages, by top-level name (the standard library left out)."""
    ms: float
    """How long it took (printed, never asserted)."""


def _loaded(statement: str) -> Loaded:
    code = f"""
        import json, sys, time
        before = set(sys.modules)
        start = time.perf_counter()
        {statement}
        ms = (time.perf_counter() - start) * 1000
        new = set(sys.modules) - before
        print(json.dumps({{"modules": sorted(new), "ms": ms}}))
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    tops = {m.split(".")[0] for m in found["modules"]}
    loaded = Loaded(
        ours=[m for m in found["modules"] if m.split(".")[0] == "footprint_lab"],
        # Private top-level names are the interpreter's own (``_sysconfigdata_...``).
        others={t for t in tops - set(sys.stdlib_module_names) if not t.startswith("_")}
        - {"footprint_lab"},
        ms=found["ms"],
    )
    print(f"{statement}: {len(loaded.ours)} footprint_lab modules, {loaded.ms:.0f} ms")
    return loaded


def test_import_footprint_lab_loads_the_root_its_lazy_names_and_the_replay_shim_only() -> None:
    loaded = _loaded("import footprint_lab")
    # Until #25 item 3 it loaded the agent, providers, replay, audit and evidence: 70 modules.
    assert loaded.ours == ["footprint_lab", "footprint_lab._lazy", "footprint_lab.replay"]
    assert loaded.others == set()  # not even pydantic: the first model loads it


def test_the_window_core_names_load_the_core_and_nothing_above_it() -> None:
    assert {"Message", "apply_window", "sliding_window", "WindowConfigError"} <= set(CORE_NAMES)
    loaded = _loaded(f"from footprint_lab import {', '.join(CORE_NAMES)}")
    above = [m for m in loaded.ours if m != "footprint_lab" and m.split(".")[1] not in CORE]
    assert above == ["footprint_lab.replay"]  # the shim, which imports nothing
    assert loaded.others <= {"pydantic", "pydantic_core", "annotated_types"} | TYPING


def test_replay_of_a_run_loads_the_agent_but_no_importer_lab_or_pandas() -> None:
    loaded = _loaded(
        "from footprint_lab import replay, Agent, ScriptedProvider, Reply; "
        "replay(Agent.create(provider=ScriptedProvider([Reply(text='ok')]), model='m')"
        ".build().run('hi'), None)"
    )
    assert "footprint_lab.agent.replay" in loaded.ours
    layers = {m.split(".")[1] for m in loaded.ours if "." in m}
    assert not layers & {"importers", "lab", "evidence", "sweeps", "costs"}
    assert not loaded.others & {"pandas", "numpy", "plotly", "ipywidgets"}


def test_run_sync_lives_below_the_window_core_and_the_core_re_exports_it() -> None:
    assert footprint_lab.window.apply.run_sync is footprint_lab._async.run_sync
    assert footprint_lab._async.run_sync.__module__ == "footprint_lab._async"


def test_context_length_error_lives_with_the_providers_and_its_old_paths_give_it() -> None:
    import footprint_lab.providers.base
    import footprint_lab.window.errors

    error = footprint_lab.providers.base.ContextLengthError
    # Its __module__ is the file that defines it: Jupyter's ?? (inspect.getsource) and pickles
    # find it there (#37 item 5); the providers' protocol module is where users meet it.
    assert error.__module__ == "footprint_lab._context_length"
    assert "class ContextLengthError(RuntimeError)" in inspect.getsource(error)
    assert pickle.loads(pickle.dumps(error("too long", provider="p"))).args == ("too long",)
    assert footprint_lab.ContextLengthError is error
    assert footprint_lab.providers.ContextLengthError is error
    assert footprint_lab.window.ContextLengthError is error
    assert footprint_lab.window.errors.ContextLengthError is error
    from footprint_lab.window import ContextLengthError

    assert ContextLengthError is error


def test_the_window_core_gives_context_length_error_and_loads_no_provider() -> None:
    # It is defined below both (footprint_lab._context_length), so no import points upwards.
    for statement in (
        "import footprint_lab.window",
        "from footprint_lab.window import ContextLengthError",
    ):
        loaded = _loaded(statement)
        layers = {m.split(".")[1] for m in loaded.ours if "." in m}
        assert layers <= CORE | {"replay"}
        assert "footprint_lab.providers.base" not in loaded.ours


def test_costs_and_sweeps_live_in_the_lab_and_their_old_paths_re_export_them() -> None:
    import footprint_lab.costs
    import footprint_lab.lab.costs
    import footprint_lab.lab.sweeps
    import footprint_lab.sweeps

    assert footprint_lab.sweep is footprint_lab.lab.sweeps.sweep
    assert footprint_lab.sweep.__module__ == "footprint_lab.lab.sweeps"
    for name in footprint_lab.lab.sweeps.__all__:
        assert getattr(footprint_lab.sweeps, name) is getattr(footprint_lab.lab.sweeps, name)
    assert footprint_lab.lab.costs.cost_frame.__module__ == "footprint_lab.lab.costs"
    for name in footprint_lab.lab.costs.__all__:
        assert getattr(footprint_lab.costs, name) is getattr(footprint_lab.lab.costs, name)


def test_a_room_of_the_lab_loads_no_chart_report_or_widget() -> None:
    charts = {"plotly", "ipywidgets", "anywidget", "jinja2"}
    assert not _loaded("import footprint_lab.lab").others & charts
    for room in ("sweeps", "costs"):
        loaded = _loaded(f"import footprint_lab.lab.{room}")
        assert not loaded.others & charts
        assert "pandas" in loaded.others
        assert not {m for m in loaded.ours if m.startswith("footprint_lab.lab.widgets")}


def test_the_agent_layer_replays_runs_and_the_root_reads_transcripts_above_it() -> None:
    import footprint_lab.agent.replay as agent_replay

    transcript = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
    ]
    with pytest.raises(TypeError, match=r"footprint_lab\.replay"):
        agent_replay.replay(transcript, None)  # type: ignore[arg-type]
    replayed = footprint_lab.replay(transcript, None)
    assert [m.content for m in replayed.window] == ["hi", "hello"]
    assert replayed.origin.kind == "replay"
