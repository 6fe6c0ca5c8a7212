/**
 * Node version 2 changes defaults, so a workflow saved with version 1 (which holds only
 * its non-default parameters) must run as it did. test/fixtures/workflow-v1.json is such a
 * workflow, one node per operation that version 2 changes; each runs here at its saved version
 * against the emulator, and the requests that reach the emulator and the output items are checked.
 */
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';

import type { IDataObject, INode } from 'n8n-workflow';

import { bothCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { jsonTemplate, templateOp, waitUntil } from '../chat/helpers';

const workflow = JSON.parse(readFileSync(join(__dirname, '../fixtures/workflow-v1.json'), 'utf8')) as { nodes: INode[] };
const saved = (name: string) => workflow.nodes.find((n) => n.name === name)!;

const emu = useEmulator();

/** Runs a node as saved (its parameters and typeVersion), or with a version forced. */
async function runSaved(node: INode, items: IDataObject[] = [{}], typeVersion = node.typeVersion) {
	const [out] = await executeNode({ parameters: node.parameters as IDataObject, credentials: bothCredentials(emu.url), typeVersion }, items);
	return out;
}

const calls = () => emu.control.requests().map((r) => `${r.method} ${r.path.replace(/\/\d+$/, '/:id')} ${r.status}`);

async function approvedTemplate(name: string, body: string) {
	await templateOp(emu.url, 'create', jsonTemplate(name, [{ type: 'BODY', text: body }]));
	await waitUntil(async () => [...emu.state.templates.values()].find((t) => t.name === name && t.status === 'APPROVED'), `${name} approved`);
	emu.control.clearRequests();
}

/** Ids, times and credit balances vary between runs; everything else must be equal. */
function normalized(value: unknown): unknown {
	return JSON.parse(
		// The emulator keeps its times as epoch milliseconds, the node outputs ISO text.
		JSON.stringify(value, (key, v: unknown) => (key.endsWith('At') && typeof v === 'number' ? '<time>' : v))
			.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
			.replace(/"(chat|msg)_[A-Za-z0-9_-]+"/g, '"<$1 id>"'),
	);
}

const golden = join(__dirname, '../fixtures/workflow-v1.outputs.json');
const recorded: Record<string, unknown> = process.env.RECORD_V1_GOLDEN ? {} : JSON.parse(readFileSync(golden, 'utf8'));

/** What the emulator saw and what the node output, compared with the run before version 2. */
function expectAsBefore(name: string, what: unknown) {
	if (process.env.RECORD_V1_GOLDEN) {
		recorded[name] = normalized(what);
		writeFileSync(golden, JSON.stringify(recorded, null, '\t') + '\n');
	}
	expect(normalized(what)).toEqual(recorded[name]);
}

describe('a workflow saved with node version 1 runs as before version 2', () => {
	it('Campaign → Create: one scheduled campaign per item (List of Numbers in Each Item), the typed sender ID, Scheduled Time from Options', async () => {
		const out = await runSaved(saved('Campaign per region'), [
			{ region: 'North', phones: '+254712345678' },
			{ region: 'South', phones: '+254722000111, +254733000222' },
		]);
		expect(out.map((o) => [o.json.name, o.json.status, o.json.totalRecipients])).toEqual([
			['North promotion', 'SCHEDULED', 1],
			['South promotion', 'SCHEDULED', 2],
		]);
		const stored = [...emu.state.campaigns.values()].map((c) => ({ ...c }));
		expect(stored.map((c) => c.senderId)).toEqual(['ACMEKE', 'ACMEKE']);
		expectAsBefore('campaign create', { out, calls: calls(), stored });
	});

	it('Campaign → Update: the typed sender ID and the changed fields', async () => {
		const [created] = await runSaved(saved('Campaign per region'), [{ region: 'East', phones: '+254712345678' }]);
		emu.control.clearRequests();
		const out = await runSaved(saved('Rename campaign'), [created.json]);
		expect(out[0].json).toMatchObject({ id: created.json.id, name: 'Renamed', status: 'SCHEDULED' });
		expectAsBefore('campaign update', { out, calls: calls(), stored: [...emu.state.campaigns.values()].map((c) => ({ ...c })) });
	});

	it('Chat Message with no saved operation is Send (version 2 would make it Send Template): a text message', async () => {
		const out = await runSaved(saved('Chat text'));
		expect(out[0].json).toMatchObject({ accepted: true, type: 'text' });
		expect(emu.control.chatMessages()).toHaveLength(1);
		expectAsBefore('chat text', { out, calls: calls(), sent: emu.control.chatMessages() });
	});

	it('Chat Message → Send with Message Type "Template"', async () => {
		await approvedTemplate('order_shipped', 'Hi {{1}}, your order has shipped');
		const out = await runSaved(saved('Chat template'));
		expect(out[0].json).toMatchObject({ accepted: true, type: 'template', templateName: 'order_shipped' });
		expectAsBefore('chat template', { out, calls: calls(), sent: emu.control.chatMessages() });
	});
});
