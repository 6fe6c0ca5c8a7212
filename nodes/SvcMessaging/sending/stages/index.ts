import { agentCap } from './agentCap';
import { doNotSendList } from './doNotSendList';
import { dryRun } from './dryRun';
import { idempotencyKey } from './idempotencyKey';
import { ledgerLookup } from './ledgerLookup';
import { maxCredits } from './maxCredits';
import { sendingHours } from './sendingHours';
import { senderIdAutomatic } from './senderIdAutomatic';
import type { RunSource, Stage, StageSettings } from './stage';

/**
 * The order in which the round (../round.ts) applies the stages to every sending operation: the
 * user's policies first (a suppressed, skipped, refused or dry-run message posts and marks
 * nothing), then what keeps a message from going twice, then the agents' cap, right before the
 * posts. A new policy is one file here and one line in this list.
 */
export const SEND_STAGES: readonly Stage[] = [
	senderIdAutomatic,
	doNotSendList,
	sendingHours,
	maxCredits,
	dryRun,
	ledgerLookup,
	idempotencyKey,
	agentCap,
];

/**
 * What every stage reads of the run (its options, checked before any request), in the order of
 * the list: a bad value is named before any request is made.
 */
export async function readStages(source: RunSource): Promise<StageSettings> {
	const settings: StageSettings = { dryRun: false };
	for (const stage of SEND_STAGES) if (stage.read) Object.assign(settings, await stage.read(source));
	return settings;
}
