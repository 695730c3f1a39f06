# formd — `make run` starts the service, `make test` runs every test.
SHELL := /bin/bash
.DEFAULT_GOAL := help

GO        ?= go
PG_BASE   ?= $(shell scripts/ensure-postgres.sh)
DB_URL    ?= $(PG_BASE)/formd?sslmode=disable
PACKAGES  := ./domain/... ./application/... ./adapters/... ./ports/... ./cmd/... ./migrations/... ./scripts/...
FUZZTIME  ?= 10s
LONG_FUZZTIME ?= 5m
BENCH_FLAGS ?=
# What `formd version`, /healthz and the startup log report: the tag of HEAD when
# it has one (else "devel"), its commit and the commit's time (not the build's, so a
# rebuild of one commit is the same binary).
VERSION   ?= $(shell git describe --tags --exact-match 2>/dev/null)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
BUILT     ?= $(shell git show -s --format=%cI HEAD 2>/dev/null)
LDFLAGS   := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildTime=$(BUILT)

.PHONY: help run build test check unit bench-test fuzz-short features fuzz chaos bench wire clean image release

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/formd
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/formd ./cmd/formd

run: build ## start formd in development mode with its PostgreSQL (see README: Configuration)
	@{ [ -n "$$FORMD_SECRET_KEY" ] && [ -n "$$FORMD_AUDIT_SIGNING_KEY" ]; } || [ -n "$$FORMD_DEV" ] || echo "make run: development mode (FORMD_DEV=true): without FORMD_SECRET_KEY and FORMD_AUDIT_SIGNING_KEY, formd generates keys into $${FORMD_DATA_DIR:-.data}/secret.key and audit-signing.key; never run production this way"
	FORMD_DEV="$${FORMD_DEV:-true}" FORMD_DATABASE_URL="$${FORMD_DATABASE_URL:-$(DB_URL)}" ./bin/formd serve

test: check unit bench-test fuzz-short features ## every test: checks, unit and adapter tests, the bench's tests, short fuzzing, acceptance suite

check: ## gofmt, go vet, inward-only imports, wire_gen.go up to date
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd bench && $(GO) vet ./...
	@scripts/check-architecture.sh
	@cp cmd/formd/wire_gen.go /tmp/formd_wire_gen.go.$$$$ && $(GO) tool wire ./cmd/formd >/dev/null && \
	  if ! diff -q cmd/formd/wire_gen.go /tmp/formd_wire_gen.go.$$$$ >/dev/null; then \
	    cp /tmp/formd_wire_gen.go.$$$$ cmd/formd/wire_gen.go; echo "wire_gen.go is stale: run make wire"; exit 1; fi; rm -f /tmp/formd_wire_gen.go.$$$$

unit: ## domain unit tests and adapter/port tests against a real PostgreSQL, clamd and rspamd (race detector on)
	@scripts/ensure-clamd.sh
	rspamd_env=$$(scripts/ensure-rspamd.sh) && env $$rspamd_env \
	  FORMD_TEST_DATABASE_URL="$(PG_BASE)/postgres?sslmode=disable" $(GO) test -race -count=1 $(PACKAGES)

bench-test: ## the bench module's tests (bench/ is a module of its own, outside PACKAGES)
	cd bench && FORMD_TEST_DATABASE_URL="$(PG_BASE)/postgres?sslmode=disable" $(GO) test -race -count=1 ./...

fuzz-short: ## each fuzz target for $(FUZZTIME)
	@scripts/fuzz.sh $(FUZZTIME)

features: ## the Ginkgo acceptance suite, in parallel processes (browser specs in headless Chromium, uploads scanned by a real clamd, spam classified by a real rspamd)
	@scripts/ensure-chromium.sh
	@scripts/ensure-clamd.sh
	@scripts/ensure-browser-tools.sh
	@scripts/ensure-deploy-tools.sh
	rspamd_env=$$(scripts/ensure-rspamd.sh) && env $$rspamd_env \
	  FORMD_TEST_DATABASE_URL="$(PG_BASE)/postgres?sslmode=disable" $(GO) tool ginkgo -p --procs=4 --timeout=25m --poll-progress-after=60s ./features

fuzz: ## each fuzz target for $(LONG_FUZZTIME)
	@scripts/fuzz.sh $(LONG_FUZZTIME)

chaos: ## the crash spec for 20 SIGKILL cycles and the PostgreSQL outage spec for 5 crashes of its server (make test runs 3 and 2)
	FORMD_CHAOS_CYCLES=$${FORMD_CHAOS_CYCLES:-20} FORMD_OUTAGE_CYCLES=$${FORMD_OUTAGE_CYCLES:-5} FORMD_TEST_DATABASE_URL="$(PG_BASE)/postgres?sslmode=disable" $(GO) tool ginkgo --focus "Crashes|PostgreSQL outages" --timeout=30m ./features

bench: ## submission throughput and latency against pgbench, on loopback (BENCH_FLAGS=-private-pg for statement time; see bench/README.md)
	cd bench && FORMD_TEST_DATABASE_URL="$(PG_BASE)/postgres?sslmode=disable" $(GO) run . $(BENCH_FLAGS)

wire: ## regenerate cmd/formd/wire_gen.go
	$(GO) tool wire ./cmd/formd

clean: ## remove build output (keeps .data)
	rm -rf bin dist

# Release artefacts (docs/releases.md): static binaries named
# formd-<version>-<os>-<arch>, the container image, their SHA256SUMS.
DIST_VERSION      = $(or $(VERSION),devel)
IMAGE_PLATFORMS   := linux/amd64 linux/arm64
RELEASE_PLATFORMS := $(IMAGE_PLATFORMS) darwin/arm64 windows/amd64
SOURCE_URL        ?= https://github.com/formd/formd
# The SPDX licence expression of the image's label: the repository states no
# licence yet.
IMAGE_LICENSES    ?= NOASSERTION
# static_binaries builds one static binary per platform of $(1) into dist/.
define static_binaries
	@set -e; for p in $(1); do os=$${p%/*}; arch=$${p#*/}; ext=; [ "$$os" = windows ] && ext=.exe; \
	  out=dist/formd-$(DIST_VERSION)-$$os-$$arch$$ext; echo "building $$out"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $$out ./cmd/formd; done
endef

image: ## the container image for linux/amd64 and linux/arm64 in dist/image (OCI layout, docker load tarballs), without Docker
	@test -s /etc/ssl/certs/ca-certificates.crt || { echo "make image: /etc/ssl/certs/ca-certificates.crt is missing: install Debian's ca-certificates package (apt-get install ca-certificates)"; exit 1; }
	$(call static_binaries,$(IMAGE_PLATFORMS))
	$(GO) run ./scripts/image $(foreach p,$(IMAGE_PLATFORMS),-binary $(p)=dist/formd-$(DIST_VERSION)-$(subst /,-,$(p))) \
	  -version "$(DIST_VERSION)" -revision "$(COMMIT)" -created "$(BUILT)" -source "$(SOURCE_URL)" -licenses "$(IMAGE_LICENSES)" -out dist/image

release: image ## static binaries for every platform, the image and SHA256SUMS in dist/
	$(call static_binaries,$(filter-out $(IMAGE_PLATFORMS),$(RELEASE_PLATFORMS)))
	@# The sums name the files as a release publishes them: side by side.
	cd dist && { sha256sum formd-$(DIST_VERSION)-*; (cd image && sha256sum formd-$(DIST_VERSION)-*.tar); } > SHA256SUMS
	cd dist && sha256sum --quiet --ignore-missing -c SHA256SUMS && cd image && sha256sum --quiet --ignore-missing -c ../SHA256SUMS
	@cat dist/SHA256SUMS
