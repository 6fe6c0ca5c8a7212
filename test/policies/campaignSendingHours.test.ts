/**
 * Options → Sending Hours on Campaign → Create (node version 2) over real HTTP against the emulator,
 * with n8n's clock (and the emulator's, in this process) moved to 18:00 UTC. A campaign has one send
 * time for all its recipients: a scheduled campaign is judged in every recipient's zone (each
 * number's country) and moved to the first time that suits them all; a draft is not judged.
 */
import type { IDataObject } from 'n8n-workflow';

import { bothCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';

const emu = useEmulator();

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const realNow = Date.now.bind(Date);
/** 18:00 UTC of the day after tomorrow (in the future of the real clock, as the service checks). */
const SIX_PM = Math.floor(realNow() / DAY) * DAY + 2 * DAY + 18 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

beforeEach(() => {
	const shift = SIX_PM - realNow();
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
});
afterEach(() => jest.restoreAllMocks());

const KE = '+254712345601';
const GH = '+233241234567';
const hours = (extra: IDataObject = {}) => ({ sendingHours: { hours: { from: '08:00', until: '20:00', outside: 'schedule', ...extra } } });

const create = async (phoneNumbers: string, scheduledAt: string, options: IDataObject, continueOnFail = false) =>
	(
		await executeNode(
			{
				parameters: {
					resource: 'campaign',
					operation: 'create',
					name: 'Weekend offer',
					message: 'ACME: 20% off this weekend',
					senderId: { __rl: true, mode: 'id', value: 'SVCTEST' },
					recipientsSource: 'list',
					phoneNumbers,
					scheduledAt,
					options,
				},
				credentials: bothCredentials(emu.url),
				typeVersion: 2,
				settings: continueOnFail ? { onError: 'continueRegularOutput' } : undefined,
			},
			[{}],
		)
	)[0].map((i) => i.json);
const stored = () => [...emu.state.campaigns.values()];

describe('Sending Hours on Campaign → Create', () => {
	it('a campaign scheduled for 22:00 Nairobi is created for 08:00 Nairobi the next morning, saying so', async () => {
		const asked = iso(SIX_PM + HOUR); // 19:00 UTC = 22:00 Nairobi
		const [out] = await create(KE, asked, hours());
		const opening = iso(SIX_PM + 11 * HOUR); // 05:00 UTC = 08:00 Nairobi
		expect(stored().map((c) => c.scheduledAt)).toEqual([SIX_PM + 11 * HOUR]);
		expect(out).toMatchObject({ status: 'SCHEDULED', scheduledAt: opening, outsideSendingHours: true, movedFrom: asked, timeZone: 'KE UTC+03:00' });
	});

	it('Nairobi and Accra together: the first time inside the hours in both zones (08:00 Accra = 11:00 Nairobi)', async () => {
		const asked = iso(SIX_PM + 12 * HOUR); // 06:00 UTC: 09:00 Nairobi (open), 06:00 Accra (closed)
		const [out] = await create(`${KE}, ${GH}`, asked, hours());
		expect(out).toMatchObject({ scheduledAt: iso(SIX_PM + 14 * HOUR), timeZone: 'KE UTC+03:00, GH UTC+00:00' });
		expect(stored()[0].scheduledAt).toBe(SIX_PM + 14 * HOUR);
	});

	it('inside the hours in every zone: created as asked, nothing added', async () => {
		const asked = iso(SIX_PM + 15 * HOUR); // 09:00 UTC: 12:00 Nairobi, 09:00 Accra
		const [out] = await create(`${KE}, ${GH}`, asked, hours());
		expect(out.scheduledAt).toBe(asked);
		expect(out.outsideSendingHours).toBeUndefined();
	});

	it('Skip: no campaign is created; the item says when the hours open', async () => {
		const [out] = await create(KE, iso(SIX_PM + HOUR), hours({ outside: 'skip' }));
		expect(stored()).toHaveLength(0);
		expect(out).toMatchObject({ skipped: true, sent: false, nextOpening: iso(SIX_PM + 11 * HOUR) });
	});

	it('hours that no time suits in both zones (08:00–10:00 in Nairobi and in Accra) refuse the campaign, naming the zones; nothing created', async () => {
		await expect(create(`${KE}, ${GH}`, iso(SIX_PM + HOUR), hours({ until: '10:00' }))).rejects.toThrow(
			'Item 0: no time inside Sending Hours suits every recipient of this campaign (KE UTC+03:00, GH UTC+00:00) within a week',
		);
		expect(stored()).toHaveLength(0);
	});

	it('a draft (no Scheduled Time) is not judged: created as DRAFT', async () => {
		const [out] = await create(KE, '', hours());
		expect(out).toMatchObject({ status: 'DRAFT' });
		expect(out.outsideSendingHours).toBeUndefined();
	});

	it('Dry Run shows the moved send time and creates nothing', async () => {
		const [out] = await create(KE, iso(SIX_PM + HOUR), { ...hours(), dryRun: true });
		expect(stored()).toHaveLength(0);
		expect(out).toMatchObject({ dryRun: true, created: false, sendAt: iso(SIX_PM + 11 * HOUR) });
	});
});
