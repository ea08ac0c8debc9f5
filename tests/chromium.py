"""Headless Chromium for the browser tests: the Debian system browser (``/usr/bin/chromium``,
which CI's ``.ci/run`` installs) driven by Playwright for Python's sync API.

A missing browser or a missing Playwright fails the test that asked for it, saying what to
install; it never skips. :func:`launched_chromium` is the one way the suite starts a browser;
the ``browser`` fixture (``tests/conftest.py``) gives one per module.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def sync_playwright() -> Any:
    """Playwright's ``sync_playwright``, or a failure saying how to install it."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the dev extra installs it
        pytest.fail(
            "playwright is not installed: run `.venv/bin/pip install playwright` (it is in the "
            "dev extra). Never `playwright install`: the tests use the system Chromium."
        )
    return sync_playwright


@contextmanager
def launched_chromium() -> Iterator[Any]:
    """A launched headless Chromium, closed on the way out."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (`apt-get install -y chromium`); "
            "CI's .ci/run does this before `make test`."
        )
    with sync_playwright()() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


COLOR_JS = """
const parse = (c) => {
  const m = (c || '').match(/rgba?\\(([^)]+)\\)/);
  if (!m) {
    const hex = (c || '').match(/^#([0-9a-f]{6})$/i);
    if (hex) return [0, 2, 4].map(i => parseInt(hex[1].slice(i, i + 2), 16)).concat([1]);
    if (c === 'white') return [255, 255, 255, 1];
    return [0, 0, 0, 0];
  }
  const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
};
const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3]))
  .concat([1]);
const lum = (c) => {
  const [r, g, b] = c.slice(0, 3).map(v => {
    v = v / 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const ratio = (x, y) => {
  const [a, b] = [lum(x), lum(y)].sort((p, q) => q - p);
  return (a + 0.05) / (b + 0.05);
};
const background = (el) => {
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const c = parse(getComputedStyle(e).backgroundColor);
    if (c[3] > 0) layers.push(c);
    if (c[3] >= 1) break;
  }
  let color = [255, 255, 255, 1];
  for (let i = layers.length - 1; i >= 0; i--) color = over(layers[i], color);
  return color;
};
"""
"""Colour helpers in the page: CSS colours parsed, composited and measured (WCAG 2)."""
