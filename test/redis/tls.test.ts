/**
 * The credential's Redis over TLS with a private CA ("Redis CA Certificate"), the certificate's own
 * name ("Redis TLS Server Name") and "Redis Reject Unauthorized Certificates", against a real
 * redis-server that speaks TLS only (test/helpers/redisTls.ts: a CA made with openssl at test time,
 * a certificate for redis.test while the server listens on 127.0.0.1). Every message is counted at
 * the emulator: a Redis that cannot be used sends nothing.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { SEED_KEYS } from '../emulator';
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { startTlsRedis, TLS_SERVER_NAME, type TlsRedis } from '../helpers/redisTls';
import { sendParameters } from '../sms/fixtures';
import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';

const REDIS_PASSWORD = 'tls-redis-secret-pw-0004';
const emu = useEmulator({ per: 'test', timeScale: 1000 });
let redis: TlsRedis;
let number = 0;

beforeAll(async () => {
	redis = await startTlsRedis({ password: REDIS_PASSWORD });
}, 120_000);
afterEach(async () => {
	await closeSharedLimiters();
	await closeRedisClients();
});
afterAll(async () => {
	await redis?.stop();
});

const tlsFields = (fields: ICredentialDataDecryptedObject = {}): ICredentialDataDecryptedObject => ({
	sharedRateLimit: true,
	redisHost: redis.host,
	redisPort: redis.port,
	redisPassword: REDIS_PASSWORD,
	redisTls: true,
	...fields,
});

async function send(fields: ICredentialDataDecryptedObject) {
	const phones = Array.from({ length: 3 }, () => ({ phone: `+2547${String(80_000_000 + number++).padStart(8, '0')}` }));
	const credentials = apiKeyCredentials(emu.url, { plan: 'free', webhookSecret: 'whsec_tls_never_shown', extra: tlsFields(fields) });
	try {
		const [out] = await executeNode({ parameters: sendParameters(), credentials }, phones);
		return { out };
	} catch (error) {
		const { message, description } = error as Error & { description?: string };
		return { error: { message, description: String(description), text: `${message} ${String(description)}` } };
	}
}

const secrets = () => [REDIS_PASSWORD, SEED_KEYS.free, 'whsec_tls_never_shown'];

it('with the CA and the server name of its certificate: connects, the limit and ledger work, every message sent once', async () => {
	const { out, error } = await send({ redisCa: redis.ca, redisServerName: TLS_SERVER_NAME });
	expect(error).toBeUndefined();
	expect(out!.filter((item) => item.json.accepted === true)).toHaveLength(3);
	expect(emu.control.messages()).toHaveLength(3);
});

it('a CA pasted into a one-line field (its line breaks lost) or as a JSON string (\\n) works the same', async () => {
	for (const ca of [redis.ca.replace(/\r?\n/g, ''), JSON.stringify(redis.ca).slice(1, -1)]) {
		const { error } = await send({ redisCa: ca, redisServerName: TLS_SERVER_NAME });
		expect(error).toBeUndefined();
		await closeRedisClients();
		await closeSharedLimiters();
	}
	expect(emu.control.messages()).toHaveLength(6);
});

it('without the CA: refused before anything is sent, naming the certificate check and what to set, no secret', async () => {
	const started = Date.now();
	const { error } = await send({ redisServerName: TLS_SERVER_NAME });
	expect(error?.message).toMatch(new RegExp(`^Could not connect to Redis at 127\\.0\\.0\\.1:${redis.port} \\(database 0, TLS\\)`));
	expect(error?.description).toMatch(/self[- ]signed certificate in certificate chain|unable to verify/i);
	expect(error?.description).toMatch(/paste the CA in "Redis CA Certificate"/);
	for (const secret of secrets()) expect(error?.text).not.toContain(secret);
	// A certificate that does not check out is not waited on (the connect timeout is 5 s).
	expect(Date.now() - started).toBeLessThan(4_500);
	expect(emu.control.requests()).toHaveLength(0);
});

it('with another CA: refused the same way', async () => {
	const { error } = await send({ redisCa: redis.otherCa, redisServerName: TLS_SERVER_NAME });
	expect(error?.description).toMatch(/paste the CA in "Redis CA Certificate"/);
	for (const secret of secrets()) expect(error?.text).not.toContain(secret);
	expect(emu.control.requests()).toHaveLength(0);
});

it('with the CA but the wrong name (none: the certificate is for redis.test, not 127.0.0.1; or another name): refused, saying to set the server name', async () => {
	for (const name of [undefined, 'other.test']) {
		const { error } = await send({ redisCa: redis.ca, ...(name ? { redisServerName: name } : {}) });
		expect(error?.description).toMatch(/altnames/);
		expect(error?.description).toMatch(/set "Redis TLS Server Name" to the name it holds/);
		for (const secret of secrets()) expect(error?.text).not.toContain(secret);
	}
	expect(emu.control.requests()).toHaveLength(0);
});

it('with Reject Unauthorized Certificates off: connects without the CA or the name', async () => {
	const { out, error } = await send({ redisRejectUnauthorized: false });
	expect(error).toBeUndefined();
	expect(out!.filter((item) => item.json.accepted === true)).toHaveLength(3);
	expect(emu.control.messages()).toHaveLength(3);
});

it('a CA field that holds no PEM certificate: refused before connecting, the value never quoted', async () => {
	const { error } = await send({ redisCa: `not a certificate ${REDIS_PASSWORD}` });
	expect(error?.message).toMatch(/"Redis CA Certificate" holds no PEM certificate/);
	for (const secret of secrets()) expect(error?.text).not.toContain(secret);
	expect(emu.control.requests()).toHaveLength(0);
});

it('a rediss:// URL in Redis Host (TLS from the URL) with the CA and the server name', async () => {
	const { error } = await send({ redisHost: `rediss://:${REDIS_PASSWORD}@127.0.0.1:${redis.port}`, redisPassword: '', redisTls: true, redisCa: redis.ca, redisServerName: TLS_SERVER_NAME });
	expect(error).toBeUndefined();
	expect(emu.control.messages()).toHaveLength(3);
});
