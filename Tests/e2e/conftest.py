"""Shared pytest settings for the end-to-end suite.

`make test` runs the suite in two phases: everything not marked `timing` in parallel (one
worker per test file), then the `timing` tests alone, so that a test asserting a latency or a
rate never shares the two cores with the rest of the suite.
"""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "timing: asserts a latency, a rate or a deadline; run alone in the serial phase of make test")
