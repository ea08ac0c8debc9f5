"""``footprint-lab replay FILE --strategy EXPR ...``: what the recorded run, and the same run
replayed under each strategy, removed, sent, cost and lost in evidence. Layer: top (the CLI).

One row for the run as recorded (its own stack's policy), then one per ``--strategy``: messages
removed, characters sent, the cost of its calls (:func:`footprint_lab.lab.costs.cost_frame`,
``cache="prefix"`` for every row, so they compare; "estimated" when a row's tokens were
estimated from characters), and the tool calls that lost their evidence out of those that
depended on earlier tool evidence (:func:`footprint_lab.lab.evidence_frame`; the recorded row
by :func:`footprint_lab.evidence.losses` on the run itself). ``-o PATH`` writes the
comparison (:class:`footprint_lab.lab.Compare`) as a standalone HTML page.

A strategy is written as a call of a shipped strategy, ``sliding_window(keep_recent_turns=3)``
(either spelling of the name: ``sliding-window`` or ``sliding_window``), with literal
arguments only: it is read with :mod:`ast`, never evaluated. ``summarize_oldest`` is given the
offline ``extractive_summarizer`` (a summarizer is a function, which no literal writes).

Exit status: 0 when the rows are printed; 2 for bad input — a file that does not load, a
``--run`` not in it, a strategy expression that does not read (the error names it and lists
the shipped strategies), a ``--pricing`` model with no price.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from footprint_lab.cli._files import load_or_say, pick_run, say
from footprint_lab.cli._text import wrap
from footprint_lab.cli.cost import add_pricing_option, money, priced_frame, pricing_or_say

if TYPE_CHECKING:
    from footprint_lab.agent import Run
    from footprint_lab.window.strategies.base import WindowStrategy

__all__ = [
    "REPLAY_DESCRIPTION",
    "StrategyExpressionError",
    "add_replay_command",
    "parse_strategy",
    "replay_file",
]

REPLAY_DESCRIPTION = """\
Replay a recorded run under window strategies and compare: one row for the run as recorded
(its own stack's policy), then one per --strategy, each with the messages it removed, the
characters it sent, the cost of its calls (prompt cache: the prefix shared with the previous
request; "estimated" when the tokens were estimated from characters) and the tool calls that
lost their evidence out of those that depended on it. A strategy is a call of a shipped one
with literal arguments, e.g. --strategy "sliding_window(keep_recent_turns=3)"; it is read,
never run as code. -o FILE writes the comparison as an HTML page. Exit status 0; 2 when the
file does not load, or a strategy or --pricing does not read.
"""
"""The ``--help`` text of ``footprint-lab replay``."""


class StrategyExpressionError(ValueError):
    """A ``--strategy`` expression that does not name a shipped strategy with literal
    arguments, or whose arguments the strategy refuses."""


def add_replay_command(sub: Any) -> None:
    """Register ``replay`` on the CLI's sub-parsers."""
    parser = sub.add_parser(
        "replay",
        help="replay a transcript under window strategies: removed, sent, cost, evidence lost",
        description=REPLAY_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", type=Path, metavar="FILE", help="a transcript or a saved run")
    parser.add_argument(
        "--strategy",
        action="append",
        default=[],
        metavar="EXPR",
        help=(
            'a shipped strategy with literal arguments, e.g. "sliding_window(keep_recent_turns=3)"'
            "; give the option again for more"
        ),
    )
    parser.add_argument(
        "--run", type=int, default=None, metavar="N", help="the run of the file (from 0)"
    )
    add_pricing_option(parser)
    parser.add_argument(
        "-o", "--output", type=Path, default=None, help="write the comparison to this HTML file"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def _shipped() -> str:
    from footprint_lab.window.strategies.names import SHIPPED_STRATEGIES

    return ", ".join(name.replace("-", "_") for name in SHIPPED_STRATEGIES)


def parse_strategy(text: str) -> Callable[[], WindowStrategy]:
    """What ``--strategy TEXT`` builds: a function making a fresh strategy each call (checked
    once here). Read with :mod:`ast`, never evaluated: one name of
    :data:`~footprint_lab.window.strategies.names.SHIPPED_STRATEGIES` (either spelling), called
    with literal arguments (:func:`ast.literal_eval` on each).

    Raises:
        StrategyExpressionError: naming the expression, what is wrong and the shipped
            strategies.
    """
    from footprint_lab.window.strategies.names import SHIPPED_STRATEGIES, strategy_key
    from footprint_lab.window.strategies.summarize_oldest import summarize_oldest
    from footprint_lab.window.strategies.summarizers import extractive_summarizer

    def fail(problem: str) -> StrategyExpressionError:
        return StrategyExpressionError(
            f"--strategy {text!r}: {problem}; write a call of a shipped strategy with literal "
            f'arguments, e.g. "sliding_window(keep_recent_turns=3)"; the shipped strategies '
            f"are {_shipped()}"
        )

    # The name may be spelt with hyphens (``token-budget(...)``), which Python reads as a
    # subtraction: the leading name is read with underscores.
    head = re.match(r"\s*([A-Za-z_][A-Za-z0-9_-]*)", text)
    source = text.strip()
    if head is not None:
        source = head.group(1).replace("-", "_") + text[head.end() :]
    try:
        body = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        raise fail("not an expression Python reads") from None
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    if isinstance(body, ast.Name):
        name = body.id
    elif isinstance(body, ast.Call) and isinstance(body.func, ast.Name):
        name = body.func.id
        for node in body.args:
            if isinstance(node, ast.Starred):
                raise fail("*arguments are not read")
            try:
                args.append(ast.literal_eval(node))
            except (ValueError, TypeError, SyntaxError):
                raise fail(f"argument {ast.unparse(node)!r} is not a literal") from None
        for keyword in body.keywords:
            if keyword.arg is None:
                raise fail("**arguments are not read")
            try:
                kwargs[keyword.arg] = ast.literal_eval(keyword.value)
            except (ValueError, TypeError, SyntaxError):
                shown = ast.unparse(keyword.value)
                raise fail(f"{keyword.arg}={shown} is not a literal") from None
    else:
        raise fail("not a call of a strategy by its name")
    key = strategy_key(name)
    if key not in SHIPPED_STRATEGIES:
        raise fail(f"no shipped strategy is named {name!r}")
    factory = SHIPPED_STRATEGIES[key]
    if factory is summarize_oldest and "summarizer" not in kwargs and len(args) < 2:
        kwargs["summarizer"] = extractive_summarizer

    def build() -> WindowStrategy:
        return factory(*args, **kwargs)

    try:
        build()
    except (TypeError, ValueError) as exc:
        raise fail(str(exc)) from None
    return build


def _unique(label: str, taken: Mapping[str, object]) -> str:
    unique, n = label, 2
    while unique in taken:
        unique, n = f"{label} #{n}", n + 1
    return unique


def _recorded_evidence(run: Run) -> tuple[int, int]:
    """The recorded run's lost and dependent calls, counted as ``evidence_frame`` does."""
    from footprint_lab.evidence import dependencies, losses
    from footprint_lab.evidence.losses import calls_of

    deps = dependencies(run)
    return calls_of(losses(run, deps)), calls_of(deps)


_HEAD = ("row", "removed", "chars sent", "cost", "evidence lost")
_LABEL_WIDTH = 18


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[j]) for r in [_HEAD, *rows]) for j in range(1, len(_HEAD))]
    label_width = min(_LABEL_WIDTH, max(len(r[0]) for r in [_HEAD, *rows]))

    def line(cells: Sequence[str]) -> list[str]:
        numbers = "  ".join(c.rjust(w) for c, w in zip(cells[1:], widths, strict=True))
        if len(cells[0]) > label_width:
            return [*wrap(cells[0], "  ", "    "), f"  {'':{label_width}}  {numbers}"]
        return [f"  {cells[0]:{label_width}}  {numbers}"]

    return [out for cells in [_HEAD, *rows] for out in line(cells)]


def replay_file(
    path: Path,
    strategies: Sequence[str],
    *,
    run_index: int | None = None,
    pricing: str | None = None,
    output: Path | None = None,
    as_json: bool = False,
) -> int:
    """Print the recorded run's row and one per strategy; return the exit status (0, or 2 for
    bad input)."""
    from footprint_lab.agent.replay import replay
    from footprint_lab.lab.evidence import evidence_frame

    builders: dict[str, Callable[[], WindowStrategy]] = {}
    for text in strategies:
        try:
            builders[_unique(text.strip(), builders)] = parse_strategy(text)
        except StrategyExpressionError as exc:
            say("replay", str(exc))
            return 2
    ok, price = pricing_or_say(pricing, "replay")
    if not ok:
        return 2
    runs = load_or_say(path, "replay")
    if runs is None:
        return 2
    run = pick_run(runs, run_index, path, "replay")
    if run is None:
        return 2
    recorded = "as recorded" + (f" ({run.strategy})" if run.strategy else "")
    builders = {_unique(k, {recorded: 0}): v for k, v in builders.items()}
    replays = {label: replay(run, build()) for label, build in builders.items()}
    compared: dict[str, Run] = {recorded: run, **replays}
    frame, unpriced = priced_frame(compared, price, "prefix")
    evidence = evidence_frame(
        [run], {label: build() for label, build in builders.items()}, progress=False
    )
    by_config = {str(row["config"]): row for row in evidence.to_dict("records")}
    lost, dependent = _recorded_evidence(run)
    rows: list[dict[str, Any]] = []
    for label, each in compared.items():
        costs = frame[frame["label"] == label]
        priced = price is not None or each.model not in unpriced
        row: dict[str, Any] = {
            "row": label,
            "strategy": each.strategy,
            "removed_messages": sum(r.removed_message_count for r in each.records),
            "chars_sent": sum(c.chars for c in each.calls),
            "total_cost": float(costs["total_cost"].sum()) if priced else None,
            "estimated": bool(costs["estimated"].any()),
            "lost_calls": lost,
            "dependent_calls": dependent,
        }
        if label in by_config:
            measured = by_config[label]
            row["removed_messages"] = int(measured["removed_messages"])
            row["chars_sent"] = int(measured["window_chars"])
            row["lost_calls"] = int(measured["lost_calls"])
            row["dependent_calls"] = int(measured["dependent_calls"])
        rows.append(row)
    written = None
    if output is not None:
        from footprint_lab.lab import Compare

        written = Compare(compared).to_html(output)
    if as_json:
        document = {
            "file": str(path),
            "run": 0 if run_index is None else run_index,
            "cache_rule": "prefix",
            "rows": rows,
            "unpriced_models": unpriced,
            "output": None if output is None else str(output),
        }
        print(json.dumps(document, ensure_ascii=False))
        return 0
    cells = [
        [
            r["row"],
            f"{r['removed_messages']:,}",
            f"{r['chars_sent']:,}",
            money(r["total_cost"]) + (" estimated" if r["estimated"] else ""),
            f"{r['lost_calls']} of {r['dependent_calls']}",
        ]
        for r in rows
    ]
    lines = [*wrap(f"{path}: {len(replays)} replay(s) beside the run as recorded"), ""]
    lines += _table(cells)
    notes = (
        "cost: every call, with the prefix shared with the previous request read from the "
        "prompt cache; estimated: tokens from characters, where no provider reported them. "
        "evidence lost: the tool calls made from a window without the tool result their "
        "argument came from, of those that took an argument from earlier tool evidence."
    )
    lines += ["", *wrap(notes)]
    if unpriced:
        names = ", ".join(repr(m) for m in unpriced)
        lines += wrap(f"no list price is known for {names}: pass --pricing MODEL to price it")
    if output is not None:
        lines += wrap(f"comparison written to {written or output}")
    for line in lines:
        print(line)
    return 0
