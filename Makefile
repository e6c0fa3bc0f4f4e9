# The two commands a newcomer needs:
#   make demo   installs what is missing, builds, and runs the demo
#   make test   installs what is missing, builds, and runs every test
.PHONY: setup demo test bench build crash

setup:
	./scripts/bootstrap

build: setup
	swift build

demo: build
	./scripts/demo

test: setup
	swift build --build-tests
	swift test --skip-build --disable-swift-testing

bench: setup
	./scripts/bootstrap --bench
	swift build -c release
	.build/release/cipherdex-bench $(BENCH_ARGS)

# The full crash harness: 200 trials per operation (random kills and kills at the Nth fsync);
# `make test` runs a bounded slice of it. CRASH_ARGS adds options (see README.md).
crash: setup
	swift build -c release
	.build/release/cipherdex-crash run --operations all --trials 200 --mode both $(CRASH_ARGS)
