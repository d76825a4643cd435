"""The pages' JavaScript modules tested on their own: the files served from a temporary folder on
loopback next to a test page, opened in headless Chromium (no gather server needed)."""
from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import tempfile
import threading
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from pages_support import chromedriver_binary, chromium_binary


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def module_page(files: dict[str, Path], page: str, ready: str, prefix: str):
    """A Chromium driver on `page` (index.html) served with `files` (name in the folder → a file or
    folder to copy), once the page has set `window[ready]` to true (at most 10 s)."""
    with tempfile.TemporaryDirectory(prefix=f"{prefix}-") as root, \
            tempfile.TemporaryDirectory(prefix=f"{prefix}-chromium-") as profile:
        for name, source in files.items():
            copy = shutil.copytree if source.is_dir() else shutil.copy
            copy(source, Path(root) / name)
        (Path(root) / "index.html").write_text(page)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=root))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        options = webdriver.ChromeOptions()
        options.binary_location = chromium_binary()
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", "--disable-background-networking", "--disable-component-update",
                         f"--user-data-dir={profile}"):
            options.add_argument(argument)
        driver = None
        try:
            driver = webdriver.Chrome(service=Service(chromedriver_binary()), options=options)
            driver.set_page_load_timeout(20)
            driver.set_script_timeout(20)
            driver.get(f"http://127.0.0.1:{server.server_address[1]}/")
            deadline = time.monotonic() + 10
            while not driver.execute_script(f"return window.{ready} === true"):
                assert time.monotonic() < deadline, f"the page's modules did not load ({ready} never set)"
                time.sleep(0.05)
            yield driver
        finally:
            if driver is not None:
                driver.quit()
            server.shutdown()
            server.server_close()
