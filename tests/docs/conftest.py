"""The documentation site, built once for every test of ``tests/docs`` that needs it: the
strict build (``mkdocs build --strict``, as ``make docs`` runs it) takes minutes, so
``test_site.py`` (what the build wrote) and ``test_site_from_disk.py`` (the site opened from
disk in Chromium) share one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly into a temporary folder, offline: the SDKs' keys unset and every
    HTTP(S) client of the build and its kernels pointed at a closed port. Built once per session:
    every test of ``tests/docs`` that reads or opens the site shares it."""
    out = tmp_path_factory.mktemp("site")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    closed = "http://127.0.0.1:9"
    env |= {
        "HTTP_PROXY": closed,
        "HTTPS_PROXY": closed,
        "http_proxy": closed,
        "https_proxy": closed,
        "NO_PROXY": "",
        "no_proxy": "",
        "NO_MKDOCS_2_WARNING": "1",
    }
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        log = "\n".join(line for line in built.stderr.splitlines() if "IPKernelApp" not in line)
        pytest.fail(f"`mkdocs build --strict` failed (exit {built.returncode}):\n{log[-6000:]}")
    return out
