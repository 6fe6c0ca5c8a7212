import type { INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { SvcMessagingAccountApi } from '../credentials/SvcMessagingAccountApi.credentials';
import { SvcMessagingApi } from '../credentials/SvcMessagingApi.credentials';

// What n8n's editor puts in a password field of a saved credential instead of its value (n8n's CREDENTIAL_BLANKING_VALUE).
const SAVED_KEY = '__n8n_BLANK_VALUE_e5362baf-c777-4d57-a609-6eaf1f9e87f6';

const credential = new SvcMessagingApi();
const notices = (apiKey: string) =>
	credential.properties
		.filter((p) => p.type === 'notice' && NodeHelpers.displayParameter({ apiKey, plan: 'free' }, p, null, null))
		.map((p) => p.name);

describe('API credential form', () => {
	it('a typed sandbox key shows the sandbox notice; once saved, a notice still says how to tell a sandbox key', () => {
		expect(notices('svc_test_abc')).toEqual(['sandboxNotice']);
		expect(notices(SAVED_KEY)).toEqual(['sandboxSavedNotice']);
		expect(notices('svc_live_abc')).toEqual([]);
		expect(notices('')).toEqual([]);
		expect(notices('svc_test')).toEqual([]);
		expect(notices('svc_tesu_abc')).toEqual([]);
		expect(notices('SVC_TEST_abc')).toEqual([]);
		expect(notices('x svc_test_abc')).toEqual([]);
		// A new form has no key yet: the conditions call no method on it (n8n 1's editor logged a TypeError for startsWith).
		expect(notices(undefined as unknown as string)).toEqual([]);
	});

	it('the plan says where to find it and what a wrong one does; the Base URL says where to find it (both credentials)', () => {
		const field = (properties: INodeProperties[], name: string) => properties.find((p) => p.name === name)!;
		expect(field(credential.properties, 'plan').hint).toMatch(/dashboard.*429 Too Many Requests.*lower plan only sends slower/);
		for (const properties of [credential.properties, new SvcMessagingAccountApi().properties]) {
			expect(field(properties, 'baseUrl').hint).toMatch(/API address .*dashboard/);
		}
	});
});
