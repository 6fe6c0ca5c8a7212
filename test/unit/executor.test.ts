import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runOperation, type SendOperation } from '../../nodes/SvcMessaging/actions/executor';
import { fakeContext } from './fakeContext';

const items = (n: number): INodeExecutionData[] => Array.from({ length: n }, (_, i) => ({ json: { i } }));

describe('actions/executor.ts: the one per-item loop', () => {
	it('lookups: one output item per result, each paired with its input item', async () => {
		const { ctx } = fakeContext();
		const out = await runOperation(ctx, { execute: async (i) => (i === 1 ? [{ a: 1 }, { a: 2 }] : { i }) }, items(2));
		expect(out).toEqual([[
			{ json: { i: 0 }, pairedItem: { item: 0 } },
			{ json: { a: 1 }, pairedItem: { item: 1 } },
			{ json: { a: 2 }, pairedItem: { item: 1 } },
		]]);
	});

	it('lookups: an error names its item; with Continue On Fail it is an error item paired with its input', async () => {
		const failing = { execute: async (i: number): Promise<IDataObject> => { if (i === 1) throw new Error('boom'); return { i }; } };
		await expect(runOperation(fakeContext().ctx, failing, items(2))).rejects.toMatchObject({ message: 'boom', context: { itemIndex: 1 } });
		const out = await runOperation(fakeContext({ continueOnFail: true }).ctx, failing, items(2));
		expect(out[0][1]).toMatchObject({ json: { error: 'boom' }, pairedItem: { item: 1 } });
	});

	it('sends: every item is prepared before anything is sent, and one bad item stops the send', async () => {
		const { ctx } = fakeContext();
		const sent: unknown[] = [];
		const operation: SendOperation<number> = {
			preparer: () => async (i: number) => {
				if (i === 2) throw new NodeOperationError(ctx.getNode(), 'Item 2: "Phone Number" is wrong', { itemIndex: 2 });
				return i * 10;
			},
			send: async (prepared) => {
				sent.push(...prepared);
				return [];
			},
		};
		await expect(runOperation(ctx, operation, items(3))).rejects.toThrow('Item 2: "Phone Number" is wrong');
		expect(sent).toEqual([]);
	});

	it('an error whose message names its item keeps no item index, so n8n\'s editor does not add " [item 2]" to "Item 2: …"', async () => {
		const { ctx } = fakeContext();
		const refusing = (message: string): SendOperation<number> => ({
			preparer: () => (i: number) => {
				if (i === 2) throw new NodeOperationError(ctx.getNode(), message, { itemIndex: 2 });
				return i;
			},
			send: async () => [],
		});
		const named = (await runOperation(ctx, refusing('Item 2: "Phone Number" is wrong'), items(3)).catch((e: unknown) => e)) as NodeOperationError;
		expect([named.message, named.context.itemIndex]).toEqual(['Item 2: "Phone Number" is wrong', undefined]);
		const several = (await runOperation(ctx, refusing('Items 1, 2 share Idempotency Key "k"'), items(3)).catch((e: unknown) => e)) as NodeOperationError;
		expect(several.context.itemIndex).toBeUndefined();
		// A message that does not name its item keeps the index: the editor then says which item.
		const bare = (await runOperation(ctx, refusing('The service is unavailable'), items(3)).catch((e: unknown) => e)) as NodeOperationError;
		expect(bare.context.itemIndex).toBe(2);
	});

	it('sends: with Continue On Fail the bad items reach send as failures, in input order', async () => {
		const { ctx } = fakeContext({ continueOnFail: true });
		let seen: unknown[] = [];
		const operation: SendOperation<number> = {
			preparer: () => async (i: number) => {
				if (i === 0) throw new Error('bad');
				return i;
			},
			send: async (prepared) => {
				seen = prepared;
				return [{ json: {}, pairedItem: { item: 0 } }];
			},
		};
		expect(await runOperation(ctx, operation, items(2))).toEqual([[{ json: {}, pairedItem: { item: 0 } }]]);
		expect(seen[0]).toMatchObject({ itemIndex: 0, error: { message: 'bad' } });
		expect(seen[1]).toBe(1);
	});

	it('the preparer is built once per run, and reads each item in order', async () => {
		const { ctx } = fakeContext();
		let built = 0;
		const read: number[] = [];
		const operation: SendOperation<number> = {
			preparer: () => {
				built++;
				return (i) => {
					read.push(i);
					return i;
				};
			},
			send: async (prepared) => prepared.map((p, i) => ({ json: { p: p as number }, pairedItem: { item: i } })),
		};
		await runOperation(ctx, operation, items(5));
		expect(built).toBe(1);
		expect(read).toEqual([0, 1, 2, 3, 4]);
	});

	it('a resumed wait is sorted by resume, not prepared or sent again', async () => {
		const { ctx } = fakeContext();
		const operation: SendOperation<number> = {
			preparer: () => {
				throw new Error('must not prepare');
			},
			send: async () => {
				throw new Error('must not send');
			},
			resume: async (input) => [input, []],
			multipleOutputs: true,
		};
		expect(await runOperation(ctx, operation, items(1))).toEqual([[{ json: { i: 0 } }], []]);
	});
});
