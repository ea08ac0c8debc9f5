"""What the docs tests share when they open a page of the built site in Chromium."""

from __future__ import annotations

from typing import Any

__all__ = ["open_offline"]


def open_offline(browser: Any, url: str) -> tuple[Any, list[str], list[str]]:
    """A new page at ``url`` with the network refused: the page, what it asked the network
    for and its JavaScript errors."""
    asked: list[str] = []
    errors: list[str] = []
    page = browser.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def refuse(route: Any) -> None:
        if route.request.url.startswith(("http:", "https:")):
            asked.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route("**/*", refuse)
    page.goto(url, wait_until="load")
    return page, asked, errors
