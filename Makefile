# The test command of README.md is `make test`; .ci/run calls it.
# Every target installs what it needs itself (Go modules, flatc, a Python
# venv with pinned pyarrow, the C++ peer built against the wheel's libarrow).

GO ?= go
GOFLAGS_TEST ?= -race -timeout 20m

.PHONY: test check fmt vet cross generate-check unit interop bench python-generate-check python-test python-bench

test: check unit interop python-test

check: fmt vet cross generate-check python-generate-check

fmt:
	@echo "== gofmt"
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	@echo "== go vet"
	$(GO) vet ./...

# Every package builds on the other platforms users have: macOS, Windows,
# 32-bit and big-endian Linux, FreeBSD; the library (not the CLI, whose
# progress bar needs a terminal) on WebAssembly too.
CROSS = darwin/arm64 darwin/amd64 windows/amd64 linux/386 linux/arm linux/arm64 linux/s390x freebsd/amd64

cross:
	@echo "== go build on other platforms"
	@set -e; for t in $(CROSS); do \
	  echo "   $$t"; GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build ./...; done
	@echo "   js/wasm (library)"; GOOS=js GOARCH=wasm $(GO) build $$($(GO) list ./... | grep -v -e /cmd/ -e /bench/ -e /examples/)

# Regenerate the flatbuffers bindings (flatc) and the csf assembly, and
# require no diff.
# The generated files: the flatbuffers bindings and the csf assembly.
GENERATED = ipc/internal/flatbuf csf/mttkrp_amd64.s

generate-check:
	@echo "== go generate reproduces the committed code"
	@interop/ensure-flatc.sh
	$(GO) generate ./...
	@git diff --exit-code -- $(GENERATED) && test -z "$$(git status --porcelain -- $(GENERATED))" || \
	  (echo "generated code differs from the committed code"; git status --short -- $(GENERATED); exit 1)

# The unit tests run three times: with the race detector; with the assert
# tag, which turns on the debug assertions (over-release of any reference-
# counted type panics); and with the purego tag, which replaces the
# assembly kernels by their Go twins.
unit:
	@echo "== go test $(GOFLAGS_TEST) ./..."
	$(GO) test $(GOFLAGS_TEST) ./...
	@echo "== go test -tags assert ./..."
	$(GO) test -tags assert -timeout 20m ./...
	@echo "== go test -tags purego (packages with assembly)"
	$(GO) test -tags purego -timeout 20m $$($(GO) list -f '{{if .SFiles}}{{.ImportPath}}{{end}}' ./...)

interop:
	@echo "== live interop with Arrow C++ and pyarrow"
	interop/run.sh

bench:
	bench/run.sh

# The Python package (python/): regenerate its flatbuffers bindings with
# flatc --python and require no diff; run its tests against an install into
# .venv; run its benchmarks (message read, sparse vectors <-> CSR).
python-generate-check:
	@echo "== flatc --python reproduces python/arrowsparse/_flatbuf"
	@interop/ensure-flatc.sh
	python3 python/tools/gen_flatbuf.py
	@git diff --exit-code -- python/arrowsparse/_flatbuf && \
	  test -z "$$(git status --porcelain -- python/arrowsparse/_flatbuf)" || \
	  (echo "generated Python bindings differ from the committed ones"; git status --short -- python/arrowsparse/_flatbuf; exit 1)

python-test:
	@echo "== Python package tests"
	python/run_tests.sh

python-bench:
	python/setup_venv.sh
	.venv/bin/python python/benchmarks/bench_read.py
	.venv/bin/python python/benchmarks/bench_vectors.py
