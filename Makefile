# Football Gather Live — the two commands of the README: `make run` and `make test`.
# Each installs what a fresh Debian 12 machine with Swift is missing, then builds.

SWIFT        ?= swift
PYTHON       ?= python3
HOST         ?= 0.0.0.0
PORT         ?= 8443
RUN_PACKAGES  = pkg-config libwebsockets-dev libwebsockets-evlib-ev libssl-dev libqrencode-dev
TEST_PACKAGES = $(RUN_PACKAGES) chromium chromium-driver
PY_PACKAGES   = pytest selenium websockets cryptography jsonpatch selenium-axe-python==2.2.0

.PHONY: run test build release deps-run deps-test deps-python unit-tests e2e-tests bench clean

run: deps-run release
	./.build/release/gather serve --host $(HOST) --port $(PORT) --data-dir data --cert-dir Certificates --public Public

test: deps-test deps-python build unit-tests e2e-tests

build:
	$(SWIFT) build --product gather

release:
	$(SWIFT) build -c release --product gather

unit-tests:
	$(SWIFT) test

e2e-tests: build
	GATHER_BIN=$(CURDIR)/.build/debug/gather $(PYTHON) -m pytest -q Tests/e2e

bench: deps-run
	$(SWIFT) build -c release --product gather
	$(SWIFT) build -c release --product gather-bench
	./.build/release/gather-bench --server ./.build/release/gather

deps-run:
	@./.ci/install-packages $(RUN_PACKAGES)

deps-test:
	@./.ci/install-packages $(TEST_PACKAGES)

deps-python:
	@$(PYTHON) -c "import pytest, selenium, websockets, cryptography, jsonpatch, selenium_axe_python" 2>/dev/null || $(PYTHON) -m pip install -q $(PY_PACKAGES)

clean:
	rm -rf .build
