"""Notebook 01 runs in a real JupyterLab, in headless Chromium, and its Inspector works there.

Starts JupyterLab headless on 127.0.0.1 (a free port, a token, no browser of its own) over a
temporary copy of ``notebooks/``, with every Jupyter directory (config, data, runtime,
settings, workspaces) temporary too — so a developer's own kernels and settings play no part —
and nothing that reaches the network: no news, no update check, the read-only extension
manager (and the test fails on any browser request leaving 127.0.0.1). The only kernel spec is
``python3`` running this Python (the repo's ``.venv``), with the venv's ipywidgets, anywidget
and plotly lab extensions. Playwright for Python (sync API) drives the system browser at
/usr/bin/chromium (the Debian package; no ``playwright install``).

In a first browser session it opens notebook 01, clears its committed outputs, runs all cells
from the Run menu and waits for the kernel to be idle; checks the Inspector renders (its tabs,
a chart) and that moving its Boundary slider changes the boundary table — the anywidget pane
shows exactly the BoundaryView the kernel holds; runs the Inspector's
cell again and checks, in the kernel, that the replaced Inspector was closed (as many widgets
open as before); saves. In a fresh browser context (a new session on the same kernel) it opens
the notebook again and checks the Inspector comes back from the kernel as it was left. Neither
session's console may hold an error or a widget failure ("Failed to load model class", "model
not found" ...). Screenshots go to ``tmp_path``; on a failure, the page and its console too.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from footprint_lab.lab.widgets import INSPECTOR_TABS
from tests.chromium import launched_chromium

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = "01-quickstart.ipynb"
START_TIMEOUT = 90.0
"""Seconds JupyterLab may take to answer (2 slow cores)."""
RUN_TIMEOUT_MS = 150_000
"""Milliseconds notebook 01 may take to run all its cells, kernel start included."""
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
INSPECTOR_CELL = "inspector = Inspector(run)"
"""The source line of notebook 01's Inspector cell."""
COUNT_WIDGETS = (
    "from ipywidgets.widgets.widget import _instances as _open_widgets\n"
    "from footprint_lab.lab import Inspector as _Inspector\n"
    "print(len(_open_widgets),"
    " sum(isinstance(w, _Inspector) for w in list(_open_widgets.values())))"
)
"""Code printing how many widgets are open in the kernel, and how many are Inspectors."""
PANE_HOLDS = (
    "import json as _json\n"
    "_view = inspector.boundary\n"
    "(_step,) = _view.iterations\n"
    "print(_json.dumps({'iteration': str(_step.iteration), 'caption': _step.caption,"
    " 'sentences': [r.sentence for r in _step.records],"
    " 'sent': [_view.messages[ref].stage_id for ref, _ in _step.window],"
    " 'left': [_view.messages[ref].stage_id for ref, _, _ in _step.left]}))"
)
"""Code printing, in the kernel, what the Inspector's Boundary pane holds (its BoundaryView)."""
PANE_SHOWS = """() => {
    const pane = document.querySelector('.footprint-boundary-table');
    const ids = (t) => Array.from(pane.querySelectorAll(t + ' tbody tr')).map(
        tr => tr.dataset.stageId);
    return {iteration: pane.dataset.iteration,
            caption: pane.querySelector('.boundary-caption').textContent,
            sentences: Array.from(pane.querySelectorAll('.b-sentence')).map(p => p.textContent),
            sent: ids('table.boundary-sent'), left: ids('table.boundary-left')};
}"""
"""What the Boundary pane shows in the page, in the same shape."""
UI_TIMEOUT_MS = 60_000
"""Milliseconds the page may take to show something (the lab shell, a widget view)."""

WIDGET_ERRORS = (
    "Error",
    "failed to load model class",
    "widget model not found",
    "model not found",
    "could not create a model",
    "could not create view",
    "error displaying widget",
)
"""Words in a console message that mean something failed — a widget that did not load or
render above all (any message with "Error", or one of the others in any case)."""

SERVER_CONFIG: dict[str, Any] = {
    "ServerApp": {"terminals_enabled": False},
    "LabApp": {
        "news_url": None,
        "check_for_updates_class": "jupyterlab.handlers.announcements.NeverCheckForUpdate",
        "extension_manager": "readonly",
    },
    "KernelSpecManager": {"ensure_native_kernel": False},
    "MappingKernelManager": {"default_kernel_name": "python3"},
}
"""``jupyter_server_config.json`` of the temporary config directory."""

USER_SETTINGS: dict[str, dict[str, Any]] = {
    # no news, no update check, no toasts over the notebook
    "@jupyterlab/apputils-extension/notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
        "doNotDisturbMode": True,
    },
    # every cell in the DOM, so widget views render wherever they are on the page
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}

PAGE_CONFIG: dict[str, Any] = {
    "disabledExtensions": {
        "@jupyterlab/extensionmanager-extension": True,
        "@jupyterlab/apputils-extension:announcements": True,
    }
}
"""``labconfig/page_config.json``: front-end plugins that would call the network."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Lab:
    """A running JupyterLab: its base URL, token, root folder, log file and runtime folder
    (where the kernels' connection files are)."""

    url: str
    token: str
    root: Path
    log: Path
    runtime: Path

    def api(self, path: str) -> Any:
        request = urllib.request.Request(
            f"{self.url}{path}", headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read().decode("utf-8"))

    def page(self, notebook: str) -> str:
        return f"{self.url}/lab/tree/{notebook}?token={self.token}"

    def kernel_says(self, notebook: str, code: str) -> str:
        """What ``code`` prints when run in the kernel of ``notebook``'s session, through a
        client of our own (not stored in the kernel's history, so no prompt changes)."""
        from jupyter_client import BlockingKernelClient

        (session,) = [s for s in self.api("/api/sessions") if s["path"] == notebook]
        client = BlockingKernelClient(
            connection_file=str(self.runtime / f"kernel-{session['kernel']['id']}.json")
        )
        client.load_connection_file()
        client.start_channels()
        printed: list[str] = []

        def collect(msg: dict[str, Any]) -> None:
            if msg["msg_type"] == "stream":
                printed.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                printed.append("\n".join(msg["content"]["traceback"]))

        try:
            client.wait_for_ready(timeout=30)
            reply = client.execute_interactive(
                code, store_history=False, output_hook=collect, timeout=60
            )
        finally:
            client.stop_channels()
        assert reply["content"]["status"] == "ok", "".join(printed)
        return "".join(printed)


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")


def _isolated_jupyter(home: Path) -> dict[str, str]:
    """An environment whose Jupyter directories are all under ``home``, with one kernel spec,
    ``python3``, running this Python."""
    dirs = {
        "JUPYTER_CONFIG_DIR": home / "config",
        "JUPYTER_DATA_DIR": home / "data",
        "JUPYTER_RUNTIME_DIR": home / "runtime",
        "JUPYTER_PATH": home / "path",
        "JUPYTERLAB_SETTINGS_DIR": home / "settings",
        "JUPYTERLAB_WORKSPACES_DIR": home / "workspaces",
        "IPYTHONDIR": home / "ipython",
    }
    for folder in dirs.values():
        folder.mkdir(parents=True, exist_ok=True)
    _write_json(dirs["JUPYTER_CONFIG_DIR"] / "jupyter_server_config.json", SERVER_CONFIG)
    _write_json(dirs["JUPYTER_CONFIG_DIR"] / "labconfig" / "page_config.json", PAGE_CONFIG)
    for plugin, values in USER_SETTINGS.items():
        _write_json(dirs["JUPYTERLAB_SETTINGS_DIR"] / f"{plugin}.jupyterlab-settings", values)
    kernel = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    _write_json(dirs["JUPYTER_PATH"] / "kernels" / "python3" / "kernel.json", kernel)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "IPYTHON"))}
    env.update({name: str(folder) for name, folder in dirs.items()})
    env["FOOTPRINT_LAB_QUIET"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    return env


@contextmanager
def jupyterlab(tmp_path: Path) -> Iterator[Lab]:
    """JupyterLab on 127.0.0.1 over a copy of ``notebooks/`` (``data/`` beside it, as in the
    repo), stopped in a ``finally``."""
    root = tmp_path / "work" / "notebooks"
    root.mkdir(parents=True)
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy2(notebook, root / notebook.name)
    (root.parent / "data").symlink_to(ROOT / "data", target_is_directory=True)
    env = _isolated_jupyter(tmp_path / "jupyter")
    port, token = _free_port(), secrets.token_hex(16)
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.extension_manager=readonly",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: when the kernel is ready
    ]
    if hasattr(os, "getuid") and os.getuid() == 0:
        command.append("--allow-root")  # containers and CI run as root
    log = tmp_path / "jupyterlab.log"
    runtime = Path(env["JUPYTER_RUNTIME_DIR"])
    lab = Lab(f"http://127.0.0.1:{port}", token, root, log, runtime)
    with log.open("wb") as out:
        server = subprocess.Popen(
            command, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while True:
                if server.poll() is not None:
                    pytest.fail(f"JupyterLab exited ({server.returncode}):\n{log.read_text()}")
                try:
                    lab.api("/api/status")
                    break
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    if time.monotonic() > deadline:
                        pytest.fail(f"JupyterLab did not answer in time:\n{log.read_text()}")
                    time.sleep(0.5)
            yield lab
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(timeout=10)


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    """A running JupyterLab (:func:`jupyterlab`)."""
    with jupyterlab(tmp_path) as running:
        yield running


class Console:
    """The browser console's messages, page errors and requests that leave 127.0.0.1, with the
    errors among them."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def listen(self, page: Any) -> None:
        page.on("console", lambda msg: self.messages.append(f"console {msg.type}: {msg.text}"))
        page.on("pageerror", lambda exc: self.messages.append(f"page error: {exc}"))
        page.on("request", self._request)

    def _request(self, request: Any) -> None:
        url: str = request.url
        if not url.startswith(("http://127.0.0.1:", "ws://127.0.0.1:", "data:", "blob:")):
            self.messages.append(f"page error: a request leaves the machine: {url}")

    def widget_errors(self) -> list[str]:
        """The console errors, page errors and messages naming a widget failure."""
        return [
            m
            for m in self.messages
            if m.startswith(("console error", "page error"))
            or WIDGET_ERRORS[0] in m
            or any(words in m.lower() for words in WIDGET_ERRORS[1:])
        ]


def _open_notebook(
    context: Any, lab: Lab, console: Console, cells: int, notebook: str = NOTEBOOK
) -> Any:
    """A new page showing ``notebook``: all its ``cells`` there and its kernel connected and
    idle, as the app itself says (``window.jupyterapp``: the status bar says idle a little
    before the session has its kernel, and a cell run then does nothing)."""
    page = context.new_page()
    console.listen(page)
    page.goto(lab.page(notebook), wait_until="domcontentloaded", timeout=UI_TIMEOUT_MS)
    page.wait_for_function(
        """n => {
            const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
            const session = panel && panel.sessionContext;
            const kernel = session && session.session && session.session.kernel;
            return Boolean(panel && panel.content && panel.context && panel.context.isReady
                && panel.content.widgets.length === n && session.isReady && kernel
                && kernel.connectionStatus === 'connected' && kernel.status === 'idle');
        }""",
        arg=cells,
        timeout=RUN_TIMEOUT_MS,
        polling=250,
    )
    return page


def _menu(page: Any, menu: str, item: str) -> None:
    """Click ``item`` of the menu bar's ``menu``."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{menu}$")).first.click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{item}$")).first.click()


PROMPTS = """() => Array.from(document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt'))
    .map(p => p.textContent.trim())"""
"""The code cells' prompts: ``[ ]:`` not run, ``[*]:`` running or queued, ``[3]:`` done."""


def _wait_until_all_ran(page: Any, code_cells: int) -> None:
    """Every code cell has an execution count and the kernel is idle again (the indicator
    alone turns idle between two queued cells); fails at once on an error output."""
    page.wait_for_function(
        f"""n => {{
            const prompts = ({PROMPTS})();
            const indicator = document.querySelector('.jp-Notebook-ExecutionIndicator');
            if (document.querySelector('.jp-OutputArea-output[data-mime-type*="error"]')) {{
                return true;  // a cell failed: Run All stops there
            }}
            return prompts.length === n && prompts.every(p => /^\\[\\d+\\]:$/.test(p))
                && indicator !== null && indicator.dataset.status === 'idle';
        }}""",
        arg=code_cells,
        timeout=RUN_TIMEOUT_MS,
        polling=500,
    )
    failed = page.locator('.jp-OutputArea-output[data-mime-type*="error"]')
    if failed.count():
        pytest.fail(f"a cell of {NOTEBOOK} failed in JupyterLab:\n{failed.first.inner_text()}")


def _boundary_text(page: Any) -> str:
    text: str = page.locator(".footprint-boundary-table").first.inner_text()
    return text


@contextmanager
def _screenshot_on_failure(page: Any, path: Path, console: Console) -> Iterator[None]:
    """On a failure, keep what the page showed and what the console said."""
    try:
        yield
    except BaseException:
        page.screenshot(path=str(path), full_page=True)
        state = page.evaluate(PROMPTS)
        path.with_suffix(".console.txt").write_text(
            "\n".join([*console.messages, f"prompts: {state}"]), "utf-8"
        )
        raise


def _run_and_inspect(page: Any, lab: Lab, code_cells: int, tmp_path: Path) -> str:
    """Run all cells; the Inspector renders, and its Boundary slider moves the table. Returns
    the boundary table's text at the end."""
    page.screenshot(path=str(tmp_path / "01-opened.png"))
    # the committed outputs and counts go first, so what follows is this run's
    _menu(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(f"() => ({PROMPTS})().every(p => p === '[ ]:')")
    _menu(page, "Run", "Run All Cells")
    _wait_until_all_ran(page, code_cells)

    inspector = page.locator(".footprint-inspector").first
    inspector.wait_for(state="visible", timeout=UI_TIMEOUT_MS)
    tabs = inspector.locator(".footprint-inspector-tabs .lm-TabBar-tab")
    assert [t.strip() for t in tabs.all_inner_texts()] == list(INSPECTOR_TABS)
    inspector.scroll_into_view_if_needed()
    # the Overview's window-size chart, drawn by plotly.js in the FigureWidget's view
    inspector.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=UI_TIMEOUT_MS)
    page.screenshot(path=str(tmp_path / "02-ran.png"))

    tabs.filter(has_text="Boundary").first.click()
    slider = inspector.locator(".footprint-boundary-slider")
    slider.wait_for(state="visible", timeout=UI_TIMEOUT_MS)
    # iteration 5, the first removal (where the Inspector starts, and where cell 17 set it)
    page.wait_for_function(
        "() => /Iteration 5 /.test(document.querySelector('.footprint-inspector').innerText)",
        timeout=UI_TIMEOUT_MS,
    )
    before = _boundary_text(page)
    assert "seed#0" in before
    handle = slider.locator(".noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")
    page.wait_for_function(
        """before => {
            const pane = document.querySelector('.footprint-boundary-table');
            return pane !== null && pane.innerText !== before;
        }""",
        arg=before,
        timeout=UI_TIMEOUT_MS,
    )
    assert _boundary_text(page) != before
    assert "Iteration 6 " in inspector.inner_text()
    inspector.screenshot(path=str(tmp_path / "03-boundary-moved.png"))
    # the pane is boundary.js over the kernel's BoundaryView: it shows what the model holds
    shown = page.evaluate(PANE_SHOWS)
    held = json.loads(lab.kernel_says(NOTEBOOK, PANE_HOLDS))
    assert shown == held, (shown, held)
    assert shown["iteration"] == "6" and shown["sentences"]

    # the kernel that ran the notebook is this Python (the repo's .venv)
    assert lab.kernel_says(NOTEBOOK, "import sys; print(sys.executable)").strip() == sys.executable

    # run the Inspector's cell again: the new Inspector replaces the old, which is closed
    open_widgets = lab.kernel_says(NOTEBOOK, COUNT_WIDGETS)
    assert open_widgets.split()[1] == "1", open_widgets  # one Inspector, open
    cell = page.locator(".jp-CodeCell", has_text=INSPECTOR_CELL).first
    prompt = cell.locator(".jp-InputArea-prompt").first
    ran = prompt.inner_text().strip()
    prompt.click()
    _menu(page, "Run", "Run Selected Cell and Do not Advance")
    page.wait_for_function(
        """([text, ran]) => {
            const cell = Array.from(document.querySelectorAll('.jp-CodeCell'))
                .find(c => c.innerText.includes(text));
            const prompt = cell && cell.querySelector('.jp-InputArea-prompt').textContent.trim();
            return prompt && prompt !== ran && /^\\[\\d+\\]:$/.test(prompt);
        }""",
        arg=[INSPECTOR_CELL, ran],
        timeout=RUN_TIMEOUT_MS,
    )
    inspector = page.locator(".footprint-inspector")
    inspector.first.wait_for(state="visible", timeout=UI_TIMEOUT_MS)
    assert inspector.count() == 1
    current = inspector.locator(".footprint-inspector-tabs .lm-TabBar-tab.lm-mod-current")
    assert current.inner_text().strip() == "Overview"  # a new Inspector, not the old one
    # in the kernel: as many widgets open as before, the replaced Inspector's all closed
    assert lab.kernel_says(NOTEBOOK, COUNT_WIDGETS) == open_widgets
    inspector.locator(".footprint-inspector-tabs .lm-TabBar-tab", has_text="Boundary").click()
    table = inspector.locator(".footprint-boundary-table")
    table.wait_for(state="visible", timeout=UI_TIMEOUT_MS)
    after = _boundary_text(page)
    assert "seed#0" in after

    # save (the widget views go into the file), for the next session to open
    _menu(page, "File", "Save Notebook")
    deadline = time.monotonic() + UI_TIMEOUT_MS / 1000
    while WIDGET_VIEW not in (lab.root / NOTEBOOK).read_text(encoding="utf-8"):
        assert time.monotonic() < deadline, "the notebook was not saved"
        time.sleep(0.25)
    return after


def _reopened(page: Any, boundary: str, tmp_path: Path) -> None:
    """The saved notebook, opened in a new session on the same kernel: the Inspector comes
    back from the kernel as it was left — Boundary tab open, the same table."""
    inspector = page.locator(".footprint-inspector").first
    inspector.wait_for(state="visible", timeout=UI_TIMEOUT_MS)
    inspector.scroll_into_view_if_needed()
    tabs = inspector.locator(".footprint-inspector-tabs .lm-TabBar-tab")
    assert [t.strip() for t in tabs.all_inner_texts()] == list(INSPECTOR_TABS)
    current = inspector.locator(".footprint-inspector-tabs .lm-TabBar-tab.lm-mod-current")
    assert current.inner_text().strip() == "Boundary"
    table = inspector.locator(".footprint-boundary-table")
    table.wait_for(state="visible", timeout=UI_TIMEOUT_MS)
    assert _boundary_text(page) == boundary
    tabs.filter(has_text="Window map").first.click()
    inspector.locator(".js-plotly-plot .heatmaplayer image").first.wait_for(
        state="visible", timeout=UI_TIMEOUT_MS
    )  # the map's FigureWidget view came back too, and drew
    page.screenshot(path=str(tmp_path / "04-reopened.png"))


def test_notebook_01_runs_in_jupyterlab_and_its_inspector_works(lab: Lab, tmp_path: Path) -> None:
    specs = lab.api("/api/kernelspecs")
    assert list(specs["kernelspecs"]) == ["python3"]
    assert specs["kernelspecs"]["python3"]["spec"]["argv"][0] == sys.executable
    notebook = json.loads((lab.root / NOTEBOOK).read_text(encoding="utf-8"))
    cells = len(notebook["cells"])
    code_cells = sum(1 for c in notebook["cells"] if c["cell_type"] == "code")

    first, second = Console(), Console()
    with launched_chromium() as browser:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = _open_notebook(context, lab, first, cells)
        with _screenshot_on_failure(page, tmp_path / "failure-first.png", first):
            boundary = _run_and_inspect(page, lab, code_cells, tmp_path)
        context.close()
        assert first.widget_errors() == [], "\n".join(first.messages)

        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = _open_notebook(context, lab, second, cells)
        with _screenshot_on_failure(page, tmp_path / "failure-second.png", second):
            _reopened(page, boundary, tmp_path)
        context.close()
        assert second.widget_errors() == [], "\n".join(second.messages)
