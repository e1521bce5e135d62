"""What the web page tests share: the API served on a free loopback port in a thread, and
Debian's Chromium driven headless by Playwright (no browser download: the system one)."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI

from tests.conftest import free_port

# The flags that work on these machines: without the background-networking ones Chromium
# keeps trying hosts the closed network refuses.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def chromium_path() -> str:
    path = os.environ.get("GECHAT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    if os.environ.get("GECHAT_REQUIRE_BROWSER"):
        pytest.fail("Chromium is not installed (apt-get install chromium); `make test` installs it")
    pytest.skip("Chromium is not installed (apt-get install chromium)")


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    """Serves ``app`` on 127.0.0.1 until the block ends; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


@contextmanager
def browser_page(base_url: str) -> Iterator[Any]:
    """A fresh headless Chromium page (new profile) at ``base_url``; fails the test on any
    JavaScript error the page raises."""
    sync_api = pytest.importorskip("playwright.sync_api")
    errors: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.set_default_timeout(30_000)
            page.goto(base_url + "/")
            yield page
        finally:
            browser.close()
    assert not errors, f"the page raised: {errors}"


def page_rect(page: Any, selector: str) -> dict[str, float]:
    """An element's box as fractions of its page frame's width and height (0..1)."""
    rect: dict[str, float] = page.eval_on_selector(selector, """el => {
        const f = el.closest('.page').getBoundingClientRect(), r = el.getBoundingClientRect();
        return {x0: (r.left - f.left) / f.width, y0: (r.top - f.top) / f.height,
                x1: (r.right - f.left) / f.width, y1: (r.bottom - f.top) / f.height};
    }""")
    return rect
