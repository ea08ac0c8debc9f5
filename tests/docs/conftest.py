"""The documentation site, built once for every test of ``tests/docs`` that needs it: the
strict build (``mkdocs build --strict``, as ``make docs`` runs it) takes minutes, so
``test_site.py`` (what the build wrote) and ``test_site_from_disk.py`` (the site opened from
disk in Chromium) share one.

The suite's build renders each notebook from its committed outputs (``FOOTPRINT_DOCS_EXECUTE=0``):
``make test`` executes every notebook under nbval already, and executing them again here cost
two and a half minutes of a fresh clone's run. The hook's execution itself is checked on a
notebook in ``test_hook.py``; ``make docs`` executes them all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def docs_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hook's cache folder of the suite's build (``FOOTPRINT_DOCS_CACHE``): the notebooks
    as committed, made offline, are written under ``committed/notebooks/``."""
    return tmp_path_factory.mktemp("docs-cache")


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory, docs_cache: Path) -> Path:
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
        "FOOTPRINT_DOCS_EXECUTE": "0",
        "FOOTPRINT_DOCS_CACHE": str(docs_cache),
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
