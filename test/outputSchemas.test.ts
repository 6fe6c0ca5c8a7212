/**
 * The output schemas the package ships (nodes/SvcMessaging/__schema__, copied to dist by
 * the build) let the editor map fields before the first run. n8n serves
 * `__schema__/v<version padded to x.y.z>/<resource>/<operation>.json` next to the node's file
 * (`__schema__/v1.0.0.json` for the trigger, which has neither), and the editor reads JSON Schema
 * objects. Each schema here must describe what the operation really outputs at the emulator:
 * every output field is in the schema with its type. `WRITE_SCHEMAS=1` writes them from these outputs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { dirname, join } from 'path';

import type { IDataObject } from 'n8n-workflow';

import { useEmulator } from './helpers/emulatorFixture';
import { parseDeliveryReport } from '../nodes/SvcMessaging/trigger/payload';
import { flattenReport } from '../nodes/SvcMessaging/trigger/output';
import { executeNode } from './helpers/n8n';
import { apiKeyCredentials, noSender } from './sms/fixtures';

const SCHEMA_DIR = join(__dirname, '../nodes/SvcMessaging/__schema__');

interface JsonSchema {
	type: string | string[];
	properties?: Record<string, JsonSchema>;
	items?: JsonSchema;
}

/** n8n's own inference (editor's schemaPreview store), with a field that is null in one output and set in another typed as both. */
function inferType(value: unknown): JsonSchema {
	if (value === null || value === undefined) return { type: 'null' };
	if (Array.isArray(value)) return { type: 'array', items: value.length ? inferType(value[0]) : { type: 'string' } };
	if (typeof value === 'object') {
		return { type: 'object', properties: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inferType(v)])) };
	}
	return { type: typeof value };
}

function merge(a: JsonSchema | undefined, b: JsonSchema): JsonSchema {
	if (!a) return b;
	const types = [...new Set([a.type, b.type].flat())].sort();
	const merged: JsonSchema = { type: types.length === 1 ? types[0] : types.filter((t) => t !== 'null').length === 1 ? types.filter((t) => t !== 'null')[0] : types };
	if (a.properties || b.properties) {
		const keys = [...new Set([...Object.keys(a.properties ?? {}), ...Object.keys(b.properties ?? {})])];
		merged.properties = Object.fromEntries(keys.map((k) => [k, merge(a.properties?.[k], b.properties?.[k] ?? a.properties![k])]));
	}
	if (a.items || b.items) merged.items = merge(a.items, (b.items ?? a.items)!);
	return merged;
}

function schemaOf(outputs: IDataObject[]): JsonSchema {
	return outputs.map(inferType).reduce<JsonSchema | undefined>((acc, s) => merge(acc, s), undefined)!;
}

/** Every field of `value` is in `schema`, with its type (null is allowed anywhere: a field not set yet). */
function expectDescribed(schema: JsonSchema, value: unknown, path = '$') {
	if (value === null) return;
	const actual = inferType(value).type as string;
	expect([path, [schema.type].flat()]).toEqual([path, expect.arrayContaining([actual])]);
	if (actual === 'object') {
		for (const [k, v] of Object.entries(value as IDataObject)) {
			expect([`${path}.${k}`, Object.keys(schema.properties ?? {})]).toEqual([`${path}.${k}`, expect.arrayContaining([k])]);
			expectDescribed(schema.properties![k], v, `${path}.${k}`);
		}
	}
	if (actual === 'array') for (const v of value as unknown[]) expectDescribed(schema.items!, v, `${path}[]`);
}

function check(file: string, outputs: IDataObject[]) {
	const path = join(SCHEMA_DIR, file);
	if (process.env.WRITE_SCHEMAS) {
		mkdirSync(dirname(path), { recursive: true });
		writeFileSync(path, JSON.stringify(schemaOf(outputs), null, '\t') + '\n');
	}
	expect(existsSync(path)).toBe(true);
	const schema = JSON.parse(readFileSync(path, 'utf8')) as JsonSchema;
	// What the editor requires of a schema preview (non-empty object properties).
	expect(schema.type).toBe('object');
	expect(Object.keys(schema.properties ?? {}).length).toBeGreaterThan(3);
	for (const output of outputs) expectDescribed(schema, output);
}

// Not reset between tests: the lookups read what the sends before them sent.
const emu = useEmulator({ resetEachTest: false });

const run = async (parameters: IDataObject, items: IDataObject[]) =>
	(await executeNode({ parameters: { resource: 'sms', senderId: noSender, ...parameters }, credentials: apiKeyCredentials(emu.url), typeVersion: 2 }, items))
		.flat()
		.map((i) => i.json);

const phones = [{ phone: '+254712345678' }, { phone: '+254712345999' }];

describe('output schemas (node version 2)', () => {
	it('SMS → Send', async () => {
		const out = [
			...(await run({ operation: 'send', phoneNumber: '={{ $json.phone }}', message: 'Your code is 123456', options: {} }, phones)),
			// Replace Look-Alike Characters on: the output lists what was replaced.
			...(await run({ operation: 'send', phoneNumber: '={{ $json.phone }}', message: 'We’re here', options: { replaceLookalikes: true } }, phones.slice(0, 1))),
		];
		expect(emu.control.messages()).toHaveLength(3);
		check('v2.0.0/sms/send.json', out);
	});

	it('SMS → Send Bulk', async () => {
		const bulk = { operation: 'sendBulk', recipientsSource: 'items', phoneNumber: '={{ $json.phone }}', variablesSource: 'allFields' };
		const out = [
			...(await run({ ...bulk, message: 'Hi', options: {} }, phones)),
			...(await run({ ...bulk, message: 'We’re here', options: { replaceLookalikes: true } }, phones.slice(0, 1))),
		];
		expect(emu.control.messages()).toHaveLength(6);
		check('v2.0.0/sms/sendBulk.json', out);
	});

	it('SMS → Send and Wait for Delivery (both outputs)', async () => {
		const out = await run(
			{ operation: 'sendAndWaitForDelivery', phoneNumber: '={{ $json.phone }}', message: 'Hi', waitMode: 'polling', timeout: 30, options: { pollInterval: 1 } },
			phones,
		);
		expect(out.map((o) => o.status)).toEqual(['DELIVERED', 'FAILED']);
		check('v2.0.0/sms/sendAndWaitForDelivery.json', out);
	});

	it('SMS → Get Message', async () => {
		const sent = emu.control.messages().slice(0, 2);
		const out = await run({ operation: 'getMessage', messageId: '={{ $json.messageId }}' }, sent.map((m) => ({ messageId: m.messageId })));
		expect(out.map((o) => o.messageId)).toEqual(sent.map((m) => m.messageId));
		check('v2.0.0/sms/getMessage.json', out);
	});

	it('SVC Messaging Trigger (version 1)', () => {
		const message = { messageId: 'msg_1', batchId: 'batch_1', phoneNumber: '+254712345678', senderId: 'ACMEKE', reference: 'order-1', creditsUsed: 1 };
		const bodies = [
			{ event: 'message.delivered', timestamp: '2026-01-01T10:00:00Z', data: { ...message, status: 'DELIVERED', deliveredAt: '2026-01-01T10:00:00Z' } },
			{ event: 'message.failed', timestamp: '2026-01-01T10:00:00Z', data: { ...message, status: 'FAILED', reason: { code: 'UNREACHABLE', message: 'Handset unreachable' } } },
		];
		const out = bodies.map((body) => {
			const parsed = parseDeliveryReport(Buffer.from(JSON.stringify(body)));
			if (parsed.kind !== 'report') throw new Error(`not a report: ${JSON.stringify(parsed)}`);
			return flattenReport(parsed.report);
		});
		check('v1.0.0.json', out);
	});
});
