#!/usr/bin/env bash
# npm run test:adversarial: the attack and broken-parts cases, then the memory cases, each memory
# file alone in a jest run of its own (a worker that ran other files first still holds their
# leftovers, and a busy machine delays the garbage collector: both blur a heap measurement). One
# tally file for all the runs; the last prints the line
# `adversarial: N cases, 0 sent twice, 0 lost, 0 forged accepted, peak heap per waiting execution X KB`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-services.sh redis
export SVC_ADVERSARIAL_TALLY
SVC_ADVERSARIAL_TALLY=$(mktemp -u "${TMPDIR:-/tmp}/svc-adversarial-XXXXXX.jsonl")
jest=(node_modules/jest/bin/jest.js -c jest.adversarial.config.js)
memory=(test/adversarial/*Memory.test.ts)
status=0
SVC_ADVERSARIAL_PHASE=first node --expose-gc "${jest[@]}" --testPathIgnorePatterns 'Memory\.test\.ts$' || status=$?
for n in "${!memory[@]}"; do
	phase=more
	[ "$n" -eq $((${#memory[@]} - 1)) ] && phase=last
	# Without V8's compilation cache (5-6 MB of compiled code that ages out after some number of GCs)
	# and its memory reducer (GCs when V8 judges the process idle): both moved the heap between a
	# test's before and after figures by more than the bound under test, at moments no test controls.
	SVC_ADVERSARIAL_PHASE=$phase node --expose-gc --no-compilation-cache --no-memory-reducer "${jest[@]}" --runInBand "${memory[$n]}" || status=$?
done
rm -f "$SVC_ADVERSARIAL_TALLY"
exit "$status"
