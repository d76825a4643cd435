# Football Gather Live — the two commands of the README: `make run` and `make test`.
# Each installs what a fresh Debian 12 machine with Swift is missing, then builds.

SWIFT        ?= swift
PYTHON       ?= python3
HOST         ?= 0.0.0.0
PORT         ?= 8443
SPECTATOR_PORT ?= 8080
RUN_PACKAGES  = pkg-config libwebsockets-dev libwebsockets-evlib-ev libssl-dev libqrencode-dev libnats-dev
TEST_PACKAGES = $(RUN_PACKAGES) chromium chromium-driver nats-server nginx
PY_PACKAGES   = pytest pytest-xdist selenium websockets cryptography jsonpatch selenium-axe-python==2.2.0 nats-py icalendar

.PHONY: run test build release deps-run deps-test deps-python unit-tests e2e-parallel e2e-timing e2e-mostly-waits bench clean

# The e2e files run one per worker; the tests marked `timing` run afterwards, one at a time, with
# only the `mostly_waits` one (three minutes of a goal every 5 s over a bad link) beside them.
# Three workers: four took as long on two cores (11 m 41 s against 11 m 10 s for fewer tests), the
# phase is bound by the CPU Chromium and the debug server need.
E2E_WORKERS ?= 3
PYTEST       = GATHER_BIN=$(CURDIR)/.build/debug/gather $(PYTHON) -m pytest -q -p no:cacheprovider --durations=12

run: deps-run release
	./.build/release/gather serve --host $(HOST) --port $(PORT) --spectator-port $(SPECTATOR_PORT) --data-dir data --cert-dir Certificates --public Public

# Unit tests and the parallel e2e phase share the machine; latency and rate tests come last,
# with only a test that mostly waits beside them. Each job's output is printed whole.
test: deps-test deps-python build
	@$(MAKE) --no-print-directory -j2 -O unit-tests e2e-parallel
	@$(MAKE) --no-print-directory -j2 -O e2e-timing e2e-mostly-waits

build:
	$(SWIFT) build --build-tests

release:
	$(SWIFT) build -c release --product gather

unit-tests:
	$(SWIFT) test --skip-build

e2e-parallel:
	$(PYTEST) -n $(E2E_WORKERS) --dist loadfile -m "not timing" Tests/e2e

e2e-timing:
	$(PYTEST) -m "timing and not mostly_waits" Tests/e2e

e2e-mostly-waits:
	$(PYTEST) -m "timing and mostly_waits" Tests/e2e

# The existing scenarios, the tournament day (32 teams on 8 pitches, 2,000 spectators, 2 relays,
# next to a plain match's fan-out at 2,000), then the relay scenarios (real nats-server, venue,
# 2 relays, 20,000 followers over ws and wss) and their floors: about 15 minutes on 2 cores.
# One scenario alone: ./.build/release/gather-bench --server ./.build/release/gather --scenario tournament
bench: deps-run
	@./.ci/install-packages nats-server nginx libnginx-mod-nchan
	$(SWIFT) build -c release --product gather
	$(SWIFT) build -c release --product gather-bench
	./.build/release/gather-bench --server ./.build/release/gather

deps-run:
	@./.ci/install-packages $(RUN_PACKAGES)

deps-test:
	@./.ci/install-packages $(TEST_PACKAGES)

deps-python:
	@$(PYTHON) -c "import pytest, xdist, selenium, websockets, cryptography, jsonpatch, selenium_axe_python, nats, icalendar" 2>/dev/null || $(PYTHON) -m pip install -q $(PY_PACKAGES)

clean:
	rm -rf .build
