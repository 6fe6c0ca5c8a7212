/**
 * Sender ID "Automatic (by Recipient's Country)" on SMS Send and Send Bulk, over real HTTP against
 * the emulator, whose demo account has SVCTEST (all six countries), ACMEKE (not Ghana) and the
 * numeric 20880 (Kenya): each message goes out with an ACTIVE sender ID approved for its number's
 * country, the account's sender IDs are looked up once per execution, and a country none fits gets
 * the service's default with a hint.
 */
import type { IDataObject } from 'n8n-workflow';

import { senderForCountry } from '../../nodes/SvcMessaging/sending/policies/senderByCountry';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNodeWithHints, listSearch } from '../helpers/n8n';
import { apiKeyCredentials, sendBulkParameters, sendParameters, sent } from '../sms/fixtures';

const emu = useEmulator();

const automatic = { __rl: true, mode: 'list', value: 'auto' };
const KE = '+254712345601';
const NG = '+2348031234567';
const GH = '+233241234567';

const run = async (parameters: IDataObject, items: IDataObject[]) => {
	const { output, hints } = await executeNodeWithHints({ parameters, credentials: apiKeyCredentials(emu.url) }, items);
	return { out: output[0].map((i) => i.json), hints };
};
const senderOf = (number: string) => emu.control.messages().find((m) => m.phoneNumber === number)?.senderId;
const lookups = () => emu.control.requests().filter((r) => r.method === 'GET' && r.path === '/api/sms/sender-ids');
/** Sets a sender ID of every account to a status other than ACTIVE. */
const deactivate = (senderId: string) => {
	for (const account of emu.state.accounts.values()) for (const s of account.senderIds) if (s.senderId === senderId) s.status = 'PENDING';
};

describe('Sender ID: Automatic (by Recipient\'s Country)', () => {
	it('SMS → Send: Kenya and Nigeria get the brand (ACMEKE), Ghana the one approved there (SVCTEST); one lookup', async () => {
		const { out, hints } = await run(sendParameters({ senderId: automatic }), [{ phone: KE }, { phone: NG }, { phone: GH }, { phone: KE.replace(/1$/, '2') }]);
		expect([KE, NG, GH].map(senderOf)).toEqual(['ACMEKE', 'ACMEKE', 'SVCTEST']);
		expect(out.map((o) => o.senderId)).toEqual(['ACMEKE', 'ACMEKE', 'SVCTEST', 'ACMEKE']);
		expect(lookups()).toHaveLength(1);
		expect(hints.filter((h) => h.startsWith('Sender ID Automatic'))).toEqual([]);
	});

	it('a suppressed (Do-Not-Send List) or skipped (Sending Hours) item shows the sender it would have had, not the service default', async () => {
		// Hours closed for everyone now: from two hours ahead (UTC) for one hour, in every zone of the six countries.
		const hour = new Date().getUTCHours();
		const at = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
		const options = { sendingHours: { hours: { from: at(hour + 5), until: at(hour + 6), outside: 'skip' } } };
		const { out } = await run(sendParameters({ senderId: automatic, options, doNotSend: { list: { numbers: GH } } }), [{ phone: KE }, { phone: GH }]);
		expect(out.map((o) => [o.skipped ?? false, o.suppressed ?? false, o.senderId])).toEqual([
			[true, false, 'ACMEKE'],
			[false, true, 'SVCTEST'],
		]);
		expect(sent(emu)).toHaveLength(0);
	});

	it('SMS → Send Bulk: one call per sender ID', async () => {
		const { out } = await run(sendBulkParameters({ senderId: automatic }), [
			{ phone: KE, name: 'A' },
			{ phone: GH, name: 'B' },
			{ phone: NG, name: 'C' },
		]);
		expect(sent(emu)).toHaveLength(2);
		expect([KE, NG, GH].map(senderOf)).toEqual(['ACMEKE', 'ACMEKE', 'SVCTEST']);
		expect(out.map((o) => [o.phoneNumber, o.senderId])).toEqual([
			[KE, 'ACMEKE'],
			[GH, 'SVCTEST'],
			[NG, 'ACMEKE'],
		]);
	});

	it('numeric only in Kenya; a country none fits gets the service default, with a hint naming it', async () => {
		deactivate('SVCTEST');
		deactivate('ACMEKE');
		const { hints } = await run(sendParameters({ senderId: automatic }), [{ phone: KE }, { phone: NG }]);
		expect(senderOf(KE)).toBe('20880');
		expect(senderOf(NG)).toBe('SVCSMS');
		expect(hints).toContain(
			"Sender ID Automatic: no ACTIVE sender ID of the account is approved for NG (1); those messages use the service's default sender (SVCSMS). Register a sender ID for the country in the dashboard.",
		);
	});

	it('Dry Run: shows the chosen sender ID (the lookup runs, nothing is sent)', async () => {
		const { out } = await run(sendParameters({ senderId: automatic, options: { dryRun: true } }), [{ phone: KE }, { phone: GH }]);
		expect(out.map((o) => o.senderId)).toEqual(['ACMEKE', 'SVCTEST']);
		expect(lookups()).toHaveLength(1);
		expect(sent(emu)).toHaveLength(0);
	});

	it('the picker offers Automatic first, for SMS sends', async () => {
		const setup = { parameters: { resource: 'sms', operation: 'send' }, credentials: apiKeyCredentials(emu.url) };
		const { results } = await listSearch(setup, 'searchSenderIdsOrAutomatic');
		expect(results[0]).toEqual({ name: "Automatic (by Recipient's Country)", value: 'auto' });
		expect(results.map((r) => r.value)).toEqual(['auto', 'SVCTEST', 'ACMEKE', '20880']);
	});
});

describe('senderForCountry', () => {
	const ids = [
		{ senderId: 'ALL', type: 'ALPHANUMERIC', status: 'ACTIVE', countries: ['KE', 'NG', 'GH'] },
		{ senderId: 'BRANDKE', type: 'ALPHANUMERIC', status: 'ACTIVE', countries: ['KE'] },
		{ senderId: 'PENDNG', type: 'ALPHANUMERIC', status: 'PENDING', countries: ['NG'] },
		{ senderId: '20880', type: 'NUMERIC', status: 'ACTIVE', countries: ['KE', 'NG'] },
	];
	it('prefers an active alphanumeric sender ID, the most specific; numeric only in Kenya', () => {
		expect(senderForCountry(ids, 'KE')).toBe('BRANDKE');
		expect(senderForCountry(ids, 'NG')).toBe('ALL');
		expect(senderForCountry(ids.slice(2), 'NG')).toBeUndefined();
		expect(senderForCountry(ids.slice(2), 'KE')).toBe('20880');
		expect(senderForCountry(ids, 'UG')).toBeUndefined();
	});
});
