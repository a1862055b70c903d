#!/usr/bin/env bash
# The mutation check: build mnemo with a deliberately broken thread-key
# derivation (per message instead of per thread) and require the eval suite
# to fail against it. A suite that passes here has assertions that don't bite.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
go build -tags mnemo_mutant_per_message_key -o bin/mnemo-mutant ./cmd/mnemo || exit 2
go build -o bin/mnemo-eval ./cmd/mnemo-eval || exit 2
out=$(mktemp)
./bin/mnemo-mutant eval >"$out" 2>&1
rc=$?
failed=$(sed -n 's/^eval: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$out")
total=$(grep -c . <(sed -n '/^CASE/,/^eval:/p' "$out" | sed '1d;$d'))
if [ "$rc" -eq 1 ] && [ -n "$failed" ] && [ "$failed" -gt 0 ]; then
	echo "mutation check: the suite failed against per-message keys, as required ($failed of $total scenarios failed)"
	grep -E '  FAIL  ' "$out" | sed -E 's/^([^ ]+) +[0-9.]+ +FAIL +/  - \1: /'
	exit 0
fi
echo "mutation check FAILED: the eval suite did not fail against per-message thread keys (exit $rc)" >&2
cat "$out" >&2
exit 1
