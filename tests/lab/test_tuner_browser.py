"""The Tuner on an imported run, in a real JupyterLab in headless Chromium: a slider move
replays the run and redraws it, and the latency the Tuner measured is read from the page.

Uses the JupyterLab of :mod:`tests.lab.test_jupyterlab_browser` (temporary, isolated, nothing
reaching the network). A notebook of its own, written beside the copied ones, builds a Tuner
over a 200-call run imported from the tau-bench file (its conversations chained: no single
real file here has 200 calls) and shows it. The test runs it, moves the ``keep_recent_turns``
slider with the keyboard, waits for the Tuner's summary to name the new setting and the
window-size chart's data to change, checks the page shows what the kernel holds, reads the
"Last redraw" readout and reports it (printed, and as the test's ``tuner_latency_ms``
property) — no timing is asserted. It also checks that the window map's title fits inside its
chart.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.chromium import launched_chromium
from tests.lab.test_jupyterlab_browser import (
    PROMPTS,
    RUN_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    Console,
    Lab,
    _menu,
    _open_notebook,
    _screenshot_on_failure,
    jupyterlab,
)

NOTEBOOK = "tuner-on-an-imported-run.ipynb"
CELLS = [
    "import json\n"
    "from pathlib import Path\n"
    "from footprint_lab.importers import from_openai\n"
    "from footprint_lab.lab import Tuner\n"
    "entries = json.loads(Path('../data/tau-bench/gpt-4o-airline-dev.json').read_text())\n"
    "messages = []\n"
    "for entry in entries:\n"
    "    traj = entry['traj']\n"
    "    messages.extend(traj if not messages else [m for m in traj if m['role'] != 'system'])\n"
    "    if sum(m['role'] == 'assistant' for m in messages) >= 200:\n"
    "        break\n"
    "run = from_openai(messages)\n"
    "print(len(run.calls), 'calls')",
    "tuner = Tuner(run, 'sliding_window', frontier=False, keep_recent_turns=(1, 12))\ntuner",
]
"""The notebook's code cells: import a 200-call run, show a Tuner over it."""

HOLDS = (
    "import json as _json\n"
    "print(_json.dumps({'config': tuner.config, 'runs': tuner.runs,"
    " 'chars': [c.chars for c in tuner.run.calls], 'latency': tuner.latency_ms}))"
)
"""Code printing, in the kernel, the Tuner's setting, its run count, what its run sent and its
last redraw's latency."""

PLOTS = "Array.from(document.querySelectorAll('.footprint-tuner .js-plotly-plot'))"
"""The Tuner's charts in the page, in order: window size, window map (then the frontier)."""

SIZE_Y = f"""() => {{
    const plot = {PLOTS}[0];
    const traces = (plot && (plot._fullData || plot.data)) || [];
    const trace = traces.find(t => t.name === 'chars sent');
    return trace ? Array.from(trace.y) : traces.map(t => [t.name, typeof t.y]);
}}"""
"""The window-size chart's "chars sent" values, as plotly.js holds them in the page."""

TITLE_FITS = f"""() => {{
    const plot = {PLOTS}[1];
    const svg = plot.querySelector('.main-svg').getBoundingClientRect();
    const title = plot.querySelector('.gtitle').getBoundingClientRect();
    return {{svgLeft: svg.left, svgRight: svg.right, left: title.left, right: title.right,
            lines: plot.querySelectorAll('.gtitle .line').length}};
}}"""
"""Where the window map's title is drawn, against its chart's edges."""


def _notebook() -> dict[str, Any]:
    return {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": f"cell-{i}",
                "metadata": {},
                "outputs": [],
                "source": source,
            }
            for i, source in enumerate(CELLS)
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _run_all(page: Any) -> None:
    _menu(page, "Run", "Run All Cells")
    page.wait_for_function(
        f"""n => {{
            const prompts = ({PROMPTS})();
            const indicator = document.querySelector('.jp-Notebook-ExecutionIndicator');
            if (document.querySelector('.jp-OutputArea-output[data-mime-type*="error"]')) {{
                return true;
            }}
            return prompts.length === n && prompts.every(p => /^\\[\\d+\\]:$/.test(p))
                && indicator !== null && indicator.dataset.status === 'idle';
        }}""",
        arg=len(CELLS),
        timeout=RUN_TIMEOUT_MS,
        polling=500,
    )
    failed = page.locator('.jp-OutputArea-output[data-mime-type*="error"]')
    if failed.count():
        pytest.fail(f"a cell of {NOTEBOOK} failed in JupyterLab:\n{failed.first.inner_text()}")


def _drive(page: Any, lab: Lab, tmp_path: Path) -> float:
    """Move the keep_recent_turns slider one step; the Tuner redraws. Returns the latency the
    page shows (ms)."""
    tuner = page.locator(".footprint-tuner").first
    tuner.wait_for(state="visible", timeout=UI_TIMEOUT_MS)
    tuner.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=UI_TIMEOUT_MS)
    latency = tuner.locator(".footprint-tuner-latency")
    assert "ms" in latency.inner_text()
    held = json.loads(lab.kernel_says(NOTEBOOK, HOLDS))
    assert held["config"] == {"keep_recent_turns": 6, "keep_last_tool_results": 2}
    before = page.evaluate(SIZE_Y)
    assert before == held["chars"]
    page.screenshot(path=str(tmp_path / "tuner-opened.png"))

    handle = tuner.locator(".footprint-knob-keep_recent_turns .noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")
    page.wait_for_function(
        """() => document.querySelector('.footprint-tuner-summary').innerText
            .includes('keep_recent_turns=7')""",
        timeout=UI_TIMEOUT_MS,
    )
    page.wait_for_function(
        f"before => JSON.stringify(({SIZE_Y})()) !== JSON.stringify(before)",
        arg=before,
        timeout=UI_TIMEOUT_MS,
    )
    moved = json.loads(lab.kernel_says(NOTEBOOK, HOLDS))
    assert moved["config"] == {"keep_recent_turns": 7, "keep_last_tool_results": 2}
    assert moved["runs"] == held["runs"] + 1  # one move, one replay
    assert page.evaluate(SIZE_Y) == moved["chars"]  # the page shows what the kernel holds
    shown = re.search(r"(\d+) ms", latency.inner_text())
    assert shown is not None, latency.inner_text()
    assert int(shown.group(1)) == round(moved["latency"])
    fits = page.evaluate(TITLE_FITS)
    assert fits["lines"] >= 2, fits  # a long title, broken into lines
    assert fits["svgLeft"] <= fits["left"] and fits["right"] <= fits["svgRight"], fits
    tuner.screenshot(path=str(tmp_path / "tuner-moved.png"))
    return float(moved["latency"])


def test_the_tuner_redraws_an_imported_run_in_jupyterlab(
    tmp_path: Path, record_property: Any
) -> None:
    console = Console()
    with jupyterlab(tmp_path) as lab:
        (lab.root / NOTEBOOK).write_text(json.dumps(_notebook()), encoding="utf-8")
        with launched_chromium() as browser:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = _open_notebook(context, lab, console, len(CELLS), NOTEBOOK)
            with _screenshot_on_failure(page, tmp_path / "failure.png", console):
                _run_all(page)
                latency = _drive(page, lab, tmp_path)
            context.close()
    assert console.widget_errors() == [], "\n".join(console.messages)
    record_property("tuner_latency_ms", latency)
    print(f"\nTuner slider move on a 200-call imported run in JupyterLab: {latency:.0f} ms")
