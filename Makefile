# The two commands a new user needs: `make dev` runs the whole system, `make test` runs every test.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PACKAGES := libs/printcloud-contracts libs/printcloud-core libs/printcloud-protocol libs/printcloud-devstack services/api-gateway services/jobs \
	services/devices services/webhooks services/agent-gateway services/virtual-fleet services/dispatcher agent sdk/python
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# axe-core for the dashboard's browser tests, from npm at install time (never at run time).
BROWSER_TESTS := tests/e2e/dashboard
CHECKOV := $(VENV)/checkov
PROTO_OUT := libs/printcloud-contracts/src

AGENT_WHEELS := $(VENV)/agent-wheels

.PHONY: install dev test test-unit test-e2e lint proto proto-check sdk sdk-check agent-dist bench bench-parts faults upgrade-test clean

# VERSION is every package's version: a new one reinstalls them so that their metadata says it.
$(STAMP): VERSION requirements.txt requirements-build.txt requirements-dev.txt $(foreach p,$(PACKAGES),$(p)/pyproject.toml)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation $(foreach p,$(PACKAGES),-e $(p))
	@touch $(STAMP)

install: $(STAMP)

$(CHECKOV)/.installed: requirements-checkov.txt
	@test -x $(CHECKOV)/bin/python || $(PYTHON) -m venv $(CHECKOV)
	$(CHECKOV)/bin/python -m pip install --quiet -r requirements-checkov.txt
	@touch $@

$(TEST_STAMP): $(STAMP) $(CHECKOV)/.installed requirements-test.txt sdk/typescript/package-lock.json \
		$(BROWSER_TESTS)/package-lock.json
	$(PY) -m pip install --quiet -r requirements-test.txt
	cd sdk/typescript && npm ci --no-audit --no-fund --loglevel=error
	npm ci --prefix $(BROWSER_TESTS) --no-audit --no-fund --loglevel=error
	@touch $(TEST_STAMP)

dev: install
	$(PY) -m printcloud.devstack

# mypy-protobuf writes the type stubs of the messages and of the (asyncio-only) service stubs,
# which grpc_tools leaves untyped; servicer bases stay concrete, as grpc's generated ones are.
proto: install
	$(PY) -m grpc_tools.protoc -I proto --python_out=$(PROTO_OUT) --grpc_python_out=$(PROTO_OUT) \
		--plugin=protoc-gen-mypy=$(VENV)/bin/protoc-gen-mypy --mypy_out=quiet:$(PROTO_OUT) \
		--plugin=protoc-gen-mypy_grpc=$(VENV)/bin/protoc-gen-mypy_grpc \
		--mypy_grpc_out=only_async,generate_concrete_servicer_stubs,quiet:$(PROTO_OUT) \
		proto/printcloud/v1/*.proto

# Regenerates the stubs and fails when the committed ones differ.
proto-check: proto
	@git diff --exit-code -- $(PROTO_OUT)/printcloud/v1 || \
		(echo "gRPC stubs are stale: run 'make proto' and commit the result" >&2; exit 1)

# The SDKs from the OpenAPI document: the document as the gateway builds it (sdk/openapi.json), the
# Python SDK's models and its synchronous client, and the TypeScript SDK's types. Commit the result;
# tests/sdk fails while any of them is stale.
sdk: install
	$(PY) -m printcloud.api_gateway.transport.openapi_file sdk/openapi.json
	$(PY) sdk/python/tools/generate_models.py sdk/openapi.json
	$(PY) sdk/python/tools/unasync.py
	cd sdk/typescript && npm ci --no-audit --no-fund && npm run generate

# mypy names a test module after its file alone (conftest, test_…), so each package's tests are
# checked in a run of their own.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache --no-logo
	$(VENV)/bin/mypy
	@for tests in $(wildcard libs/*/tests services/*/tests agent/tests sdk/python/tests); do \
		echo "$(VENV)/bin/mypy $$tests"; $(VENV)/bin/mypy $$tests || exit 1; done

test: $(TEST_STAMP) proto-check lint agent-dist
	$(PY) -m pytest

# The pinned wheels the single-file agent bundles, for every platform it targets: fetched from
# PyPI once, like the rest of the install, so that building the agent never downloads.
$(AGENT_WHEELS)/.downloaded: $(STAMP) agent/packaging/requirements.txt
	$(PY) agent/packaging/build.py download --wheels $(AGENT_WHEELS)
	@touch $@

# The agent in one file (a PEX for python3 3.11+ on Linux and macOS) and as a .deb, in dist/agent
# (agent/INSTALL.md). Offline once the wheels are fetched; about 10 s.
agent-dist: $(AGENT_WHEELS)/.downloaded
	$(PY) agent/packaging/build.py build --wheels $(AGENT_WHEELS) --out dist/agent

# One table: every performance figure against a stack of its own, beside the bare parts (docs/performance.md).
bench: $(TEST_STAMP)
	$(PY) -m printcloud.devstack.bench

# Narrower measurements of single parts (rate limiter, instrumentation, webhooks, dashboard).
bench-parts: $(TEST_STAMP)
	$(PY) -m pytest -m bench -s -q

# Every fault under a steady load, one at a time then several at once; long (see docs/reliability.md).
faults: $(TEST_STAMP)
	$(PY) -m pytest -m faults tests/faults -s -q

# The previous release (tag or releases.toml) upgraded to this tree under load, process by process,
# then rolled back; about 7 minutes on a busy 2-core machine, plus about a minute the first time to
# install the previous release into .venv/releases/ (docs/upgrades.md). `make test` runs a sample.
upgrade-test: $(TEST_STAMP)
	$(PY) -m pytest -m upgrade tests/upgrade -s -q

clean:
	rm -rf $(VENV) .dev dist
