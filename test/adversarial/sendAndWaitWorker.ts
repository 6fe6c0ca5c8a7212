/**
 * A stand-in for an n8n worker process (sendAndWaitKilled.test.ts): runs "Send and Wait for
 * Delivery" (polling) in n8n-core's real contexts, its limit and send ledger shared through Redis,
 * until the test SIGKILLs it. Argument: the JSON setup.
 */
import { executeNode } from '../helpers/n8n';
import { sendAndWaitParameters } from './waitingN8n';

const { credentials, phones, executionId } = JSON.parse(process.argv[2]) as { credentials: Record<string, string | number | boolean>; phones: string[]; executionId: string };

void executeNode(
	{ parameters: sendAndWaitParameters('polling', 60, { pollInterval: 1 }), credentials: { svcMessagingApi: credentials }, executionId },
	phones.map((phone) => ({ phone })),
).then(() => process.exit(0), () => process.exit(1));
