/**
 * What an n8n user builds without this package, as one minimal node run by the bench worker
 * through n8n-core's real ExecuteContext, so every request goes through n8n-core's own
 * `helpers.httpRequest` (the HTTP Request node's path) in the same process as the package's node:
 *
 * - floor: one request per item with nothing else (no credential, no limiter, no output shaping),
 *   started every 1000 / rate ms: the least CPU any node can spend per SMS. The CPU ratio of Send
 *   to it is in docs/performance.md.
 * - floorLimited: the floor's requests through the package's limiter design and nothing else: one
 *   Bottleneck job per request (minTime 800 / rate, maxConcurrent rate) that sends, waits for the
 *   answer and holds its slot 1 s, every item queued at once (as Send). It against the floor is
 *   what one Bottleneck job per request costs; Send against it is the rest of the package.
 * - loopWait: "Loop Over Items" (batch size 1) → HTTP Request → Wait (1000 / rate ms) → back: one
 *   request per item, each after the previous answer and a wait; HTTP Request's default On Error
 *   would stop the loop at the first 429, so it is set to Continue and the item is lost.
 * - batching: HTTP Request with Options → Batching (rate items per batch, 1,000 ms interval),
 *   modelled on HttpRequestV3.node.ts: the item loop sleeps the interval before every batch after
 *   the first, starts each request without waiting for it, then awaits them all; a 429 fails the item.
 * - bulkChunks: the items chunked into the plan's recipients per call (Code node), then HTTP
 *   Request posting each chunk to the bulk endpoint with Batching 1 item per 1000 / rate ms.
 *
 * Not modelled: n8n's own cost of running Loop Over Items and Wait as nodes (real n8n is slower).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import Bottleneck from 'bottleneck';

export type UserBuild = 'floor' | 'floorLimited' | 'loopWait' | 'batching' | 'bulkChunks';

export const BENCH_NODE_NAME = 'benchUserBuild';

interface Settings {
	build: UserBuild;
	url: string;
	apiKey: string;
	rate: number;
	perCall: number;
	message: string;
}

async function post(ctx: IExecuteFunctions, s: Settings, body: IDataObject): Promise<{ statusCode: number; body: IDataObject }> {
	try {
		const response = (await ctx.helpers.httpRequest({
			method: 'POST',
			url: `${s.url}/api/sms/send-api`,
			headers: { 'x-api-key': s.apiKey },
			body,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		})) as { statusCode: number; body: IDataObject };
		return response;
	} catch {
		return { statusCode: 0, body: {} };
	}
}

/** floorLimited's limiter per API key, kept for the process (as the package keeps its own). */
const limiters = new Map<string, Bottleneck>();

/** One request in its own Bottleneck job, which holds its slot 1 s after the answer (the package's slot). */
async function throughSlot(limiter: Bottleneck, request: () => Promise<{ statusCode: number }>): Promise<number> {
	return await new Promise<number>((resolve) => {
		void limiter.schedule(async () => {
			resolve((await request()).statusCode);
			await sleep(1000);
		});
	});
}

const single = (s: Settings, item: INodeExecutionData) => ({ phoneNumber: item.json.phone as string, message: s.message });
const ok = (status: number) => status >= 200 && status < 300;

async function run(ctx: IExecuteFunctions, s: Settings, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const spacing = 1000 / s.rate;
	const out: INodeExecutionData[] = [];
	if (s.build === 'floor') {
		let next = Date.now();
		for (const item of items) {
			const wait = next - Date.now();
			if (wait > 0) await sleep(wait);
			next = Math.max(next + spacing, Date.now());
			const { statusCode } = await post(ctx, s, single(s, item));
			out.push({ json: { accepted: ok(statusCode), statusCode } });
		}
		return out;
	}
	if (s.build === 'floorLimited') {
		let limiter = limiters.get(s.apiKey);
		if (!limiter) limiters.set(s.apiKey, (limiter = new Bottleneck({ minTime: 0.8 * spacing, maxConcurrent: s.rate })));
		const codes = await Promise.all(items.map(async (item) => await throughSlot(limiter, async () => await post(ctx, s, single(s, item)))));
		return codes.map((statusCode) => ({ json: { accepted: ok(statusCode), statusCode } }));
	}
	if (s.build === 'loopWait') {
		for (const item of items) {
			const { statusCode } = await post(ctx, s, single(s, item));
			out.push({ json: { accepted: ok(statusCode), statusCode } });
			await sleep(spacing);
		}
		return out;
	}
	if (s.build === 'batching') {
		const pending: Array<Promise<{ statusCode: number }>> = [];
		for (let i = 0; i < items.length; i++) {
			if (i > 0 && i % s.rate === 0) await sleep(1000);
			pending.push(post(ctx, s, single(s, items[i])));
		}
		for (const { statusCode } of await Promise.all(pending)) out.push({ json: { accepted: ok(statusCode), statusCode } });
		return out;
	}
	const chunks: INodeExecutionData[][] = [];
	for (let i = 0; i < items.length; i += s.perCall) chunks.push(items.slice(i, i + s.perCall));
	const pending: Array<Promise<{ statusCode: number; body: IDataObject }>> = [];
	for (let c = 0; c < chunks.length; c++) {
		if (c > 0) await sleep(spacing);
		pending.push(post(ctx, s, { message: s.message, recipients: chunks[c].map((item) => ({ phoneNumber: item.json.phone as string })) }));
	}
	const answers = await Promise.all(pending);
	answers.forEach(({ statusCode, body }, c) => {
		const accepted = ok(statusCode) ? new Set(((body.data as IDataObject)?.messages as IDataObject[] | undefined)?.map((m) => m.phoneNumber)) : new Set();
		for (const item of chunks[c]) out.push({ json: { accepted: accepted.has(item.json.phone), statusCode } });
	});
	return out;
}

export class BenchUserBuild implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bench: what a user builds',
		name: BENCH_NODE_NAME,
		group: ['output'],
		version: 1,
		description: 'The bench’s model of HTTP Request workflows (bench/userBuilds.ts)',
		defaults: { name: 'Bench' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Build', name: 'build', type: 'string', default: 'floor' },
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'API Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
			{ displayName: 'Requests per Second', name: 'rate', type: 'number', default: 5 },
			{ displayName: 'Recipients per Call', name: 'perCall', type: 'number', default: 100 },
			{ displayName: 'Message', name: 'message', type: 'string', default: '' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const get = (name: keyof Settings) => this.getNodeParameter(name, 0) as never;
		const settings: Settings = { build: get('build'), url: get('url'), apiKey: get('apiKey'), rate: get('rate'), perCall: get('perCall'), message: get('message') };
		return [await run(this, settings, this.getInputData())];
	}
}
