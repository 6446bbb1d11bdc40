# loopkv — see README.md. CI runs `make test` through .ci/run.
GO        ?= go
PKGS      := ./...
FUZZTIME  ?= 60s
BENCHTIME ?= 1s

.PHONY: run build test deps bench fuzz compare vet clean

build:
	$(GO) build -o bin/loopkv ./cmd/loopkv

# The daemon on defaults: plaintext 127.0.0.1:6379, TLS 127.0.0.1:6380 with a
# development certificate generated under .dev/ on first use.
run: build
	./bin/loopkv --dev-tls-dir .dev

# What the tests need from Debian: redis-tools (redis-cli, redis-benchmark),
# redis-server as the reference, openssl.
deps:
	@if ! command -v redis-cli >/dev/null || ! command -v redis-benchmark >/dev/null || \
	    ! command -v redis-server >/dev/null || ! command -v openssl >/dev/null; then \
		echo "installing redis-tools redis-server openssl"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			redis-tools redis-server openssl >/dev/null; \
	fi

vet:
	$(GO) vet $(PKGS)

test: deps vet
	$(GO) test -race -count=1 -timeout 9m $(PKGS)

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)

# Every fuzz target for FUZZTIME each.
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
		for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
			echo "== $$pkg $$t"; \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

compare: deps build
	benchmarks/compare.sh

clean:
	rm -rf bin .dev
