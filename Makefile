# The two commands a newcomer needs:
#   make demo   installs what is missing, builds, and runs the demo
#   make test   installs what is missing, builds, and runs every test
.PHONY: setup demo test bench build install

# Where `make install` puts the CLI: PREFIX/bin/cipherdex, its PDF helper in
# PREFIX/libexec/cipherdex/ (found there by the CLI), bash and zsh completions.
PREFIX ?= /usr/local

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

install: setup
	swift build -c release --product cipherdex
	swift build -c release --product cipherdex-extract
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/cipherdex \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 0755 .build/release/cipherdex $(DESTDIR)$(PREFIX)/bin/cipherdex
	install -m 0755 .build/release/cipherdex-extract $(DESTDIR)$(PREFIX)/libexec/cipherdex/cipherdex-extract
	install -m 0644 scripts/completions/cipherdex.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/cipherdex
	install -m 0644 scripts/completions/_cipherdex $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_cipherdex
