/**
 * What each adversarial case found, counted at the emulator and in the outputs: appended as one JSON
 * line per case to a file the reporter sums up (jest runs test files in separate workers).
 */
import { appendFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

export interface CaseResult {
	/** Messages the emulator accepted more than once for one intended send. */
	sentTwice: number;
	/** Input items that ended as neither an output item nor an error item. */
	lost: number;
	/** Forged, replayed or misdirected reports that changed an item or started an execution. */
	forgedAccepted: number;
	/** Peak heap growth per waiting execution, in KB (memory cases only). */
	peakHeapPerWaitKB?: number;
	/** Peak heap growth per 1,000 recipients of a Send Bulk, in KB (the bulk memory case). */
	peakHeapPer1000RecipientsKB?: number;
}

export const TALLY_FILE = process.env.SVC_ADVERSARIAL_TALLY ?? join(tmpdir(), 'svc-adversarial-tally.jsonl');

/** Records one case; call it after the case's assertions, with the figures it measured. */
export function recordCase(name: string, result: CaseResult): void {
	appendFileSync(TALLY_FILE, `${JSON.stringify({ name, ...result })}\n`);
}
