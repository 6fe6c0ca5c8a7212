/**
 * Campaign → Create's dates and names over real HTTP: an impossible date in any format, a year
 * past 9999 and an overlong name create no campaign (counted at the emulator).
 */
import type { IDataObject } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { credentials, errorOf } from './helpers';

const emu = useEmulator();

const campaignPosts = () => emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/sms/campaigns');

const createV2 = (extra: IDataObject) =>
	executeNode(
		{
			parameters: {
				resource: 'campaign',
				name: 'March promotion',
				message: 'Hello from ACME',
				senderId: { __rl: true, mode: 'id', value: 'ACMEKE' },
				phoneNumber: '={{ $json.phone }}',
				...extra,
			},
			credentials: credentials(emu.url),
			typeVersion: 2,
		},
		[{ phone: '+254712345678' }],
	);

describe('Campaign → Create (version 2)', () => {
	it.each([
		['Feb 30 2031 10:00 +0300', /^Item 0: "Scheduled Time" must be a date that exists/],
		['31 June 2031 10:00Z', /^Item 0: "Scheduled Time" must be a date that exists/],
		['+010000-01-01T00:00:00Z', /^Item 0: "Scheduled Time" must be in a year from 0 to 9999/],
	])('refuses the scheduled time %s and creates no campaign', async (scheduledAt, message) => {
		const error = await errorOf(createV2({ scheduledAt }));
		expect(error.message).toMatch(message);
		expect(campaignPosts()).toHaveLength(0);
		expect(emu.state.campaigns.size).toBe(0);
	});

	it('refuses a name over 255 characters (100,000 here) and creates no campaign; 255 is created', async () => {
		const error = await errorOf(createV2({ name: 'n'.repeat(100_000) }));
		expect(error.message).toMatch(/^Item 0: "Name" must be at most 255 characters \(it has 100000\) \(got "n+…"\)$/);
		expect(campaignPosts()).toHaveLength(0);
		const [[out]] = await createV2({ name: 'n'.repeat(255) });
		expect(out.json.name).toBe('n'.repeat(255));
		expect(campaignPosts()).toHaveLength(1);
	});
});
