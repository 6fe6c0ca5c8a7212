import { accountCredentials, apiKeyCredentials } from './helpers/credentials';
import { useEmulator } from './helpers/emulatorFixture';
import { executeNode } from './helpers/n8n';

/** A Base URL ending in /api (copied from API docs) gets its own message, before any request. */
const emu = useEmulator();

async function errorOf(promise: Promise<unknown>): Promise<Error & { description?: string }> {
	try {
		await promise;
	} catch (error) {
		return error as Error & { description?: string };
	}
	throw new Error('expected the node to throw');
}

describe('Base URL with a path', () => {
	it.each(['/api/', '/api'])('API key: %s is refused with its own message, nothing sent', async (path) => {
		const parameters = { resource: 'sms', operation: 'send', phoneNumber: '+254712345678', message: 'Hi', senderId: { __rl: true, mode: 'list', value: '' }, options: {} };
		const error = await errorOf(executeNode({ parameters, credentials: apiKeyCredentials(`${emu.url}${path}`) }, [{}]));
		expect(error.message).toBe(
			'The Base URL of the SVC Messaging API (API key) credential ends with /api: the node adds /api/… itself, so every request would go to /api/api/… and get "Not Found"',
		);
		expect(error.description).toMatch(/^Enter the address of the messaging service alone, e\.g\. https:\/\/api\.example\.com/);
		expect(emu.control.requests().filter((r) => !r.path.startsWith('/__emulator'))).toEqual([]);
	});

	it('Account: the same message names the Account credential; no login is tried', async () => {
		const error = await errorOf(executeNode({ parameters: { resource: 'account', operation: 'getBalance' }, credentials: accountCredentials(`${emu.url}/api/`) }, [{}]));
		expect(error.message).toMatch(/^The Base URL of the SVC Messaging Account API \(email and password\) credential ends with \/api/);
		expect(emu.control.requests().filter((r) => !r.path.startsWith('/__emulator'))).toEqual([]);
	});
});
