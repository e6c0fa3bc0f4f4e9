# The two commands a newcomer needs:
#   make demo   installs what is missing, builds, and runs the demo
#   make test   installs what is missing, builds, and runs every test
#   make stress runs the concurrency stress tests for STRESS_SECONDS (default 120) each
#   make tsan   runs the tests under ThreadSanitizer (TSAN_FILTER narrows them)
#   make crash  runs the full crash harness (200 kills per operation)
#   make docs   builds the DocC documentation into .build/docs
#   make fuzz   runs every libFuzzer target for FUZZ_SECONDS (default 60) each (FuzzTesting/)
#   make asan   runs the tests under AddressSanitizer (ASAN_FILTER narrows them)
#   make pdf-mutations  indexes PDF_MUTATIONS (default 1000) damaged corpus PDFs through the CLI
.PHONY: setup demo test bench build install stress tsan crash docs fuzz asan pdf-mutations

# Where `make install` puts the CLI: PREFIX/bin/cipherdex (its own PDF extraction helper: it
# re-runs itself in helper mode), bash and zsh completions. The Swift runtime and Foundation are
# linked in (--static-swift-stdlib): the installed CLI needs no toolchain to run, and a process
# starts in about half the CPU time (BENCHMARKS.md, "Start-up of the installed CLI").
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
	swift build -c release --static-swift-stdlib --product cipherdex --scratch-path .build/static
	install -d $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 0755 .build/static/release/cipherdex $(DESTDIR)$(PREFIX)/bin/cipherdex
	install -m 0644 scripts/completions/cipherdex.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/cipherdex
	install -m 0644 scripts/completions/_cipherdex $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_cipherdex

STRESS_SECONDS ?= 120
stress: setup
	swift build --build-tests
	CIPHERDEX_STRESS_SECONDS=$(STRESS_SECONDS) swift test --skip-build --disable-swift-testing \
		--filter 'StoreStressTests|StoreContentionCommandTests'

# Damaged copies of the shared corpus's PDFs (../shared/corpus/pdfs) through `cipherdex add` and
# `index` (MutatedPDFCommandTests; `make test` runs 40). MUTATION_SEED picks another set.
PDF_MUTATIONS ?= 1000
MUTATION_SEED ?= 14
pdf-mutations: setup
	swift build --build-tests
	CIPHERDEX_MUTATED_PDFS=$(PDF_MUTATIONS) CIPHERDEX_MUTATION_SEED=$(MUTATION_SEED) \
		CIPHERDEX_MUTATION_MAX_BYTES=4000000 swift test --skip-build \
		--disable-swift-testing --filter MutatedPDFCommandTests

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

# libFuzzer targets (FuzzTesting/README.md), built in .build-fuzz; fails on any finding.
# FUZZ_TARGETS narrows them ("JSON Query"); FUZZ_SECONDS=0 only replays the committed seeds.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= JSON Metadata RecoveryKey AttachmentHeader Query Tokenizer HelperAnswer AttachmentChunks KeyFiles CLIArguments WriteAheadLog
fuzz: setup
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" ./scripts/fuzz

# AddressSanitizer over the suite, in its own scratch path like tsan. The extraction helper is
# run uninstrumented (its RLIMIT_AS cap leaves no room for ASan's shadow memory); leaks are not
# checked (process-wide caches and the Swift runtime's own allocations would be reported).
# Reports go to .build-asan/reports/asan.<pid>.
ASAN_FILTER ?= .
asan: setup
	swift build --build-tests --sanitize=address --scratch-path .build-asan
	swift build --product cipherdex-extract
	cp .build/debug/cipherdex-extract .build-asan/debug/cipherdex-extract
	rm -rf .build-asan/reports && mkdir -p .build-asan/reports
	CIPHERDEX_SANITIZER=address ASAN_OPTIONS="detect_leaks=0 log_path=$(CURDIR)/.build-asan/reports/asan" \
		swift test --skip-build --disable-swift-testing --sanitize=address --scratch-path .build-asan \
		--filter '$(ASAN_FILTER)'; status=$$?; \
	reports=$$(cat .build-asan/reports/asan.* 2>/dev/null | grep -c 'ERROR: AddressSanitizer'); \
	echo "AddressSanitizer: $$reports report(s) in .build-asan/reports"; \
	test $$status -eq 0 -a $$reports -eq 0

# The full crash harness: 200 trials per operation (random kills and kills at the Nth fsync);
# `make test` runs a bounded slice of it. CRASH_ARGS adds options (see README.md).
crash: setup
	swift build -c release
	.build/release/cipherdex-crash run --operations all --trials 200 --mode both $(CRASH_ARGS)
