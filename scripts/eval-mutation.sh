#!/usr/bin/env bash
# The mutation check: build mnemo with a deliberately broken thread-key
# derivation (per message instead of per thread) and require every
# thread-dependent scenario of the eval suite (a reply in a thread, or an
# assertion on a thread of several messages) to fail against it. One that
# passes has assertions that don't bite; mnemo-eval --mutant names it.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
# The build tags beside the mutant's are the Makefile's GOTAGS, so that it differs
# from make build's binary only by the mutation.
go build -tags "mnemo_mutant_per_message_key${GOTAGS:+,$GOTAGS}" -o bin/mnemo-mutant ./cmd/mnemo || exit 2
go build -o bin/mnemo-eval ./cmd/mnemo-eval || exit 2
./bin/mnemo-mutant eval --mutant
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "mutation check FAILED (exit $rc): see above" >&2
fi
exit "$rc"
