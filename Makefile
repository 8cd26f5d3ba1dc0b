# lock4go: `make demo` runs the demo (no install needed); `make test` installs
# the servers the tests need and runs the whole suite, as CI does.
GO ?= go
GOFILES = $(shell find . -name '*.go' -not -path './.cache/*')

.PHONY: all setup demo test fmt-check vet unit wire-check soak bench test-under-load

all: test

setup:
	bash scripts/setup.sh

# DEMOFLAGS passes flags to the demo: make demo DEMOFLAGS=--linger
demo:
	$(GO) run ./examples/demo $(DEMOFLAGS)

fmt-check:
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	cd examples && $(GO) vet ./...
	cd bench && $(GO) vet ./...

# wire-check regenerates the wire example and fails if the committed file
# was stale.
wire-check:
	cd examples && $(GO) tool wire gen ./wire >/dev/null
	git diff --exit-code -- examples/wire/wire_gen.go

# unit runs the tests; a missing server is a failure, not a skip.
unit:
	LOCK4GO_REQUIRE_BACKENDS=1 $(GO) test -race -count=1 -timeout 25m ./...
	cd examples && LOCK4GO_REQUIRE_BACKENDS=1 $(GO) test -race -count=1 -timeout 10m ./...
	cd bench && LOCK4GO_REQUIRE_BACKENDS=1 $(GO) test -short -count=1 -timeout 10m ./...

test: setup fmt-check vet wire-check unit

# test-under-load runs the root module's tests with two busy loops taking
# both cores, as on a shared CI machine (scripts/under-load.sh starts and
# stops them by PID). Not part of test.
test-under-load: setup
	GO=$(GO) bash scripts/under-load.sh

# soak runs the reliability suite with long settings and repeated faults,
# and the scheduled-jobs fleet for 20 s;
# porcupine checks every history the analyser checks, and must agree.
soak: setup
	LOCK4GO_SOAK=1 LOCK4GO_REQUIRE_BACKENDS=1 $(GO) test -race -count=1 -timeout 60m -v ./internal/reliability/
	LOCK4GO_SOAK=1 LOCK4GO_REQUIRE_BACKENDS=1 $(GO) test -race -count=1 -timeout 10m -run Fleet -v ./jobs/

# bench measures lock4go against the raw protocol floors and the peer
# libraries on real servers, and fleets of real worker processes, and
# rewrites docs/bench.md and docs/bench.svg.
bench: setup
	cd bench && $(GO) run ./cmd/lockbench -out ../docs -fleet
