"""The report opens offline in headless Chromium and every chart renders without errors.

Uses Playwright for Python (sync API) driving the system browser at /usr/bin/chromium (the
Debian package; CI installs it). A missing browser fails this test instead of skipping it.
"""

from __future__ import annotations

from pathlib import Path

from footprint_lab import Run
from footprint_lab.lab.report import render_report
from tests.chromium import launched_chromium
from tests.lab.conftest import tool_loop


def _render_in_browser(path: Path, expected_figures: int) -> None:
    errors: list[str] = []
    with launched_chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on(
            "console",
            lambda msg: (
                errors.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None
            ),
        )
        page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        page.on("requestfailed", lambda req: errors.append(f"request failed: {req.url}"))
        page.goto(path.resolve().as_uri(), wait_until="load")
        page.wait_for_function(
            "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
            arg=expected_figures,
            timeout=60_000,
        )
        plots = page.locator(".js-plotly-plot")
        assert plots.count() == expected_figures
        for i in range(expected_figures):
            assert plots.nth(i).locator(".main-svg").count() >= 1, f"figure {i} empty"
        # every trace was drawn: a heatmap image, bars, lines or WebGL canvases
        drawn = page.evaluate(
            """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(
                d => (d.data || []).length === 0 || d.querySelector(
                    '.heatmaplayer image, .barlayer path, .scatterlayer path, '
                    + '.scatterlayer .trace, canvas.gl-canvas') !== null)"""
        )
        assert all(drawn), [i for i, ok in enumerate(drawn) if not ok]
    assert errors == []


def test_demo_report_renders_every_chart(
    scenario_runs: dict[tuple[str, str], Run], tmp_path: Path
) -> None:
    runs: dict[str, dict[str, Run]] = {}
    for (scenario, label), run in scenario_runs.items():
        if label != "none":
            runs.setdefault(scenario, {})[label] = run
    report = render_report(runs)
    path = tmp_path / "footprint-report.html"
    path.write_text(report.html, encoding="utf-8")
    assert report.figures == sum(1 + 4 * len(by) for by in runs.values())
    _render_in_browser(path, report.figures)


def test_a_webgl_report_renders(tmp_path: Path) -> None:
    run = tool_loop(5_200)  # above WEBGL_THRESHOLD: Scattergl traces and a blocked map
    report = render_report({"long loop": {"sliding-window": run}})
    path = tmp_path / "big.html"
    path.write_text(report.html, encoding="utf-8")
    assert "scattergl" in report.html
    _render_in_browser(path, report.figures)
