"""The specs of the frames the lab builds beyond a capture: the evidence grid and its summary,
the priced calls, a run's summary numbers and the sweep of them, the boundary views, where
compared runs part, and the Tuner's readouts.

Layer: lab (private; :mod:`footprint_lab.lab.schema` is the public face). Each frame is built
against its spec here (:func:`footprint_lab.lab.schema.build_frame`); a frame whose columns
depend on the configurations' knobs (the evidence frame and summary, a sweep) places them where
its spec says and names them in ``frame.attrs["knobs"]``.
"""

from __future__ import annotations

from footprint_lab.auditing.violations import VIOLATION_KINDS
from footprint_lab.lab._schema_base import BOOL, FLOAT, INT, TEXT, Column, FrameSpec, columns_of
from footprint_lab.window.records import REFUSAL_REASONS

__all__ = ["RESULT_SPECS"]

_PINS = "The pin limit replayed with (``keep_last_tool_results``)."

_EVIDENCE = FrameSpec(
    ":func:`~footprint_lab.lab.evidence_frame`: one row per configuration × run, in that "
    "order. Knob columns (one per knob key across the configurations, in first-seen order) sit "
    "between ``strategy`` and ``keep_last_tool_results``. Every row is a replay, priced on "
    "estimated tokens (no provider reported the counterfactual windows').",
    columns_of(
        run=(TEXT, "The run's label (``meta['label']``, else its key or index)."),
        task_id=(INT, "``run.meta['task_id']``; the column is text when some id is not whole."),
        trial=(INT, "``run.meta['trial']`` (<NA> when absent)."),
        reward=(FLOAT, "``run.meta['reward']`` (NaN when absent)."),
        config=(TEXT, "The configuration's label."),
        strategy=(TEXT, "The strategy's name ('none' without one)."),
        keep_last_tool_results=(INT, _PINS),
        tool_calls=(INT, "Tool calls in the run's transcript."),
        dependent_calls=(INT, "Calls that took an argument from earlier tool evidence."),
        lost_calls=(INT, "Dependent calls produced from a window without that evidence."),
        lost_values=(INT, "(call, value) pairs lost."),
        kept_by_summary=(INT, "Lost calls whose every lost value a compaction frame stated."),
        windows=(INT, "Calls replayed."),
        mean_window_chars=(FLOAT, "Characters sent per call, mean."),
        peak_window_chars=(INT, "Characters sent per call, max."),
        window_chars=(INT, "Characters sent, summed over the calls."),
        baseline_window_chars=(INT, "The same sum with no window management."),
        chars_saved=(INT, "baseline_window_chars - window_chars."),
        wire_violations=(INT, "Windows sent that a provider would reject (wire problems)."),
        request_lost=(INT, "Windows sent with no current request."),
        violations=(INT, "Rules an audited policy broke (its records' ``violations``)."),
        removed_messages=(INT, "Messages its records removed."),
        request_chars=(INT, "Characters of every request, system prompt included."),
        prefix_chars=(INT, "Their common prefixes with the previous request, in characters."),
        cache_share=(FLOAT, "prefix_chars / request_chars: what a prefix cache could reuse."),
        input_cost=(FLOAT, "The input priced with the cached prefix at the cached price."),
        baseline_input_cost=(FLOAT, "The same with no window management."),
        cost_ratio=(FLOAT, "input_cost / baseline_input_cost; NaN when it cannot engage."),
        cache_rule=(TEXT, "The cache rule both costs were priced on: 'prefix' or 'none'."),
        estimated_calls=(INT, "Calls whose tokens the replay estimated from characters."),
        not_applicable=(TEXT, "Why the configuration cannot apply to the run; <NA> when it can."),
    ),
    "evidence",
    knobs_after="strategy",
)

_EVIDENCE_SUMMARY = FrameSpec(
    ":func:`~footprint_lab.lab.evidence_summary`: one row per configuration, in the frame's "
    "order; sums over its runs. Knob columns sit between ``strategy`` and "
    "``keep_last_tool_results``, as in the evidence frame.",
    columns_of(
        config=(TEXT, "The configuration's label."),
        strategy=(TEXT, "The strategy's name ('none' without one)."),
        keep_last_tool_results=(INT, _PINS),
        runs=(INT, "Runs replayed under the configuration."),
        tool_calls=(INT, "Tool calls, summed over the runs."),
        dependent_calls=(INT, "Dependent calls, summed."),
        lost_calls=(INT, "Lost calls, summed."),
        kept_by_summary=(INT, "Lost calls a compaction frame still stated, summed."),
        lost_share=(FLOAT, "lost_calls / dependent_calls (0 when none depend)."),
        windows=(INT, "Calls replayed, summed."),
        mean_window_chars=(FLOAT, "window_chars / windows."),
        peak_window_chars=(INT, "The largest peak over the runs."),
        window_chars=(INT, "Characters sent, summed."),
        baseline_window_chars=(INT, "Characters sent with no window management, summed."),
        chars_saved=(INT, "baseline_window_chars - window_chars."),
        chars_saved_share=(FLOAT, "chars_saved / baseline_window_chars."),
        wire_violations=(INT, "Windows a provider would reject, summed."),
        request_lost=(INT, "Windows with no current request, summed."),
        violations=(INT, "Rules an audited policy broke, summed."),
        cache_share=(FLOAT, "Prefix over request characters, over the runs."),
        input_cost=(FLOAT, "Estimated input cost, summed."),
        baseline_input_cost=(FLOAT, "The same with no window management, summed."),
        cost_ratio=(FLOAT, "input_cost / baseline_input_cost over the runs it applies to."),
        not_applicable_runs=(INT, "Runs the configuration cannot engage on."),
        pareto=(BOOL, "On the front of saving most while losing least."),
        cost_pareto=(BOOL, "On the front of costing least while losing least."),
    ),
    "evidence_summary",
    knobs_after="strategy",
)

_COST = FrameSpec(
    ":func:`~footprint_lab.costs.cost_frame`: one row per LLM call of every run, priced under "
    "one cache rule for the whole frame (``frame.attrs['cache']``).",
    columns_of(
        label=(TEXT, "The run's label."),
        call=(INT, "Index in ``run.calls``."),
        iteration=(INT, "The call's iteration."),
        model=(TEXT, "The model the run names."),
        priced_as=(TEXT, "The price table entry (or 'custom') that priced the row."),
        cache_rule=(
            TEXT,
            "The cache rule that split the row's input: 'reported', 'prefix', 'none'.",
        ),
        estimated=(BOOL, "True when the tokens are estimated from characters, not reported."),
        input_tokens=(INT, "Input tokens, cached and written ones included."),
        cached_input_tokens=(INT, "Input tokens read from the prefix cache (the row's rule)."),
        cache_write_tokens=(INT, "Input tokens written to the cache (under the row's rule)."),
        uncached_input_tokens=(INT, "Input tokens billed at the full input price."),
        output_tokens=(INT, "Output tokens."),
        request_chars=(INT, "Characters of the whole request (system prompt plus window)."),
        prefix_chars=(INT, "Common prefix with the previous request, in characters."),
        prefix_share=(FLOAT, "``prefix_chars / request_chars``."),
        input_cost=(FLOAT, "Uncached input, USD."),
        cached_input_cost=(FLOAT, "Cached input, USD."),
        cache_write_cost=(FLOAT, "Cache writes, USD."),
        output_cost=(FLOAT, "Output, USD."),
        policy_input_tokens=(
            INT,
            "Input tokens the provider's own server-side policy billed at this call beside the "
            "reply (a compaction's sampling step), as reported; 0 when none.",
        ),
        policy_output_tokens=(INT, "Output tokens of that step (the summary), as reported."),
        policy_cost=(FLOAT, "That step at the full input and output prices, USD."),
        total_cost=(FLOAT, "The sum, USD (the policy's step included)."),
    ),
    "cost",
)

_RUN_SUMMARY = FrameSpec(
    ":func:`~footprint_lab.lab.summary.run_summary`: the numbers of one run (a sweep row "
    "holds them). Nothing wall-clock: the same run always gives the same numbers.",
    {
        **columns_of(
            strategy=(TEXT, "The strategy's name ('none' without one)."),
            status=(TEXT, "The run's status."),
            iterations=(INT, "ReAct iterations."),
            calls=(INT, "LLM calls."),
            peak_window_chars=(INT, "The most characters one call sent."),
            mean_window_chars=(FLOAT, "Characters sent per call, mean (0 without calls)."),
            peak_input_tokens=(
                INT,
                "The largest input-token figure of a call (None when no call has one).",
            ),
            tokens_from=(
                TEXT,
                "Where the token figures came from: 'reported'; in a replay 'counted', "
                "'scaled' or 'estimated' (several joined; None without figures).",
            ),
            records=(INT, "Window records filed."),
            removals=(INT, "Visits that removed something."),
            removed_messages=(INT, "Messages they removed."),
            refusals=(INT, "Refusals over all visits."),
            pins=(INT, "Pin slots granted over all visits."),
            yielded=(INT, "Tool names that found no pin slot, over all visits."),
            stand_downs=(INT, "Visits that stood down their pins."),
            violations=(INT, "Rules an audited policy broke, over all visits."),
        ),
        **{
            f"refusals_{reason}": Column(INT, f"Refusals for '{reason}'.")
            for reason in REFUSAL_REASONS
        },
        **{
            f"violations_{kind}": Column(INT, f"Violations of '{kind}'.")
            for kind in VIOLATION_KINDS
        },
        **columns_of(
            final_window_chars=(INT, "What the last call sent, in characters."),
            input_tokens=(
                INT,
                "The calls' input-token figures, summed (None without figures; tokens_from "
                "says where they came from).",
            ),
            ledger_messages=(INT, "Messages in the ledger."),
            pauses=(INT, "Times the run paused for a person."),
            counterfactual=(BOOL, "The run is a replay."),
        ),
    },
    "run_summary",
)

_SWEEP_COSTS = columns_of(
    cache_share=(FLOAT, "Request characters a prefix cache could reuse (the prefix rule)."),
    input_cost=(FLOAT, "Estimated input cost in uncached-token equivalents, cached at a tenth."),
    baseline_input_cost=(FLOAT, "The same with no window management."),
    cost_ratio=(FLOAT, "input_cost / baseline_input_cost; NaN when it cannot engage."),
    not_applicable=(TEXT, "Why the configuration cannot apply to a recorded run; <NA> if it can."),
)

_SWEEP = FrameSpec(
    ":func:`~footprint_lab.sweep`: one row per configuration of the grid, in grid order: a "
    "column per grid key (the knobs, first), the run's summary numbers, then its costs.",
    {**_RUN_SUMMARY.columns, **_SWEEP_COSTS},
    "sweep",
    knobs_after="",
)

_TUNER = FrameSpec(
    "``Tuner.summary``: the readouts of the Tuner's current setting, one row per run it "
    "re-runs or replays. Knob columns sit between ``strategy`` and ``keep_last_tool_results``.",
    columns_of(
        run=(TEXT, "The run's label (the scenario's name for a scenario)."),
        strategy=(TEXT, "The strategy's name."),
        keep_last_tool_results=(INT, "The pin limit of the setting."),
        calls=(INT, "LLM calls made (a scenario) or replayed (a run)."),
        records=(INT, "Window records filed."),
        removed_messages=(INT, "Messages the records removed."),
        input_cost=(FLOAT, "Estimated input cost of every call, under the cache rule."),
        baseline_input_cost=(FLOAT, "The same with no window management."),
        cost_ratio=(FLOAT, "input_cost / baseline_input_cost (NaN when that costs nothing)."),
        request_chars=(INT, "Characters of every request, system prompt included."),
        prefix_chars=(INT, "Their common prefixes with the previous request."),
        cache_share=(FLOAT, "prefix_chars / request_chars: what a prefix cache could reuse."),
        dependent_calls=(INT, "Tool calls that took an argument from earlier tool evidence."),
        lost_calls=(INT, "Dependent calls produced from a window without that evidence."),
    ),
    "tuner",
    knobs_after="strategy",
)

_KEY_NUMBERS = _RUN_SUMMARY.cut(
    "key_numbers",
    "``Compare.summary`` and the widgets' overview: a run's key numbers, one row per run.",
    (
        "strategy",
        "status",
        "iterations",
        "calls",
        "records",
        "removals",
        "removed_messages",
        "refusals",
        "pins",
        "yielded",
        "stand_downs",
        "peak_window_chars",
        "final_window_chars",
        "peak_input_tokens",
        "ledger_messages",
        "pauses",
        "counterfactual",
    ),
)

_REPORT_SUMMARY = _RUN_SUMMARY.cut(
    "report_summary",
    "The report's summary table: one row per strategy of a section.",
    (
        "strategy",
        "status",
        "iterations",
        "calls",
        "records",
        "removed_messages",
        "refusals",
        "pins",
        "peak_window_chars",
        "final_window_chars",
        "input_tokens",
        "tokens_from",
    ),
    strategy="strategy",
    status="status",
    iterations="iterations",
    calls="calls",
    records="records",
    removed_messages="messages removed",
    refusals="refusals",
    pins="pins",
    peak_window_chars="peak chars sent",
    final_window_chars="last chars sent",
    input_tokens="input tokens",
    tokens_from="tokens from",
)

_BOUNDARY = FrameSpec(
    ":func:`~footprint_lab.lab.views.boundary_frame`: the window sent at one iteration, one "
    "row per message.",
    columns_of(
        index=(INT, "The message's index in the window.", "#"),
        position=(INT, "Its ledger position.", "Ledger position"),
        stage_id=(TEXT, "Its stage id.", "Stage id"),
        who=(TEXT, "Who wrote it: a role, or the tool's name.", "From"),
        chars=(INT, "Its exact characters.", "Chars"),
        state=(TEXT, "Its membership state: pinned, refused-<reason>, notice, frame, in-window."),
        preview=(TEXT, "The start of its text.", "Preview"),
    ),
    "boundary",
)

_LEFT = FrameSpec(
    ":func:`~footprint_lab.lab.views.left_frame`: the messages that left the window at the "
    "boundary before one iteration (still in the ledger).",
    columns_of(
        position=(INT, "The message's ledger position.", "Ledger position"),
        stage_id=(TEXT, "Its stage id.", "Stage id"),
        who=(TEXT, "Who wrote it: a role, or the tool's name.", "From"),
        chars=(INT, "Its exact characters.", "Chars"),
        how=(TEXT, "'dropped' or 'summarized'.", "How it left"),
        why=(
            TEXT,
            "Why: how, by which strategy, at which iteration and by which rule it left.",
            "Why it left",
        ),
        born_iteration=(INT, "Iteration of the stage that committed it.", "Born at iteration"),
        preview=(TEXT, "The start of its text.", "Preview"),
    ),
    "left",
)

_PARTING = FrameSpec(
    ":func:`~footprint_lab.lab.parting.parting_frame`: where each compared run parts from the "
    "first, one row per run after it (``Compare.parting``).",
    columns_of(
        run=(TEXT, "The run compared.", "Run"),
        against=(TEXT, "The run it is compared with (the first).", "Against"),
        fork_at=(INT, "The iteration it was forked at, when it is a fork.", "Forked at"),
        shared_iterations=(INT, "Iterations both runs made a call in.", "Shared iterations"),
        windows_part_at=(
            INT,
            "The first iteration whose window differs (or only one ran); <NA>: never.",
            "Windows part at",
        ),
        replies_part_at=(
            INT,
            "The first iteration whose reply differs (or only one ran); <NA>: never.",
            "Replies part at",
        ),
        reference_chars=(
            INT,
            "Characters the first run sent where the windows part.",
            "Chars sent (first)",
        ),
        run_chars=(INT, "Characters this run sent where the windows part.", "Chars sent"),
    ),
    "parting",
)

_SEARCH = FrameSpec(
    ":func:`~footprint_lab.lab.views.search_frame`: the ledger messages whose stage id, text or "
    "tool calls hold a query, in ledger order.",
    columns_of(
        position=(INT, "The message's ledger position.", "Ledger position"),
        stage_id=(TEXT, "Its stage id.", "Stage id"),
        who=(TEXT, "Who wrote it: a role, or the tool's name.", "From"),
        matched=(TEXT, "Where the query was found: 'stage id', 'text' or 'tool call'.", "Found in"),
        written_at=(INT, "Iteration of the stage that committed it.", "Written at iteration"),
        first_sent=(INT, "Iteration of the first call whose window held it.", "First sent"),
        last_sent=(INT, "Iteration of the last call whose window held it.", "Last sent"),
        left=(TEXT, "'dropped', 'summarized', 'still-in' or 'never-sent'.", "Left"),
        snippet=(TEXT, "The text around the first match.", "Snippet"),
        explanation=(TEXT, "Why it left or stayed (``footprint_lab.explain``).", "Why"),
    ),
    "search",
)

_WINDOW_DIFF = FrameSpec(
    ":func:`~footprint_lab.lab.views.window_diff`: the window sent at one iteration against the "
    "one sent at the iteration before it (``frame.attrs['previous']``), one row per change.",
    columns_of(
        change=(
            TEXT,
            "'left' (sent before, not now), 'came' (new in this window) or 'changed' (replaced "
            "in place: a cleared-result placeholder for the result it stands for).",
            "Change",
        ),
        position=(INT, "The message's ledger position.", "Ledger position"),
        stage_id=(TEXT, "Its stage id.", "Stage id"),
        who=(TEXT, "Who wrote it: a role, or the tool's name.", "From"),
        chars=(INT, "Its exact characters.", "Chars"),
        reason=(TEXT, "Why it left, came or changed.", "Why"),
        preview=(TEXT, "The start of its text.", "Preview"),
    ),
    "window_diff",
)

_CALL_COSTS = FrameSpec(
    ":func:`~footprint_lab.lab.views.call_costs`: each LLM call with its tokens, cost and "
    "latency (``frame.attrs['notes']`` says how cost and latency were found, or why not).",
    columns_of(
        call=(INT, "Index in ``run.calls`` (from 0).", "Call"),
        iteration=(INT, "The call's iteration.", "Iteration"),
        label=(TEXT, "The call as printed everywhere (``call_label``).", "Which call"),
        stage_id=(TEXT, "The call's stage id.", "Stage id"),
        messages=(INT, "Messages sent.", "Messages"),
        chars=(INT, "Exact characters sent.", "Chars"),
        input_tokens=(INT, "Input tokens as reported; <NA> when none were.", "Input tokens"),
        output_tokens=(INT, "Output tokens as reported; <NA> when none were.", "Output tokens"),
        cache_read_tokens=(INT, "Cached input tokens as reported; <NA> when unsaid.", "Cached"),
        cost_usd=(
            FLOAT,
            "Total cost in USD (``cost_frame``, built-in list prices unless given); <NA> when "
            "the model has no price.",
            "Cost (USD)",
        ),
        cost_estimated=(BOOL, "The cost is from estimated, not reported, tokens.", "Estimated"),
        latency_ms=(
            INT,
            "Milliseconds from the last commit before the call to its reply's commit, by the "
            "ledger's clock; <NA> where the run did not happen here (imported, replayed) or the "
            "call failed.",
            "Latency (ms)",
        ),
    ),
    "call_costs",
)

RESULT_SPECS: dict[str, FrameSpec] = {
    spec.name: spec
    for spec in (
        _EVIDENCE,
        _EVIDENCE_SUMMARY,
        _COST,
        _RUN_SUMMARY,
        _SWEEP,
        _KEY_NUMBERS,
        _REPORT_SUMMARY,
        _BOUNDARY,
        _LEFT,
        _PARTING,
        _SEARCH,
        _WINDOW_DIFF,
        _CALL_COSTS,
        _TUNER,
    )
}
"""The lab's frames beyond a capture, by name."""
