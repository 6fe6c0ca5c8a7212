/**
 * The SVC Messaging API credential's Test (methods/credentialTest.ts, run by n8n through the
 * node's testedBy): the API key against the emulator over real HTTP, then, with "Use Redis" on,
 * that Redis: a real redis-server, and a closed port.
 */
import type { ICredentialsDecrypted, ICredentialTestFunctions, IDataObject } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulatorFixture';
import { apiKeyCredentials } from '../helpers/credentials';
import { useRedis } from '../helpers/redisFixture';
import { downRedisPort, freeTcpPort } from '../helpers/services';
import { svcMessagingApiTest } from '../../nodes/SvcMessaging/methods/credentialTest';
import { SvcMessaging } from '../../nodes/SvcMessaging/SvcMessaging.node';
import { SvcMessagingTrigger } from '../../nodes/SvcMessaging/SvcMessagingTrigger.node';

const emu = useEmulator();
const redis = useRedis();

/** n8n's credential-test context; the Test uses none of its helpers. */
const context = {} as ICredentialTestFunctions;
const test = async (data: IDataObject) => await svcMessagingApiTest.call(context, { id: 'c1', name: 'SVC', type: 'svcMessagingApi', data } as ICredentialsDecrypted);
const data = (options: Parameters<typeof apiKeyCredentials>[1] = {}) => apiKeyCredentials(emu.url, options).svcMessagingApi as IDataObject;

describe('SVC Messaging API credential → Test', () => {
	it('both nodes name it (testedBy), as n8n looks it up', () => {
		for (const node of [new SvcMessaging(), new SvcMessagingTrigger()]) {
			expect(node.description.credentials?.find((c) => c.name === 'svcMessagingApi')?.testedBy).toBe('svcMessagingApiTest');
			expect(node.methods?.credentialTest?.svcMessagingApiTest).toBe(svcMessagingApiTest);
		}
	});

	it('the seeded key, no Redis: OK', async () => {
		expect(await test(data())).toEqual({ status: 'OK', message: 'Connection tested successfully' });
	});

	it('a wrong key: the 401 explained, the key not shown', async () => {
		const result = await test(data({ apiKey: 'svc_test_wrong_0000' }));
		expect(result.status).toBe('Error');
		expect(result.message).toContain('The service refused this API key (401 UNAUTHORIZED)');
		expect(result.message).not.toContain('svc_test_wrong_0000');
	});

	it('a Base URL nothing answers on: the address and why', async () => {
		const port = await freeTcpPort();
		const result = await test({ ...data(), baseUrl: `http://127.0.0.1:${port}` });
		expect(result).toEqual({ status: 'Error', message: `Could not reach the service at http://127.0.0.1:${port}: ECONNREFUSED` });
	});

	it('Use Redis on, Redis running: OK, saying both were tested', async () => {
		expect(await test(data({ redis: { port: redis.port, prefix: 'cred-test' } }))).toEqual({ status: 'OK', message: 'Connection tested successfully (the service and Redis)' });
	});

	it('Use Redis on, Redis on a closed port: fails, naming the Redis address', async () => {
		const { port, close } = await downRedisPort();
		const result = await test(data({ redis: { port, prefix: 'cred-test' } })).finally(close);
		expect(result.status).toBe('Error');
		expect(result.message).toContain(`The API key works, but Redis does not: Could not connect to Redis at 127.0.0.1:${port}`);
		expect(result.message).not.toMatch(/turn .* off/i);
	}, 20_000);
});
