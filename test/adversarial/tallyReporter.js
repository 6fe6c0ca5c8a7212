/**
 * Prints the adversarial suite's one-line summary from the cases tally.ts recorded:
 * `adversarial: N cases, 0 sent twice, 0 lost, 0 forged accepted, peak heap per waiting execution X KB`.
 */
const { existsSync, readFileSync, unlinkSync } = require('fs');
const { tmpdir } = require('os');
const { join } = require('path');

const file = process.env.SVC_ADVERSARIAL_TALLY ?? join(tmpdir(), 'svc-adversarial-tally.jsonl');

class TallyReporter {
	/**
	 * scripts/adversarial.sh runs jest several times over one tally (SVC_ADVERSARIAL_PHASE first, more,
	 * last): the first run starts it, the last prints it; a run without a phase does both.
	 */
	onRunStart() {
		const phase = process.env.SVC_ADVERSARIAL_PHASE;
		if ((phase === undefined || phase === 'first') && existsSync(file)) unlinkSync(file);
	}

	onRunComplete() {
		const phase = process.env.SVC_ADVERSARIAL_PHASE;
		if (phase === 'first' || phase === 'more') return;
		const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
		const cases = lines.map((line) => JSON.parse(line));
		const sum = (key) => cases.reduce((total, c) => total + (c[key] ?? 0), 0);
		const heaps = cases.map((c) => c.peakHeapPerWaitKB).filter((value) => typeof value === 'number');
		const heap = heaps.length ? `${Math.round(Math.max(...heaps))} KB` : 'not measured';
		console.log(
			`\nadversarial: ${cases.length} cases, ${sum('sentTwice')} sent twice, ${sum('lost')} lost, ${sum('forgedAccepted')} forged accepted, peak heap per waiting execution ${heap}`,
		);
	}
}

module.exports = TallyReporter;
