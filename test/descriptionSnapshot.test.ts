import { SvcMessagingAccountApi } from '../credentials/SvcMessagingAccountApi.credentials';
import { SvcMessagingApi } from '../credentials/SvcMessagingApi.credentials';
import { SvcMessaging } from '../nodes/SvcMessaging/SvcMessaging.node';
import { SvcMessagingTrigger } from '../nodes/SvcMessaging/SvcMessagingTrigger.node';

/**
 * Pins what n8n reads from the package, byte for byte: both nodes' and both credentials'
 * descriptions. A change here changes saved workflows and the editor; update the snapshot only in
 * the commit that means to change a description, and say so.
 */
describe('descriptions are pinned', () => {
	it.each([
		['SvcMessaging node', () => new SvcMessaging().description],
		['SvcMessagingTrigger node', () => new SvcMessagingTrigger().description],
		['SvcMessagingApi credential', () => new SvcMessagingApi()],
		['SvcMessagingAccountApi credential', () => new SvcMessagingAccountApi()],
	])('%s', (_name, read) => {
		expect(JSON.stringify(read())).toMatchSnapshot();
	});
});
