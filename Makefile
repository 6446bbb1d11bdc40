# loopkv — see README.md. CI runs `make test` through .ci/run.
GO        ?= go
PKGS      := ./...
FUZZTIME  ?= 60s
BENCHTIME ?= 1s
# gnet's poll_opt build tag: epoll events carry the connection's callback
# instead of an fd to look up, and the non-blocking epoll_wait after a busy
# round is a raw syscall (no scheduler hand-off). The shipped daemon, the
# tests and the benchmarks all use it; plain `go build` still works.
TAGS      ?= poll_opt
# poll_opt reads the callback pointer from epoll_event's packed data field, which
# -race's checkptr rejects as misaligned (amd64 loads it fine): checkptr is off
# for that one gnet package only.
RACEFLAGS ?= -race -gcflags='github.com/panjf2000/gnet/v2/pkg/netpoll=-d=checkptr=0'

.PHONY: run build test deps bench fuzz compare vet cross clean conformance

build:
	$(GO) build -tags '$(TAGS)' -o bin/loopkv ./cmd/loopkv

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
	$(GO) vet -tags '$(TAGS)' $(PKGS)

# The kqueue ports: vet type-checks every package and test for darwin and
# FreeBSD on amd64 and arm64, which is the cross-compile without linking
# twice, so a Linux-only call cannot slip in.
CROSS     ?= darwin/amd64 darwin/arm64 freebsd/amd64 freebsd/arm64
cross:
	@set -e; for t in $(CROSS); do \
		echo "vet $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet -tags '$(TAGS)' $(PKGS); \
	done

# The server package takes 7.5 minutes under -race on a slow two-CPU VM
# (450 s, 2026-12-01); the timeout is a net for a hang, not the budget.
test: deps vet cross
	$(GO) test -tags '$(TAGS)' $(RACEFLAGS) -count=1 -timeout 15m $(PKGS)

bench: deps
	$(GO) test -tags '$(TAGS)' -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)
	benchmarks/persist.sh
	benchmarks/aof.sh
	benchmarks/fanout.sh
	benchmarks/multi.sh
	benchmarks/churn.sh
	benchmarks/goals.sh
	benchmarks/types.sh
	benchmarks/queue.sh
	CONFIGS="tls 1 60000;tls 16 300000" benchmarks/default-suite.sh
	if command -v gcc >/dev/null; then benchmarks/floor.sh; else echo "floor.sh skipped: no C compiler"; fi
	benchmarks/scaling.sh

# Every fuzz target for FUZZTIME each.
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
		for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
			echo "== $$pkg $$t"; \
			$(GO) test -tags '$(TAGS)' -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

# BoringSSL's TLS test runner (BoGo, in ../shared/bogo beside the repository)
# on every server-side test that conformance/bogo_config.json does not switch
# off; prints passed, failed and unimplemented counts (CONFORMANCE.md).
conformance:
	$(GO) test -tags '$(TAGS)' -count=1 -timeout 30m -run '^TestBoGoFull$$' -v ./conformance -args -bogo.full

compare: deps build
	benchmarks/compare.sh

clean:
	rm -rf bin .dev
