# mnemo's developer commands. `make run` and `make test` set everything up.

MNEMO_PG_PORT ?= 54329
LOCAL_DB_URL := postgres://postgres@127.0.0.1:$(MNEMO_PG_PORT)/mnemo?sslmode=disable
ifeq ($(origin DATABASE_URL),undefined)
DATABASE_URL := $(LOCAL_DB_URL)
DB_DEP := db
# The benches time the local cluster in huge pages where the kernel allows
# (scripts/db.sh hugepages; docs/scale.md, "Huge pages").
BENCH_DB_DEP := db-hugepages
endif
export DATABASE_URL

GO ?= go
# Every go command here builds with these tags. grpcnotrace (grpc-go's own
# switch) leaves out golang.org/x/net/trace, which the OpenTelemetry gRPC
# exporter would link in: its init executes an html/template, and a
# binary that can execute a template keeps every exported method of every
# type (the linker cannot tell which a template calls by name). That
# doubled bin/mnemo (131 MB against 78 MB) and, since the kernel maps a
# binary's pages in large folios, raised serve's idle RSS from 50 to
# 72 MB. The Dockerfile and .goreleaser.yaml build with the same tag
# (deploy/deploy_test.go checks).
GOTAGS := grpcnotrace
export GOFLAGS := $(strip $(GOFLAGS) -tags=$(GOTAGS))
SQLC := $(GO) -C devtools tool sqlc -f ../sqlc.yaml
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: all build run chat test vet lint fuzz fuzz-smoke soak bench bench-locomo bench-serve bench-vector db db-hugepages db-stop generate check-generated eval eval-live eval-embed eval-mutation clean

all: build

## build: bin/mnemo, and bin/mnemo-eval, the eval runner `mnemo eval` runs
build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o bin/mnemo ./cmd/mnemo
	$(GO) build -o bin/mnemo-eval ./cmd/mnemo-eval

## run: start local PostgreSQL, migrate, build and serve the Slack bot
run: $(DB_DEP) build
	./bin/mnemo migrate
	./bin/mnemo serve

## chat: talk to mnemo in the terminal (needs only a model key)
chat: $(DB_DEP) build
	./bin/mnemo migrate
	./bin/mnemo chat

## test: everything the tests need, PostgreSQL included, under the race detector
test: $(DB_DEP)
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 20m ./...

vet:
	$(GO) vet ./...

## lint: staticcheck, pinned in devtools/go.mod
lint:
	$(GO) -C devtools build -o ../bin/staticcheck honnef.co/go/tools/cmd/staticcheck
	./bin/staticcheck ./...

## eval: the memory workflow evals with the scripted model
eval: $(DB_DEP) build
	./bin/mnemo eval

## eval-live: the evals against the configured provider, graded by MNEMO_JUDGE_MODEL
eval-live: $(DB_DEP) build
	./bin/mnemo eval --live

## eval-embed: recall on LoCoMo's development split (LOCOMO_DIR) through the embedding endpoint
## serve would use (MNEMO_EMBEDDING_MODEL, MNEMO_EMBEDDING_BASE_URL, MNEMO_LLM_API_KEY or
## OPENAI_API_KEY): recall by category, lexical beside hybrid. Exits 2 when none is configured,
## 1 when it does not answer (not part of test or CI)
eval-embed: $(DB_DEP)
	$(GO) run ./cmd/mnemo-bench --only embed

## eval-mutation: the evals must fail against per-message thread keys
eval-mutation: $(DB_DEP)
	GOTAGS=$(GOTAGS) ./scripts/eval-mutation.sh

## fuzz: every fuzz target (each func Fuzz* in a _test.go), FUZZTIME each (default 30s)
FUZZTIME ?= 30s
fuzz: $(DB_DEP)
	@set -e; for dir in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
		for target in $$(grep -h '^func Fuzz' $$dir/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do \
			echo "$(GO) test -run '^$$' -fuzz '^$$target\$$' -fuzztime $(FUZZTIME) $$dir"; \
			$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $$dir; \
		done; \
	done

## fuzz-smoke: every fuzz target for 10,000 inputs, as CI runs them. A count, not a duration:
## with a duration, Go 1.26's fuzzing coordinator can fail a target with a bare "context
## deadline exceeded" as the time runs out (golang/go#75804, fixed for Go 1.27).
fuzz-smoke:
	$(MAKE) fuzz FUZZTIME=10000x

## soak: drive the real `mnemo serve` with the fake Slack and model for SOAK_DURATION
## (default 10m): steady mentions, follow-ups, DMs, slash commands and remembers, a kill -9
## and a PostgreSQL restart partway; fails on a post lost or answered twice, or on growth
## that does not level off (not part of test)
SOAK_DURATION ?= 10m
soak: $(DB_DEP) build
	$(GO) run ./cmd/mnemo-soak --mnemo bin/mnemo --duration $(SOAK_DURATION)

## bench: seed the corpora (10k and 100k memories; MILLION=1 adds a million), run the Go benchmarks and the bench
## command, which also drives the real `mnemo serve` against the fakes; print one table and
## write it to bench/RESULTS.md (about ten minutes; not part of test). The benches first move the
## local cluster into huge pages where the kernel lets them (make db-hugepages)
bench: $(BENCH_DB_DEP) build
	@mkdir -p bench/out
	$(GO) test -run '^$$' -bench . -benchmem -timeout 20m ./memory/ ./tools/ ./threads/ > bench/out/gobench.txt || (cat bench/out/gobench.txt; exit 1)
	$(GO) test -run '^$$' -bench 'AckLatency|Enqueue' -benchtime 2000x -count 3 -timeout 10m ./slackapp/ ./inbox/ >> bench/out/gobench.txt || (cat bench/out/gobench.txt; exit 1)
	@cat bench/out/gobench.txt
	$(GO) run ./cmd/mnemo-bench --gobench bench/out/gobench.txt --mnemo bin/mnemo --logs bench/out --out bench/RESULTS.md $(if $(MILLION),--million)

## bench-locomo: only recall on LoCoMo, from LOCOMO_DIR, printed shape by shape: seconds for
## the channel and personal shapes, about three minutes more for the noisy one (SHAPES=channel,personal
## leaves it out); writes nothing
bench-locomo: $(DB_DEP)
	$(GO) run ./cmd/mnemo-bench --only locomo $(if $(SHAPES),--locomo-shapes $(SHAPES))

## bench-serve: only the serve run of make bench (turn overhead, 50 mentions at once, RSS), over
## an empty database and a corpus of SERVE_SIZE memories (default 1000000; 100000 loads in a
## minute); prints the rows, writes nothing
SERVE_SIZE ?= 1000000
bench-serve: $(BENCH_DB_DEP) build
	$(GO) run ./cmd/mnemo-bench --only serve --sizes $(SERVE_SIZE) --mnemo bin/mnemo

## bench-vector: recall by meaning over VECTOR_ROWS memories (default 100000, a few minutes;
## MILLION=1 runs a million, about an hour): clustered embeddings at 512 and 768 dimensions, a
## workspace of a tenth of the rows; HNSW build time and bytes, the vector leg's recall@10
## against an exact scan, hybrid auto-recall p95, remember with the embedding job on and off,
## the vector leg's visibility; writes its section of bench/RESULTS.md (not part of test)
VECTOR_ROWS ?= $(if $(MILLION),1000000,100000)
bench-vector: $(BENCH_DB_DEP)
	$(GO) run ./cmd/mnemo-bench --only vector --vector-rows $(VECTOR_ROWS) --out bench/RESULTS.md

## db: start the project-local PostgreSQL cluster (.data/postgres, 127.0.0.1:$MNEMO_PG_PORT, default 54329)
db:
	@./scripts/db.sh start

## db-hugepages: restart the local cluster in 2 MB pages, reserved from the kernel where it allows
## (root); db-stop gives them back
db-hugepages:
	@./scripts/db.sh hugepages

db-stop:
	@./scripts/db.sh stop

## generate: regenerate sqlc code (sqlc pinned in devtools/go.mod)
generate:
	$(SQLC) generate

## check-generated: fail when generated code is stale
check-generated:
	$(SQLC) diff

clean:
	rm -rf bin

## check-deploy: lint and render the Helm chart (helm pinned in devtools/go.mod) with the least
## values its schema accepts, in socket and in http mode, and check that it refuses none or
## unknown ones; then check the rendered objects, compose.yaml, the Dockerfile's build, the
## systemd unit, the Grafana dashboard (valid JSON, every query naming a metric ops registers),
## and .goreleaser.yaml with `goreleaser check` (pinned in devtools/go.mod too)
.PHONY: check-deploy
HELM := $(GO) -C devtools tool helm
GORELEASER := $(GO) -C devtools tool goreleaser
CHART := ../deploy/helm/mnemo
CHART_VALUES := $(CHART)/ci/check-values.yaml
# The chart in http mode, with every optional object of that mode.
CHART_HTTP := --set slack.mode=http --set ingress.enabled=true --set ingress.host=mnemo.example.com --set autoscaling.enabled=true --set secrets.slackSigningSecret=x
check-deploy:
	$(GO) test -count=1 ./ops/ -run TestGrafanaDashboardQueriesNameExistingMetrics
	$(HELM) lint --strict $(CHART) --values $(CHART_VALUES)
	$(HELM) lint --strict $(CHART) --values $(CHART_VALUES) --set serviceMonitor.enabled=true
	$(HELM) lint --strict $(CHART) --values $(CHART_VALUES) $(CHART_HTTP)
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	echo "$(HELM) template mnemo $(CHART) --values $(CHART_VALUES) [--set serviceMonitor.enabled=true | $(CHART_HTTP)]"; \
	$(HELM) template mnemo $(CHART) --values $(CHART_VALUES) > "$$tmp/default.yaml"; \
	$(HELM) template mnemo $(CHART) --values $(CHART_VALUES) --set serviceMonitor.enabled=true > "$$tmp/servicemonitor.yaml"; \
	$(HELM) template mnemo $(CHART) --values $(CHART_VALUES) $(CHART_HTTP) > "$$tmp/http.yaml"; \
	if $(HELM) template mnemo $(CHART) --values $(CHART_VALUES) --set ingress.enabled=true --set ingress.host=x >/dev/null 2>&1; then echo "an Ingress in socket mode must be refused"; exit 1; fi; \
	echo "$(HELM) lint|template mnemo $(CHART) [--set replicas=2 | --set slack.mode=http]: must fail"; \
	if $(HELM) template mnemo $(CHART) > /dev/null 2> "$$tmp/novalues.txt"; then echo "helm template with no values rendered: values.schema.json must require the model and a secret source"; exit 1; fi; \
	if $(HELM) lint --strict $(CHART) > "$$tmp/lint-novalues.txt" 2>&1; then echo "helm lint with no values passed: values.schema.json must require the model and a secret source"; exit 1; fi; \
	if $(HELM) template mnemo $(CHART) --values $(CHART_VALUES) --set replicas=2 > /dev/null 2> "$$tmp/unknown.txt"; then echo "helm template accepted an unknown value: values.schema.json must be strict"; exit 1; fi; \
	if $(HELM) template mnemo $(CHART) --values $(CHART_VALUES) --set slack.mode=http > /dev/null 2> "$$tmp/http-nosecret.txt"; then echo "helm template in http mode without the signing secret rendered: values.schema.json must require it"; exit 1; fi; \
	$(GO) test -count=1 ./deploy/ -args -rendered-default="$$tmp/default.yaml" -rendered-servicemonitor="$$tmp/servicemonitor.yaml" -rendered-http="$$tmp/http.yaml" \
		-schema-error-novalues="$$tmp/novalues.txt" -schema-error-unknown="$$tmp/unknown.txt" \
		-schema-error-http="$$tmp/http-nosecret.txt" -build-image-binary
	$(GORELEASER) check ../.goreleaser.yaml
