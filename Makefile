# The two commands a newcomer needs:
#   make demo   installs what is missing, builds, and runs the demo
#   make test   installs what is missing, builds, and runs every test
#   make stress runs the concurrency stress tests for STRESS_SECONDS (default 120) each
#   make tsan   runs the tests under ThreadSanitizer (TSAN_FILTER narrows them)
#   make crash  runs the full crash harness (200 kills per operation)
#   make docs   builds the DocC documentation into .build/docs
.PHONY: setup demo test bench build install stress tsan crash docs

# Where `make install` puts the CLI: PREFIX/bin/cipherdex (its own PDF extraction helper: it
# re-runs itself in helper mode), bash and zsh completions.
PREFIX ?= /usr/local

setup:
	./scripts/bootstrap

build: setup
	swift build

demo: build
	./scripts/demo

test: setup
	./scripts/bootstrap --recover-tool
	./scripts/build-checked
	swift test --skip-build --disable-swift-testing

docs: setup
	./scripts/docs

bench: setup
	./scripts/bootstrap --bench
	swift build -c release
	.build/release/cipherdex-bench $(BENCH_ARGS)

install: setup
	swift build -c release --product cipherdex
	install -d $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 0755 .build/release/cipherdex $(DESTDIR)$(PREFIX)/bin/cipherdex
	install -m 0644 scripts/completions/cipherdex.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/cipherdex
	install -m 0644 scripts/completions/_cipherdex $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_cipherdex

STRESS_SECONDS ?= 120
stress: setup
	swift build --build-tests
	CIPHERDEX_STRESS_SECONDS=$(STRESS_SECONDS) swift test --skip-build --disable-swift-testing \
		--filter 'StoreStressTests|StoreContentionCommandTests'

# A separate scratch path, so the instrumented build never replaces the normal one. The
# extraction helper is run uninstrumented: it caps its own address space (RLIMIT_AS), which
# ThreadSanitizer's shadow memory cannot live in. Reports go to .build-tsan/reports/tsan.<pid>.
TSAN_FILTER ?= .
tsan: setup
	swift build --build-tests --sanitize=thread --scratch-path .build-tsan
	swift build --product cipherdex-extract
	cp .build/debug/cipherdex-extract .build-tsan/debug/cipherdex-extract
	rm -rf .build-tsan/reports && mkdir -p .build-tsan/reports
	CIPHERDEX_SANITIZER=thread TSAN_OPTIONS="halt_on_error=0 log_path=$(CURDIR)/.build-tsan/reports/tsan" \
		swift test --skip-build --disable-swift-testing --sanitize=thread --scratch-path .build-tsan \
		--filter '$(TSAN_FILTER)'; status=$$?; \
	reports=$$(cat .build-tsan/reports/tsan.* 2>/dev/null | grep -c 'WARNING: ThreadSanitizer'); \
	echo "ThreadSanitizer: $$reports report(s) in .build-tsan/reports"; \
	test $$status -eq 0 -a $$reports -eq 0

# The full crash harness: 200 trials per operation (random kills and kills at the Nth fsync);
# `make test` runs a bounded slice of it. CRASH_ARGS adds options (see README.md).
crash: setup
	swift build -c release
	.build/release/cipherdex-crash run --operations all --trials 200 --mode both $(CRASH_ARGS)
