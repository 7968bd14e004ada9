# The two commands: `make run` and `make test`. Everything else supports them.
SHELL := /bin/bash
.PHONY: deps build run test bench fuzz clean

deps:
	@scripts/install-deps.sh

build: deps
	swift build

run:
	@scripts/run.sh

test:
	@scripts/test.sh

bench:
	@scripts/bench.sh

fuzz:
	@scripts/fuzz.sh

clean:
	@scripts/pg.sh clean .data
	@scripts/ha-cluster.sh clean .data
	rm -rf .build .build-* .data fuzz-out
