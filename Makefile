# Backplane: the commands to run, build and test it. `make` lists them.
#
# Every setting is an environment variable (docs/settings.md, generated from the declarations;
# `<exe> --help` for one process), e.g.:
#   make up SERVICES="auth orders" REPLICAS_routing=3 LOG_FORMAT=text
#   make test FILTER=Majordomo

SHELL := /bin/bash
SCRIPTS := deploy/scripts

# Variables given on the command line (make test FILTER=x) reach the scripts' environment as
# they are: make exports them.

.DEFAULT_GOAL := help
.PHONY: help up test test-slow test-unit settings-doc bench-report fuzz-api build release bench bench-broker bench-gateway bench-navup bench-scaleout bench-auth bench-flood bench-orders bench-payments bench-notify bench-hydration bench-social bench-civic bench-routing bench-printing fault-run backup restore restore-drill upgrade-drill compose-config compose-test clean clean-data

help: ## list the targets
	@echo "Backplane — make <target>"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{ printf "  %-15s %s\n", $$1, $$2 }'

up: ## install what is missing, start PostgreSQL (.data/pg), build, run everything (admin sign-in in .data/secrets); Ctrl-C stops
	@UP_ADMIN=1 $(SCRIPTS)/up.sh

test-slow: ## the long drills, on make test's debug build: the fault run (5 minutes of mixed load with SIGKILLs, then reconcile), the restore drill, the upgrade drill (the previous release built in debug)
	swift build
	@BACKPLANE_BIN_DIR="$${BACKPLANE_BIN_DIR:-$$(swift build --show-bin-path)}" $(SCRIPTS)/fault-run.sh
	@BACKPLANE_BIN_DIR="$${BACKPLANE_BIN_DIR:-$$(swift build --show-bin-path)}" $(SCRIPTS)/restore-drill.sh
	@BUILD_CONFIG=debug LOAD_S=150 BACKPLANE_BIN_DIR="$${BACKPLANE_BIN_DIR:-$$(swift build --show-bin-path)}" $(SCRIPTS)/upgrade-drill.sh

settings-doc: ## write docs/settings.md from the settings the code declares (debug build)
	swift build
	python3 $(SCRIPTS)/settings-doc.py --bin-dir "$$(swift build --show-bin-path)"

bench-report: ## write docs/benchmarks.md's tables and docs/bench/*.png from docs/bench/*.json
	python3 $(SCRIPTS)/bench-report.py

test: ## the whole suite: swift test, interop (pytest), API fuzzing (schemathesis), compose config; FILTER=regex for swift test
	@$(SCRIPTS)/test.sh

test-unit: ## the tests that need neither PostgreSQL nor the executables (TEST_LAYERS=unit), in parallel; the rest report "cancelled"
	$(SCRIPTS)/gazetteer.sh
	swift build --build-tests
	TEST_LAYERS=unit swift test --skip-build $(if $(FILTER),--filter '$(FILTER)')

fuzz-api: ## long schemathesis run (st run -c all, user and admin) against the system, debug build; see docs/benchmarks.md
	swift build
	API_FUZZ_EXAMPLES=$(or $(API_FUZZ_EXAMPLES),50) API_FUZZ_ROUNDS=$(or $(API_FUZZ_ROUNDS),2) $(SCRIPTS)/api-fuzz.sh

build: ## debug build (swift build)
	swift build

release: ## release build (swift build -c release)
	swift build -c release

bench: ## every benchmark behind docs/benchmarks.md in turn (BENCHES="auth orders" for some); quiet machine
	@$(SCRIPTS)/bench-all.sh

bench-broker: ## broker round trips: raw vs through the broker, 3 rounds, shares of raw taken per round
	@$(SCRIPTS)/bench-broker.sh $(LOADGEN_ARGS)

bench-gateway: ## the request path against Hummingbird's hello-world: wrk on /hello, /healthz, /v1/currencies, /v1/me, loadgen beside wrk on /healthz, currencies open loop at half rate (starts the system)
	@$(SCRIPTS)/bench-gateway.sh

bench-navup: ## NavUP: loadgen navup at USERS students (default 50000) for DURATION seconds (default 300), CPU per request of each process (starts the system)
	@$(SCRIPTS)/bench-navup.sh $(or $(USERS),50000) $(or $(DURATION),300)

bench-scaleout: ## two gateways from up.sh (REPLICAS_gateway=2): loadgen navup sends to both in turn, each gateway's count printed
	@REPLICAS_gateway=$(or $(GATEWAYS),2) SERVICES="auth routing" $(SCRIPTS)/bench-system.sh navup $(or $(LOADGEN_ARGS),--users 20000 --seconds 30)

bench-auth: ## login throughput and p99 vs the hashing bound, token verification (starts the system)
	@$(SCRIPTS)/bench-auth.sh $(LOADGEN_ARGS)

bench-flood: ## rate limits: a 60 s login flood from one address beside 10 logins/s from others, then credential stuffing
	@$(SCRIPTS)/bench-flood.sh $(LOADGEN_ARGS)

bench-orders: ## quotes and orders at a fixed rate through the gateway, p50/p99 from when due (starts the system)
	@$(SCRIPTS)/bench-orders.sh $(LOADGEN_ARGS)

bench-payments: ## orders at 200/s for 30 s paying through the Stripe stand-in answering in 300 ms: p50/p99, PostgreSQL pool exhaustion (starts the system)
	@$(SCRIPTS)/bench-payments.sh $(LOADGEN_ARGS)

bench-routing: ## route queries in process vs pgRouting's pgr_dijkstra, 1,000,000-node grid (installs pgRouting)
	@$(SCRIPTS)/bench-routing.sh

bench-printing: ## printing: 8-megapixel A6 PDF and preview p50/p95, RSS of 50 edits, ratios to vips (installs libvips-tools)
	@$(SCRIPTS)/bench-printing.sh

fault-run: ## 5 minutes of mixed load while processes are SIGKILLed and restarted; then reconcile (release build)
	@$(SCRIPTS)/fault-run.sh

upgrade-drill: ## the previous release's executables (PREVIOUS_BIN_DIR, or built) upgraded to this tree's and rolled back under load, no failed request (release build)
	@$(SCRIPTS)/upgrade-drill.sh

bench-notify: ## notify: mails/s, pushes/s, scheduler lateness (release build; needs DATABASE_URL, python3 aiosmtpd)
	@$(SCRIPTS)/bench-notify.sh

bench-hydration: ## TapWater: first sync of a year, incremental syncs at 500/s, reminder lateness (release build; needs DATABASE_URL)
	@$(SCRIPTS)/bench-hydration.sh

bench-social: ## Gifter: directory search over 100,000 users, catalogue search, launch pull-down, each at 500/s; gift purchases at 100/s through the system (release build; needs DATABASE_URL)
	@$(SCRIPTS)/bench-social.sh

bench-civic: ## PolitiMap: first import of ~100,000 bills, 10,000 changed, freshness, list/detail/lookup at ~1,000 req/s (release build)
	$(SCRIPTS)/bench-civic.sh

backup: ## an encrypted pgBackRest backup of make up's PostgreSQL and printing's files (.data/backup); POINT=name then makes a restore point
	@$(SCRIPTS)/backup.sh backup $(POINT)

restore: ## TARGET=<restore point, time or latest>: restore the backups into a fresh .data/restore-<time> and start PostgreSQL there
	@$(SCRIPTS)/restore.sh "$(TARGET)"

restore-drill: ## backup under the mixed load, a restore point, restore to it, the system on it: every order acknowledged before the point is there (debug build)
	swift build
	@BACKPLANE_BIN_DIR="$${BACKPLANE_BIN_DIR:-$$(swift build --show-bin-path)}" $(SCRIPTS)/restore-drill.sh

compose-config: ## validate docker-compose.yml (config -q), and that it refuses to start without its required secrets
	$(SCRIPTS)/compose-config.sh

compose-test: ## run docker-compose.yml and deploy/Dockerfile for real (podman + runc): healthy, journeys, scale, a crash, down -v
	@$(SCRIPTS)/compose-test.sh

clean: ## remove build folders (.build*)
	rm -rf .build .build-* .build_*

clean-data: ## remove local databases, backups and test data (.data); stops the PostgreSQL of .data/pg and of each restore first
	@-for dir in .data/pg .data/restore-*; do [ ! -f "$$dir/data/PG_VERSION" ] || $(SCRIPTS)/pg.sh stop "$$dir"; done
	rm -rf .data
