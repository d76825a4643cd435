"""Shared pytest settings for the end-to-end suite.

`make test` runs the suite in two phases: everything not marked `timing` in parallel (one
worker per test file), then the `timing` tests alone, so that a test asserting a latency or a
rate never shares the two cores with the rest of the suite.
"""
import pytest

from pages_support import Browser


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "timing: asserts a latency, a rate or a deadline; run alone in the serial phase of make test")


@pytest.fixture()
def browsers():
    """Opens headless Chromium windows (a phone by default) and closes them after the test."""
    opened = []

    def open_browser(server, width=390, height=844):
        browser = Browser(server, width, height)
        opened.append(browser)
        return browser
    yield open_browser
    for browser in opened:
        browser.close()
