import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { SendLedger } from './ledger/ledger';

/**
 * The "under way" mark of one post, made by the request itself (transport/request.ts `beforeSend`)
 * in the key limiter's slot, right before it leaves: a message still waiting for its turn is not
 * marked, so after a kill a Retry sends it and refuses, as of unknown outcome, only what may have
 * reached the service. The round reads afterwards whether the mark was made, and why not.
 */
export interface UnderWay {
	/** handed to the post (or called before it); throws (the request is then not sent) when the ledger refused the mark; once only */
	begin: () => Promise<void>;
	/** whether the post asked for its mark */
	readonly began: boolean;
	/** the ledger's refusal, when the mark could not be made (nothing was sent) */
	readonly failed: { error: unknown } | undefined;
}

export function underWay(node: INode, ledger: SendLedger, identities: string[]): UnderWay {
	let began = false;
	let failed: { error: unknown } | undefined;
	return {
		begin: async () => {
			if (began) return;
			began = true;
			await ledger.begin(identities).catch((error: unknown) => {
				failed = { error };
				throw new NodeOperationError(node, error as Error);
			});
		},
		get began() {
			return began;
		},
		get failed() {
			return failed;
		},
	};
}
