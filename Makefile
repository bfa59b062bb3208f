# The test command of README.md is `make test`; .ci/run calls it.
# Every target installs what it needs itself (Go modules, flatc, a Python
# venv with pinned pyarrow, the C++ peer built against the wheel's libarrow).

GO ?= go
GOFLAGS_TEST ?= -race -timeout 20m

.PHONY: test check fmt vet generate-check unit interop bench python-generate-check python-test python-bench

test: check unit interop

check: fmt vet generate-check

fmt:
	@echo "== gofmt"
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	@echo "== go vet"
	$(GO) vet ./...

# Regenerate the flatbuffers bindings (flatc) and the csf assembly, and
# require no diff.
generate-check:
	@echo "== go generate reproduces the committed code"
	@interop/ensure-flatc.sh
	$(GO) generate ./...
	@git diff --exit-code -- . || (echo "generated code differs from the committed code"; exit 1)

unit:
	@echo "== go test $(GOFLAGS_TEST) ./..."
	$(GO) test $(GOFLAGS_TEST) ./...

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
