#!/usr/bin/env bash
# npm run test:adversarial: the attack and broken-parts cases, then the memory cases, each memory
# file alone in a jest run of its own (a worker that ran other files first still holds their
# leftovers, and a busy machine delays the garbage collector: both blur a heap measurement). One tally file for both runs; the last prints the line
# `adversarial: N cases, 0 sent twice, 0 lost, 0 forged accepted, peak heap per waiting execution X KB`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-services.sh redis
export SVC_ADVERSARIAL_TALLY
SVC_ADVERSARIAL_TALLY=$(mktemp -u "${TMPDIR:-/tmp}/svc-adversarial-XXXXXX.jsonl")
jest=(node --expose-gc node_modules/jest/bin/jest.js -c jest.adversarial.config.js)
memory=(test/adversarial/*Memory.test.ts)
status=0
SVC_ADVERSARIAL_PHASE=first "${jest[@]}" --testPathIgnorePatterns 'Memory\.test\.ts$' || status=$?
for n in "${!memory[@]}"; do
	phase=more
	[ "$n" -eq $((${#memory[@]} - 1)) ] && phase=last
	SVC_ADVERSARIAL_PHASE=$phase "${jest[@]}" --runInBand "${memory[$n]}" || status=$?
done
rm -f "$SVC_ADVERSARIAL_TALLY"
exit "$status"
