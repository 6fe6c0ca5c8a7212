import type { IDataObject } from 'n8n-workflow';

import { apiKeyCredentials, apiKeyData, type TestCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { useRedis } from '../helpers/redisFixture';

/**
 * What a user may type where a secret can hide (Redis Host, Redis Password, Base URL, Delivery
 * Report URL, Media Link), in every form URL parsing accepts: each case is refused before any
 * request, and no message, description or output of it holds the password or token. Prints
 * `secrets in messages: N tried, 0 sent, 0 secrets shown`.
 */
const emu = useEmulator();
const redis = useRedis({ password: 'the-right-one' });
const SECRET = 'S3cretPW';
const PHONE = '+254712345678';
const tried: string[] = [];
const sent: string[] = [];
const shown: string[] = [];

afterAll(() => {
	process.stdout.write(`\nsecrets in messages: ${tried.length} tried, ${sent.length} sent, ${shown.length} secrets shown\n`);
});

const sms = (options: IDataObject = {}): IDataObject => ({
	resource: 'sms',
	operation: 'send',
	phoneNumber: PHONE,
	message: 'Your code is 123456',
	senderId: { __rl: true, mode: 'list', value: '' },
	options,
});
const chatImage = (mediaLink: string): IDataObject => ({ resource: 'chatMessage', operation: 'send', phoneNumber: PHONE, messageType: 'image', mediaLink, options: {} });
const sharedRedis = (redisHost: string, extra: IDataObject = {}): TestCredentials => ({
	svcMessagingApi: { ...apiKeyData(emu.url), sharedRateLimit: true, redisHost, redisPort: redis.port, ...extra },
});
const baseUrl = (url: string): TestCredentials => ({ svcMessagingApi: { ...apiKeyData(emu.url), baseUrl: url } });

/** URL forms WHATWG parsing reads as a link with a login and a token, each pointing where it is refused. */
const linkForms = (host: string, path: string) => [
	` https://u:${SECRET}@${host}${path}?token=${SECRET}`,
	`https://u:${SECRET}@${host}${path}?token=${SECRET} `,
	`https:\\\\u:${SECRET}@${host}${path}?token=${SECRET}`,
	`https:u:${SECRET}@${host}${path}#${SECRET}`,
	`u:${SECRET}@${host}${path}?token=${SECRET}`,
	`//u:${SECRET}@${host}${path}`,
	`\thttps://u:${SECRET}@${host}${path}?token=${SECRET}`,
	`ht\ttps://u:${SECRET}@${host}${path}?t=${SECRET}`,
	`HTTP://U:${SECRET}@${host.toUpperCase()}${path}?TOKEN=${SECRET}`,
];

interface Case {
	what: string;
	parameters: IDataObject;
	credentials: () => TestCredentials;
}

const CASES: Case[] = [
	...linkForms('10.0.0.5', '/hook').map((url) => ({ what: `Delivery Report URL ${JSON.stringify(url)}`, parameters: sms({ webhookUrl: url }), credentials: () => apiKeyCredentials(emu.url) })),
	...linkForms('cdn.example.com', '/a.exe').map((url) => ({ what: `Media Link ${JSON.stringify(url)}`, parameters: chatImage(url), credentials: () => apiKeyCredentials(emu.url) })),
	...[`https://u:${SECRET}@127.0.0.1:9/`, ` https://127.0.0.1:9/?token=${SECRET}`, `https:\\\\u:${SECRET}@127.0.0.1:9`, `u:${SECRET}@127.0.0.1:9`, `https://127.0.0.1:9/#${SECRET}`].map((url) => ({
		what: `Base URL ${JSON.stringify(url)}`,
		parameters: sms(),
		credentials: () => baseUrl(url),
	})),
	...[
		`redis://:${SECRET}@127.0.0.1:PORT`,
		`redis://default:${SECRET}@127.0.0.1:PORT/0`,
		`default:${SECRET}@127.0.0.1:PORT`,
		` redis://default:${SECRET}@127.0.0.1:PORT `,
		`rediss://default:${SECRET}@127.0.0.1:PORT`,
		`https://default:${SECRET}@127.0.0.1:PORT`,
		`redis://default:${SECRET}@[127.0.0.1:PORT`,
		`redis://default:${SECRET}@127.0.0.1:PORT/db`,
	].map((host) => ({ what: `Redis Host ${JSON.stringify(host)}`, parameters: sms(), credentials: () => sharedRedis(host.replace('PORT', String(redis.port))) })),
	{ what: 'Redis Password (wrong)', parameters: sms(), credentials: () => sharedRedis('127.0.0.1', { redisPassword: SECRET }) },
	...[`redis://:${SECRET}@127.0.0.1:PORT`, `127.0.0.1:PORT,default:${SECRET}@127.0.0.1:PORT`, `127.0.0.1:${SECRET}`, `127.0.0.1:PORT ${SECRET}`].map((nodes) => ({
		what: `Redis Cluster Nodes ${JSON.stringify(nodes)}`,
		parameters: sms(),
		credentials: () => sharedRedis('127.0.0.1', { redisClusterNodes: nodes.replace(/PORT/g, String(redis.port)) }),
	})),
	{ what: 'Redis Cluster Nodes, a Redis that is no cluster, wrong password', parameters: sms(), credentials: () => sharedRedis('127.0.0.1', { redisClusterNodes: `127.0.0.1:${redis.port}`, redisPassword: SECRET }) },
	{ what: 'Redis CA Certificate holding no certificate', parameters: sms(), credentials: () => sharedRedis('127.0.0.1', { redisTls: true, redisCa: `-----BEGIN ${SECRET}` }) },
	{ what: 'Redis SSL/TLS to a Redis without TLS, wrong password', parameters: sms(), credentials: () => sharedRedis('127.0.0.1', { redisTls: true, redisRejectUnauthorized: false, redisPassword: SECRET }) },
];

describe('no secret in any message, whatever the user typed', () => {
	it.each(CASES.map((c) => [c.what, c] as const))('%s', async (_what, c) => {
		tried.push(c.what);
		let error: (Error & { description?: string }) | undefined;
		let output: unknown;
		try {
			output = await executeNode({ parameters: c.parameters, credentials: c.credentials() }, [{}]);
		} catch (caught) {
			error = caught as Error;
		}
		const requests = emu.control.requests().filter((r) => !r.path.startsWith('/__emulator'));
		if (requests.length) sent.push(c.what);
		const words = `${error?.message} ${error?.description} ${JSON.stringify(output ?? null)}`;
		if (words.includes(SECRET)) shown.push(c.what);
		expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
		expect(error?.message).toBeDefined();
		expect(words).not.toContain(SECRET);
	});
});

describe('a pasted Redis URL with the right password works', () => {
	it.each(['redis://:the-right-one@127.0.0.1:PORT', 'default:the-right-one@127.0.0.1:PORT/3'])('%s', async (host) => {
		const [[item]] = await executeNode({ parameters: sms(), credentials: sharedRedis(host.replace('PORT', String(redis.port))) }, [{}]);
		expect(item.json).toMatchObject({ accepted: true });
		expect(emu.control.messages()).toHaveLength(1);
	});
});
