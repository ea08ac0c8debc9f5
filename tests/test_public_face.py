"""The root namespace: a curated ``__all__``, every older name still importable, and light —
``import footprint_lab`` imports no pandas, plotly or ipywidgets, and the core runs without
them."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap

import pytest

import footprint_lab

CONTRACT = [
    "Message",
    "ToolCall",
    "Agent",
    "tool",
    "ScriptedProvider",
    "Reply",
    "sliding_window",
    "token_budget",
    "summarize_oldest",
    "apply_window",
    "WindowResult",
    "WindowRecord",
    "Refusal",
    "Observations",
    "Pin",
    "segment_turns",
    "DROP_NOTICE_PREFIX",
    "is_drop_notice",
    "CompactionUnmeasurableError",
    "WindowConfigError",
    "ContextLengthError",
]
"""The root names of DESIGN.md's API contract, in its order."""

EARLIER = [
    "DROP_NOTICE_PREFIX",
    "Agent",
    "AgentBuilder",
    "CallRecord",
    "Checkpoint",
    "Commit",
    "CompactionUnmeasurableError",
    "ContextLengthError",
    "Event",
    "FoldedSpan",
    "InjectionContext",
    "Ledger",
    "Message",
    "Observations",
    "PauseState",
    "Pin",
    "Provider",
    "ProviderError",
    "ProviderRequest",
    "ProviderResponse",
    "Recorder",
    "Refusal",
    "Reply",
    "Run",
    "RunFileError",
    "ScriptedProvider",
    "StrategyInput",
    "StrategyResult",
    "SummaryResult",
    "Tool",
    "ToolCall",
    "Turn",
    "Usage",
    "Violation",
    "WindowConfigError",
    "WindowRecord",
    "WindowResult",
    "WindowStrategy",
    "WindowStrategyError",
    "__version__",
    "aapply_window",
    "after_compaction",
    "apply_window",
    "ask_human",
    "audit",
    "content_hash",
    "is_compaction_frame",
    "is_drop_notice",
    "load_checkpoint",
    "load_run",
    "provider_summarizer",
    "replay",
    "segment_turns",
    "sliding_window",
    "summarize_oldest",
    "sweep",
    "token_budget",
    "tool",
    "window_chars",
]
"""Every name the root exported before it was curated."""

HEAVY = ("pandas", "plotly", "ipywidgets")


def _python(code: str, *flags: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, *flags, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_all_starts_with_the_contract_and_stays_curated() -> None:
    assert footprint_lab.__all__[: len(CONTRACT)] == CONTRACT
    assert {"Run", "load_run", "RunFileError", "replay", "fork", "audit", "sweep"} <= set(
        footprint_lab.__all__
    )
    assert "explain" in footprint_lab.__all__
    # The contract names load (any stack's file) and judge (what its own policy did) at the
    # root too (DESIGN.md: "Today's stacks", "Judging the stack's own policy").
    assert {"load", "judge"} <= set(footprint_lab.__all__)
    # And the offline twins of the providers' own policies (DESIGN.md: "Provider policies").
    twins = {"anthropic_context_editing", "anthropic_compaction", "openai_compaction"}
    assert twins | {"clear_thinking"} <= set(footprint_lab.__all__)
    # And the baseline every comparison starts from (#39: "load and no_policy at the root").
    assert "no_policy" in footprint_lab.__all__
    assert len(footprint_lab.__all__) <= 38
    assert len(set(footprint_lab.__all__)) == len(footprint_lab.__all__)


@pytest.mark.parametrize("name", EARLIER)
def test_every_earlier_name_is_still_importable_from_the_root(name: str) -> None:
    assert getattr(footprint_lab, name) is not None
    assert name in dir(footprint_lab)


def test_lazy_names_are_the_objects_of_their_modules() -> None:
    from footprint_lab.agent import Run
    from footprint_lab.agent.fork import fork
    from footprint_lab.replay import replay
    from footprint_lab.sweeps import sweep
    from footprint_lab.window import apply_window

    assert footprint_lab.Run is Run
    assert footprint_lab.apply_window is apply_window
    assert footprint_lab.sweep is sweep
    assert footprint_lab.replay is replay
    assert footprint_lab.fork is fork
    from footprint_lab.agent.explain import explain

    assert footprint_lab.explain is explain


def test_an_unknown_name_is_an_attribute_error_and_submodules_still_import() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = footprint_lab.no_such_name  # type: ignore[attr-defined]
    from footprint_lab import cli

    assert callable(cli.main)


def test_importing_the_root_imports_no_pandas_plotly_or_ipywidgets() -> None:
    done = _python(
        f"""
        import sys
        import footprint_lab
        from footprint_lab import Agent, Message, apply_window, explain, fork, replay
        from footprint_lab import sliding_window
        print(",".join(m for m in sys.modules if m.split(".")[0] in {HEAVY!r}))
        """,
        "-X",
        "importtime",
    )
    assert done.stdout.strip() == ""
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert not {m for m in imported if m.split(".")[0] in HEAVY}


def test_the_core_runs_with_pandas_absent() -> None:
    done = _python(
        """
        import sys
        sys.modules["pandas"] = None  # any `import pandas` now raises ImportError
        import footprint_lab.window
        from footprint_lab import (
            Agent, Message, Reply, ScriptedProvider, apply_window, explain, replay,
            sliding_window,
        )
        messages = [Message.user("go")] + [
            m for i in range(4) for m in (Message.assistant(f"a{i}"), Message.user(f"u{i}"))
        ]
        result = apply_window(sliding_window(2), messages, iteration=1, request="go")
        assert len(result.window) < len(messages)
        agent = Agent.create(provider=ScriptedProvider([Reply.text("done")])).build()
        run = agent.run("hello")
        assert run.status == "done" and replay(run, sliding_window(1)).output == "done"
        assert explain(run, "seed#0").startswith("seed#0 (user) never left the window")
        try:
            from footprint_lab import sweep
        except ImportError:
            print("sweep needs pandas")
        """
    )
    assert done.stdout.strip() == "sweep needs pandas"


def test_replay_stays_the_function_whichever_module_loads_first() -> None:
    done = _python(
        """
        import footprint_lab.replay
        import footprint_lab.sweeps
        import footprint_lab
        from footprint_lab import replay
        assert replay is footprint_lab.replay is footprint_lab.replay.__globals__["replay"]
        assert callable(replay) and replay.__module__ == "footprint_lab.replay"
        """
    )
    assert done.returncode == 0


def test_the_old_counterfactual_path_re_exports_replay() -> None:
    import footprint_lab.counterfactual as old

    # ``import footprint_lab.replay as new`` would give the root's ``replay`` function, which
    # shadows the submodule of the same name: ask for the module itself.
    new = importlib.import_module("footprint_lab.replay")

    assert old.__doc__ and "old name" in old.__doc__
    for name in ("replay", "areplay", "as_run", "transcript_of", "COUNTERFACTUAL_NOTE"):
        assert getattr(old, name) is getattr(new, name)
