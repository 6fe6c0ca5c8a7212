/**
 * What a model reads when a tool call fails for a reason other than its input.
 * The tool variant of the node (its type name ends in "Tool", as n8n derives it) runs in n8n-core's
 * ExecuteContext, as n8n's Agent V3 engine runs tool calls; the emulator answers over real HTTP.
 * `errorCode` and `category` come from codes set where the errors are made (never their text), and
 * `retryable` says whether the same call may succeed later.
 */
import type { IDataObject, INodeType } from 'n8n-workflow';

import { SvcMessaging } from '../../nodes/SvcMessaging/SvcMessaging.node';
import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';
import { SEED_ACCOUNT_IDS, SEED_LOGINS } from '../emulator';
import { accountCredentials, apiKeyCredentials, type ApiKeyOptions } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode, registerNodeType, type TestCredentials } from '../helpers/n8n';
import { downRedisPort } from '../helpers/services';

const TOOL = 'n8n-nodes-svc-messaging.svcMessagingTool';
const regular = new SvcMessaging();
registerNodeType('svcMessagingTool', Object.create(regular, { description: { value: { ...regular.description, name: 'svcMessagingTool' } } }) as INodeType);

const emu = useEmulator();
afterAll(async () => {
	await closeSharedLimiters();
	await closeRedisClients();
});

const apiKey = (options: ApiKeyOptions = {}) => apiKeyCredentials(emu.url, { plan: 'free', ...options });

async function toolCall(parameters: IDataObject, credentials: TestCredentials, item: IDataObject = {}) {
	const [out] = await executeNode({ type: TOOL, parameters, credentials }, [item]);
	expect(out).toHaveLength(1);
	return out[0].json;
}

const SMS_SEND = { resource: 'sms', operation: 'send', phoneNumber: '+254712300101', message: 'Hello', options: {} };

it('Redis down: REDIS_UNAVAILABLE, retryable, nothing sent (was INVALID_INPUT)', async () => {
	const down = await downRedisPort();
	const result = await toolCall(SMS_SEND, apiKey({ redis: { port: down.port, prefix: 'svc-tool-errors' }, extra: { redisDatabase: 0 } })).finally(down.close);
	expect(result).toMatchObject({ success: false, errorCode: 'REDIS_UNAVAILABLE', category: 'REDIS_UNAVAILABLE', retryable: true });
	expect(String(result.fix)).toMatch(/Nothing was sent\. n8n's Redis .* calling the tool again later may work/);
	expect(emu.control.messages()).toHaveLength(0);
});

it('the login answers 503: LOGIN_UNAVAILABLE, category SERVICE_UNAVAILABLE, retryable (was INVALID_INPUT)', async () => {
	emu.control.addFault({ kind: 'server-error', status: 503, method: 'POST', pathPrefix: '/api/auth/login', count: 10 });
	const result = await toolCall(
		{ resource: 'account', operation: 'getBalance' },
		accountCredentials(emu.url),
	);
	expect(result).toMatchObject({ success: false, errorCode: 'LOGIN_UNAVAILABLE', category: 'SERVICE_UNAVAILABLE', retryable: true });
	expect(String(result.errorMessage)).toMatch(/the service was unavailable/);
});

it('a wrong password: LOGIN_FAILED, category AUTH_FAILED, not retryable', async () => {
	const result = await toolCall(
		{ resource: 'account', operation: 'getBalance' },
		accountCredentials(emu.url, { login: { email: SEED_LOGINS.demo.email, password: 'wrong' } }),
	);
	expect(result).toMatchObject({ success: false, errorCode: 'LOGIN_FAILED', category: 'AUTH_FAILED', retryable: false });
	expect(String(result.fix)).toMatch(/tell the user to fix the credential/);
});

it('a bulk send that runs out of credits after its first call: the summary says INSUFFICIENT_CREDITS (was INVALID_INPUT)', async () => {
	emu.control.updateAccount(SEED_ACCOUNT_IDS.demo, { credits: 100 });
	const recipients = Array.from({ length: 150 }, (_, n) => `+2547123${String(n).padStart(5, '0')}`);
	const result = await toolCall(
		{ resource: 'sms', operation: 'sendBulk', recipientsSource: 'list', recipients: '={{ $json.recipients }}', message: 'Sale today', maxMessagesPerExecution: 0, options: {} },
		apiKey(),
		{ recipients },
	);
	expect(result).toMatchObject({ success: false, errorCode: 'INSUFFICIENT_CREDITS', category: 'INSUFFICIENT_CREDITS', retryable: false });
	expect(String(result.errorMessage)).toBe('50 recipient(s) were not accepted (items 0); 100 were accepted');
	expect(emu.control.messages()).toHaveLength(100);
});

it('a lookup the service keeps answering 503: SERVICE_UNAVAILABLE, retryable', async () => {
	emu.control.addFault({ kind: 'server-error', status: 503, method: 'GET', pathPrefix: '/api/sms/messages/', count: 10 });
	const result = await toolCall({ resource: 'sms', operation: 'getMessage', messageId: 'msg_abc' }, apiKey());
	expect(result).toMatchObject({ success: false, errorCode: 'SERVICE_UNAVAILABLE', category: 'SERVICE_UNAVAILABLE', retryable: true });
});

it('a send answered 500: UNKNOWN_OUTCOME, not retryable (it may have been sent)', async () => {
	emu.control.addFault({ kind: 'server-error', status: 500, method: 'POST', pathPrefix: '/api/sms/send-api', count: 1 });
	const result = await toolCall(SMS_SEND, apiKey());
	expect(result).toMatchObject({ success: false, category: 'UNKNOWN_OUTCOME', retryable: false });
	expect(String(result.fix)).toMatch(/Do not call the tool again for this message/);
});
