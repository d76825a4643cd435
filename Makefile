# Football Gather Live — the two commands of the README: `make run` and `make test`, and the club's
# `make club` (README, "Your club's week").
# Each installs what a fresh Debian 12 machine with Swift is missing, then builds.

SWIFT        ?= swift
PYTHON       ?= python3
HOST         ?= 0.0.0.0
PORT         ?= 8443
SPECTATOR_PORT ?= 8080
# libpq-dev: the `gather` binary links libpq (the club's client); the venue never needs the server.
# libcurl4-openssl-dev: the club mails over SMTP through libcurl (STARTTLS or smtps://, OpenSSL).
RUN_PACKAGES  = pkg-config libwebsockets-dev libwebsockets-evlib-ev libssl-dev libqrencode-dev libnats-dev libpq-dev libcurl4-openssl-dev
# postgresql: the club's tests start private clusters of their own (Tests/e2e/club_postgres.py).
# faketime: test_referees.py moves the server's wall clock (libfaketime) to see a referee link expire.
TEST_PACKAGES = $(RUN_PACKAGES) chromium chromium-driver nats-server nginx postgresql faketime
PY_PACKAGES   = pytest pytest-xdist selenium websockets cryptography jsonpatch selenium-axe-python==2.2.0 nats-py icalendar aiosmtpd

# `make club`: the club, always on, with its own PostgreSQL in CLUB_DATA (a folder of this
# checkout unless told otherwise), on a loopback port; links and QR codes name the first LAN
# address. Plain HTTP: on the internet put nginx with TLS in front (deploy/nginx/gather-club.conf).
CLUB_HOST    ?= 0.0.0.0
CLUB_PORT    ?= 8444
CLUB_PG_PORT ?= 5434
CLUB_DATA    ?= $(CURDIR)/club-data
CLUB_PUBLIC_URL ?= http://$(shell hostname -I 2>/dev/null | awk '{print $$1}' | grep . || echo 127.0.0.1):$(CLUB_PORT)

.PHONY: run test build release deps-run deps-test deps-python unit-tests unit-tests-niced e2e-parallel e2e-parallel-niced e2e-timing e2e-mostly-waits bench clean club club-stop

# Two phases, so that a test asserting a latency or a rate measures the server, not the suite:
# 1. the e2e files, one per worker, at a lower CPU priority (nice 10), beside the `mostly_waits`
#    tests one at a time at normal priority (with the files that mostly wait on NATS, PostgreSQL or
#    an SMTP server and assert no latency) (three minutes of a goal every 5 s over a bad link, a
#    hub node, the leaf and the venue killed mid-match, NATS stopped, ticks, deadlines: bounds of a
#    second and more, a few seconds of CPU each);
# 2. the `timing` tests one at a time, beside the unit tests at the lowest priority (nice 19): the
#    timing tests use about 0.8 of the two cores, the unit tests take what they leave.
# Three workers: four took as long on two cores (11 m 41 s against 11 m 10 s for fewer tests), the
# phase is bound by the CPU Chromium and the debug server need.
E2E_WORKERS ?= 3
PYTEST       = GATHER_BIN=$(CURDIR)/.build/debug/gather $(PYTHON) -m pytest -q -p no:cacheprovider --durations=12

run: deps-run release
	./.build/release/gather serve --host $(HOST) --port $(PORT) --spectator-port $(SPECTATOR_PORT) --data-dir data --cert-dir Certificates --public Public

# Each job's output is printed whole, when it ends. The build needs only the run packages, so the
# browser, nginx, nats-server and the Python packages are installed while it compiles (on a fresh
# machine apt and pip otherwise wait in front of it).
test: deps-run
	@$(MAKE) --no-print-directory -j3 -O build deps-test deps-python
	@$(MAKE) --no-print-directory -j2 -O e2e-parallel-niced e2e-mostly-waits
	@$(MAKE) --no-print-directory -j2 -O e2e-timing unit-tests-niced

build:
	$(SWIFT) build --build-tests

# Tried and not kept: starting the end-to-end tests once the server alone was linked (80 s of a
# fresh build) with the unit tests' build beside them at nice 19: the parallel phase is CPU-bound
# and took 12 m 14 s instead of 10 m 47 s, the whole run 16 m 23 s.

release:
	$(SWIFT) build -c release --product gather

unit-tests:
	$(SWIFT) test --skip-build

unit-tests-niced:
	nice -n 19 $(MAKE) --no-print-directory unit-tests

e2e-parallel:
	$(PYTEST) -n $(E2E_WORKERS) --dist loadfile -m "not timing and not mostly_waits" Tests/e2e

e2e-parallel-niced:
	nice -n 10 $(MAKE) --no-print-directory e2e-parallel

e2e-timing:
	$(PYTEST) -m "timing and not mostly_waits" Tests/e2e

e2e-mostly-waits:
	$(PYTEST) -m "mostly_waits" Tests/e2e

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
	@$(PYTHON) -c "import pytest, xdist, selenium, websockets, cryptography, jsonpatch, selenium_axe_python, nats, icalendar, aiosmtpd" 2>/dev/null || $(PYTHON) -m pip install -q $(PY_PACKAGES)

# The cluster keeps running after the server stops (Ctrl-C): the next `make club` reuses it;
# `make club-stop` stops it. The role's password is in CLUB_DATA/pgpass, read by libpq.
club: deps-run
	@./.ci/install-packages postgresql
	@./.ci/club-postgres start $(abspath $(CLUB_DATA))/postgres $(CLUB_PG_PORT)
	$(SWIFT) build -c release --product gather
	PGPASSFILE=$(abspath $(CLUB_DATA))/pgpass ./.build/release/gather club serve \
		--postgres postgres://gather@127.0.0.1:$$(sed -n 4p $(abspath $(CLUB_DATA))/postgres/data/postmaster.pid)/gather_club \
		--host $(CLUB_HOST) --port $(CLUB_PORT) --public Public --public-url $(CLUB_PUBLIC_URL)

club-stop:
	@./.ci/club-postgres stop $(abspath $(CLUB_DATA))/postgres

clean:
	rm -rf .build
