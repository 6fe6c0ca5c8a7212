/**
 * The package's node and credential classes for code that may run under ts-node (the bench, its
 * workers, the demo and dev scripts go through test/helpers/n8n.ts). They are loaded by their `.ts`
 * file name: `import … from '…/SvcMessaging.node'` is a trap outside jest, because Node tries
 * `.json` before ts-node's `.ts` and so loads the codex file SvcMessaging.node.json instead.
 * tsNodeImports.test.ts keeps every ts-node entry point free of that trap.
 */
import type * as ActionNode from '../../nodes/SvcMessaging/SvcMessaging.node';
import type * as TriggerNode from '../../nodes/SvcMessaging/SvcMessagingTrigger.node';
import type * as ApiCredential from '../../credentials/SvcMessagingApi.credentials';
import type * as AccountCredential from '../../credentials/SvcMessagingAccountApi.credentials';

function load<T>(path: string): T {
	// An explicit extension: the only file this can resolve to is the TypeScript source.
	return require(`${path}.ts`) as T;
}

export const { SvcMessaging } = load<typeof ActionNode>('../../nodes/SvcMessaging/SvcMessaging.node');
export const { SvcMessagingTrigger } = load<typeof TriggerNode>('../../nodes/SvcMessaging/SvcMessagingTrigger.node');
export const { SvcMessagingApi } = load<typeof ApiCredential>('../../credentials/SvcMessagingApi.credentials');
export const { SvcMessagingAccountApi } = load<typeof AccountCredential>('../../credentials/SvcMessagingAccountApi.credentials');
