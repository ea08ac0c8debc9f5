"""``Inspector.live`` in a real JupyterLab, in headless Chromium: the Inspector a cell displays
updates at every boundary while a scripted agent with a slowed provider runs, the kernel stays
free meanwhile, and it ends showing the finished run (#39 item 1) — its charts the widgets the
cell made, redrawn in place, the page's chart showing the finished run's points.

Uses the JupyterLab of :mod:`tests.lab.test_jupyterlab_browser` (isolated, 127.0.0.1 only, this
Python as the only kernel) over a notebook written for the test: one cell builds the agent and
displays ``Inspector.live(agent, request)``. The test reads the Inspector's "calls" number in
the page every 50 ms while the run goes on.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat

from tests.chromium import launched_chromium
from tests.lab.test_jupyterlab_browser import (
    RUN_TIMEOUT_MS,
    Console,
    Lab,
    _menu,
    _open_notebook,
    _screenshot_on_failure,
    _wait_until_all_ran,
    lab,
)

__all__ = ["lab"]  # the fixture, imported for this module's test

NOTEBOOK = "live-inspector.ipynb"
CALLS = 6
"""Calls the scripted run makes: five tool calls and the answer."""
CELL = f"""\
import asyncio
from footprint_lab import Agent, Reply, ScriptedProvider, sliding_window, tool
from footprint_lab.lab import Inspector

@tool
def read_log(part: int) -> str:
    "Read a part of the log."
    return f"part {{part}}: " + "line\\n" * 40

class Slow(ScriptedProvider):
    first = True
    async def complete(self, request):
        # a provider that takes its time; the first reply longer, while the page loads the
        # charts' script (seconds in a busy browser, when it shows nothing new)
        await asyncio.sleep(5 if self.first else 1.5)
        self.first = False
        return await super().complete(request)

replies = [Reply.tool_call("read_log", part=k) for k in range({CALLS - 1})]
agent = (Agent.create(provider=Slow(replies + [Reply.text("all read")]))
         .tools(read_log).window(sliding_window(keep_recent_turns=2)).build())
inspector = Inspector.live(agent, "read the whole log")
charts = dict(inspector.figures)
inspector
"""

CALLS_SHOWN = """() => {
    const cells = Array.from(document.querySelectorAll('.footprint-inspector th'));
    const label = cells.find(td => td.innerText.trim() === 'calls');
    return label && label.nextElementSibling ? label.nextElementSibling.innerText.trim() : null;
}"""
"""The Overview's "calls" number as the page shows it (null before the Inspector draws)."""
POINTS_SHOWN = """() => {
    const plot = document.querySelector('.footprint-inspector .js-plotly-plot');
    return plot && plot.data ? plot.data.map(t => (t.x || []).length) : null;
}"""
"""How many points each trace of the Overview's chart (window size) has in the page."""
FINISHED_POINTS = (
    "import json; from footprint_lab.lab import capture, plots\n"
    "print(json.dumps([len(t.x or ()) for t in plots.window_size(capture(inspector.run)).data]))"
)
"""Code printing the same for the window-size chart of the finished run, built afresh."""


def _write_notebook(root: Path) -> None:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL)])
    notebook.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    nbformat.write(notebook, root / NOTEBOOK)


def _watch_calls(page: Any, lab: Lab) -> tuple[list[int], list[str]]:
    """The "calls" numbers the page showed, in order, until the last; and what the kernel
    answered about the run while it was still going."""
    shown: list[int] = []
    asked: list[Future[str]] = []
    deadline = time.monotonic() + RUN_TIMEOUT_MS / 1000
    with ThreadPoolExecutor(1) as pool:  # the kernel is asked beside the page's polling
        while time.monotonic() < deadline:
            text = page.evaluate(CALLS_SHOWN)
            if text is not None and text.isdigit() and (not shown or int(text) != shown[-1]):
                shown.append(int(text))
                if 0 < int(text) < CALLS - 1 and not asked:  # the kernel, asked mid-run
                    asked.append(
                        pool.submit(lab.kernel_says, NOTEBOOK, "print(inspector.task.done())")
                    )
            if shown and shown[-1] == CALLS:
                break
            page.wait_for_timeout(50)
        return shown, [answer.result() for answer in asked]


def test_the_live_inspector_updates_in_jupyterlab_while_the_run_goes_on(
    lab: Lab, tmp_path: Path
) -> None:
    _write_notebook(lab.root)
    console = Console()
    with launched_chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = _open_notebook(context, lab, console, 1, NOTEBOOK)
        with _screenshot_on_failure(page, tmp_path / "failure.png", console):
            _menu(page, "Run", "Run All Cells")
            shown, answers = _watch_calls(page, lab)  # from the moment the cell runs
            _wait_until_all_ran(page, 1)
            page.screenshot(path=str(tmp_path / "live-finished.png"))
            # every call was shown as it was made (at least one redraw per boundary), in order
            assert shown == sorted(shown) and set(range(1, CALLS + 1)) <= set(shown), shown
            # the kernel answered while the run was still going: it was never held
            assert answers == ["False\n"], answers
            # and it ends as the Inspector of the finished run, its charts the ones the cell
            # made, redrawn in place (a new chart widget costs the page plotly's script again)
            done = lab.kernel_says(
                NOTEBOOK,
                "import json; print(json.dumps([inspector.run.status,"
                " inspector.numbers['calls'], inspector.task.done(),"
                " all(inspector.figures[n] is c for n, c in charts.items())]))",
            )
            assert json.loads(done) == ["done", CALLS, True, True]
            finished = json.loads(lab.kernel_says(NOTEBOOK, FINISHED_POINTS))
            page.wait_for_function(
                f"want => JSON.stringify(({POINTS_SHOWN})()) === JSON.stringify(want)",
                arg=finished,
                timeout=RUN_TIMEOUT_MS,
            )
        context.close()
    assert console.widget_errors() == [], "\n".join(console.messages)
