"""Headless Chromium (Debian's chromium + chromium-driver) pointed at the real server.

Chromium is told to accept exactly our server's public key (an SPKI pin of the certificate
the server generated), never to ignore certificate errors in general.
"""
from __future__ import annotations

import base64
import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def spki_pin(cert_path: str) -> str:
    certificate = x509.load_pem_x509_certificate(open(cert_path, "rb").read())
    spki = certificate.public_key().public_bytes(serialization.Encoding.DER,
                                                 serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


def chromium_binary() -> str:
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser", shutil.which("chromium") or ""):
        if candidate and os.path.exists(candidate):
            return candidate
    raise RuntimeError("chromium is not installed (make test installs Debian's chromium)")


def chromedriver_binary() -> str:
    for candidate in ("/usr/bin/chromedriver", shutil.which("chromedriver") or ""):
        if candidate and os.path.exists(candidate):
            return candidate
    raise RuntimeError("chromedriver is not installed (make test installs Debian's chromium-driver)")


class Browser:
    """One headless Chromium with its own profile, sized like a phone or a projector."""

    def __init__(self, server, width: int, height: int, mobile: bool = False):
        self.profile = tempfile.TemporaryDirectory(prefix="gather-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = chromium_binary()
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", "--disable-background-networking", "--disable-component-update",
                         f"--user-data-dir={self.profile.name}", f"--window-size={width},{height}",
                         f"--ignore-certificate-errors-spki-list={spki_pin(os.path.join(server.cert_dir, 'server.pem'))}"):
            options.add_argument(argument)
        if mobile:
            options.add_experimental_option("mobileEmulation", {
                "deviceMetrics": {"width": width, "height": height, "pixelRatio": 3.0}})
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(chromedriver_binary()), options=options)
        self.driver.set_page_load_timeout(20)
        self.server = server

    def open(self, path: str):
        self.driver.get(self.server.base_url + path)
        return self

    def find(self, css: str):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def text(self, css: str) -> str:
        return self.find(css).text

    def wait(self, predicate, timeout: float = 10, what: str = "condition"):
        deadline = time.monotonic() + timeout
        last_error = None
        while time.monotonic() < deadline:
            try:
                value = predicate()
                if value:
                    return value
            except Exception as error:  # the element may not exist yet
                last_error = error
            time.sleep(0.05)
        raise TimeoutError(f"timed out waiting for {what} ({last_error})")

    def wait_text(self, css: str, expected: str, timeout: float = 10):
        return self.wait(lambda: self.text(css) == expected, timeout, f"{css} == {expected!r}")

    def content(self, css: str) -> str:
        """Text of an element even while it is hidden (another tab)."""
        return self.find(css).get_attribute("textContent")

    def click(self, css: str):
        self.find(css).click()

    def fill(self, css: str, value: str):
        element = self.find(css)
        element.clear()
        element.send_keys(value)

    def overflow(self) -> tuple[int, int]:
        return self.driver.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth];")

    def foreign_requests(self) -> list[str]:
        names = self.driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name).concat([location.href]);")
        origin = self.server.base_url
        wss = origin.replace("https://", "wss://")
        return [name for name in names if not (name.startswith(origin) or name.startswith(wss))]

    def console_errors(self) -> list[str]:
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def screenshot(self, name: str):
        ARTIFACTS.mkdir(exist_ok=True)
        self.driver.save_screenshot(str(ARTIFACTS / name))

    def close(self):
        try:
            self.driver.quit()
        finally:
            self.profile.cleanup()
