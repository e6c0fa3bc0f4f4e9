# The two commands a newcomer needs:
#   make demo   installs what is missing, builds, and runs the demo
#   make test   installs what is missing, builds, and runs every test
#   make stress runs the concurrency stress tests for STRESS_SECONDS (default 120) each
.PHONY: setup demo test bench build stress

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

STRESS_SECONDS ?= 120
stress: setup
	swift build --build-tests
	CIPHERDEX_STRESS_SECONDS=$(STRESS_SECONDS) swift test --skip-build --disable-swift-testing \
		--filter 'StoreStressTests|StoreContentionCommandTests'
