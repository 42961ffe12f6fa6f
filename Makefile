# Conveniences for developers; .ci/run is what CI runs.
SHELL := /bin/bash
.PHONY: build test race check bench fuzz eval

build:
	CGO_ENABLED=0 go build -o bin/moat ./cmd/moat

test:
	go test ./...

race:
	go test -race ./...

check:
	.ci/run

bench:
	go test -run='^$$' -bench=. -benchmem ./internal/engine/ ./internal/glob/ ./internal/shell/ ./internal/scan/...

# Run each fuzz target for FUZZTIME (default 30s).
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$(go list ./...); do \
	  for f in $$(go test -list='^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; go test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

# Score moat on the public corpora in ../shared/evaldata (or $MOAT_EVALDATA): the
# recommended policy on shell commands, the secret detectors on detect-secrets' baseline,
# the prompt-injection detector on CyberSecEval, BIPIA and the benign corpus.
eval:
	MOAT_EVAL=1 go test -count=1 -run '^TestEval' -v ./internal/engine/ ./internal/scan/... | grep -v -E '^\s+\S+_test.go:[0-9]+: (found|listed|cyberseceval MISSED|bipia MISSED)'; exit $${PIPESTATUS[0]}
