/**
 * Options → Sending Hours over real HTTP against the emulator, with n8n's clock (and the
 * emulator's, in this process) moved to 18:00 UTC: 21:00 in Nairobi and Kampala (closed), 19:00 in
 * Lagos and 18:00 in Accra (open). Deferred messages are read back at the emulator with their
 * scheduledAt; skipped ones are never posted. Every boundary and country: test/unit/quietHours.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { useEmulator } from '../helpers/emulatorFixture';
import { executeNodeWithHints } from '../helpers/n8n';
import { OPTED_IN, OPTED_IN_NG } from '../chat/helpers';
import { apiKeyCredentials, sendBulkParameters, sendParameters, sent } from '../sms/fixtures';

const emu = useEmulator();

const DAY = 86_400_000;
const realNow = Date.now.bind(Date);
/** 18:00 UTC of the day after tomorrow (in the future of the real clock, as the service checks). */
const SIX_PM = Math.floor(realNow() / DAY) * DAY + 2 * DAY + 18 * 3_600_000;
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** 08:00 in Nairobi the next morning = 05:00 UTC */
const NAIROBI_OPENING = new Date(SIX_PM + 11 * 3_600_000).toISOString();

beforeEach(() => {
	const shift = SIX_PM - realNow();
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
});
afterEach(() => jest.restoreAllMocks());

const KE = '+254712345601';
const UG = '+256712345602';
const NG = '+2348031234567';
const GH = '+233241234567';
const hours = (extra: IDataObject = {}) => ({ sendingHours: { hours: { from: '08:00', until: '20:00', outside: 'schedule', ...extra } } });

const run = async (parameters: IDataObject, items: IDataObject[], extra: IDataObject = {}) => {
	const { output, hints } = await executeNodeWithHints({ parameters, credentials: apiKeyCredentials(emu.url), ...extra }, items);
	return { outputs: output, out: output[0].map((i) => i.json), hints };
};
const scheduledAtOf = (number: string) => emu.control.messages().find((m) => m.phoneNumber === number)?.scheduledAt;

describe('Sending Hours: judged in the recipient\'s local time', () => {
	it('SMS → Send: Nairobi (21:00) is scheduled for 08:00 its time; Accra (18:00) goes now', async () => {
		const { out } = await run(sendParameters({ options: hours() }), [{ phone: KE }, { phone: GH }]);
		expect(sent(emu)).toHaveLength(2);
		expect(scheduledAtOf(KE)).toBe(NAIROBI_OPENING);
		expect(scheduledAtOf(GH)).toBeNull();
		expect(out[0]).toMatchObject({
			accepted: true,
			scheduledAt: NAIROBI_OPENING,
			outsideSendingHours: true,
			judgedLocalTime: `${ymd(SIX_PM)}T21:00+03:00`,
			timeZone: 'KE UTC+03:00',
		});
		expect(out[1].outsideSendingHours).toBeUndefined();
	});

	it('SMS → Send: a Retry after a deferral recognises the message (scheduledAt is not part of its identity)', async () => {
		await run(sendParameters({ options: hours() }), [{ phone: KE }], { executionId: 'hours-1' });
		const retry = await run(sendParameters({ options: hours() }), [{ phone: KE }], { executionId: 'hours-2', mode: 'retry' });
		expect(retry.out[0].alreadySent).toBe(true);
		expect(emu.control.messages()).toHaveLength(1);
	});

	it('SMS → Send: a Scheduled Time of your own at 22:00 Nairobi is moved to 08:00, saying so', async () => {
		const own = new Date(SIX_PM + 4 * 3_600_000).toISOString(); // 22:00 UTC = 01:00 Nairobi
		const { out } = await run(sendParameters({ options: { ...hours(), scheduledAt: own } }), [{ phone: KE }]);
		expect(scheduledAtOf(KE)).toBe(NAIROBI_OPENING);
		expect(out[0]).toMatchObject({ scheduledAt: NAIROBI_OPENING, movedFrom: own, judgedLocalTime: `${ymd(SIX_PM + DAY)}T01:00+03:00` });
	});

	it('SMS → Send: Skip outputs the item as not sent, with the next opening, and posts nothing for it', async () => {
		const { out } = await run(sendParameters({ options: hours({ outside: 'skip' }) }), [{ phone: KE }, { phone: NG }]);
		expect(sent(emu)).toHaveLength(1);
		expect(emu.control.messages().map((m) => m.phoneNumber)).toEqual([NG]);
		expect(out[0]).toMatchObject({ accepted: false, sent: false, skipped: true, nextOpening: NAIROBI_OPENING, phoneNumber: KE });
		expect(out[1]).toMatchObject({ accepted: true, phoneNumber: NG });
	});

	it('SMS → Send and Send Bulk: Send Anyway sends now and marks the item sentAnyway (with the local time it was judged at)', async () => {
		const { out } = await run(sendParameters({ options: hours({ outside: 'send' }) }), [{ phone: KE }, { phone: GH }]);
		expect(scheduledAtOf(KE)).toBeNull();
		expect(out[0]).toMatchObject({ accepted: true, sentAnyway: true, outsideSendingHours: true, judgedLocalTime: `${ymd(SIX_PM)}T21:00+03:00` });
		expect(out[1].sentAnyway).toBeUndefined();
		const bulk = await run(sendBulkParameters({ options: hours({ outside: 'send' }) }), [{ phone: UG, name: 'A' }, { phone: NG, name: 'B' }]);
		expect(bulk.out.map((o) => [o.accepted, o.sentAnyway ?? false])).toEqual([
			[true, true],
			[true, false],
		]);
		expect(scheduledAtOf(UG)).toBeNull();
		expect(sent(emu).length).toBeGreaterThan(0);
	});

	it('SMS → Send Bulk: one call per send time: Nairobi and Kampala together at 08:00, Lagos and Accra now', async () => {
		const { out } = await run(sendBulkParameters({ options: hours() }), [
			{ phone: KE, name: 'A' },
			{ phone: NG, name: 'B' },
			{ phone: UG, name: 'C' },
			{ phone: GH, name: 'D' },
		]);
		expect(sent(emu)).toHaveLength(2);
		expect([KE, UG, NG, GH].map(scheduledAtOf)).toEqual([NAIROBI_OPENING, NAIROBI_OPENING, null, null]);
		expect(out.map((o) => [o.phoneNumber, o.scheduledAt ?? null])).toEqual([
			[KE, NAIROBI_OPENING],
			[NG, null],
			[UG, NAIROBI_OPENING],
			[GH, null],
		]);
	});

	it('Dry Run shows the send time after Sending Hours, and marks a skipped item too', async () => {
		const { out, hints } = await run(sendParameters({ options: { ...hours(), dryRun: true } }), [{ phone: KE }, { phone: GH }]);
		expect(sent(emu)).toHaveLength(0);
		expect(out.map((o) => [o.sendAt, o.dryRun])).toEqual([
			[NAIROBI_OPENING, true],
			['now', true],
		]);
		expect(hints).toContain('Dry run: nothing was sent. 2 messages would be sent (1 of them scheduled for the next opening of Sending Hours), about 2 credits. Turn off "Dry Run" to send.');
		const skipped = await run(sendParameters({ options: { ...hours({ outside: 'skip' }), dryRun: true } }), [{ phone: KE }, { phone: GH }]);
		expect(skipped.out.map((o) => [o.skipped ?? false, o.dryRun])).toEqual([
			[true, true],
			[false, true],
		]);
		expect(skipped.hints).toContain('Dry run: nothing was sent. 1 message would be sent, about 1 credit. 1 message would be skipped: outside Sending Hours. Turn off "Dry Run" to send.');
		// A skipped item has no send time or cost: it would not go out.
		expect([skipped.out[0].sendAt, skipped.out[0].credits]).toEqual([undefined, undefined]);
	});

	it('Time Zone takes only IANA names, checked before any request even when every number is in one of the six countries', async () => {
		const attempt = async (options: IDataObject, items: IDataObject[]) =>
			await run(sendParameters({ options }), items).then(
				() => undefined,
				(error: Error) => error.message,
			);
		expect(await attempt(hours({ timeZone: 'Nairobi' }), [{ phone: KE }])).toBe(
			'Item 0: "Time Zone" must be an IANA time zone name such as Africa/Cairo or Europe/London (got "Nairobi")',
		);
		// Mapped per item: the item with the wrong name is named.
		expect(await attempt(hours({ timeZone: '={{ $json.zone }}' }), [{ phone: KE, zone: 'Africa/Nairobi' }, { phone: NG, zone: 'EAT' }])).toBe(
			'Item 1: "Time Zone" must be an IANA time zone name such as Africa/Cairo or Europe/London (got "EAT")',
		);
		expect(emu.control.requests().filter((r) => r.method === 'POST')).toHaveLength(0);
	});

	it('Skip: a hint counts the skipped messages (as suppressed ones have); a skipped item shows no sendAt "now" or credits', async () => {
		const { out, hints } = await run(sendBulkParameters({ options: hours({ outside: 'skip' }) }), [KE, UG, NG].map((phone) => ({ phone, name: 'Amina' })));
		expect(emu.control.messages().map((m) => m.phoneNumber)).toEqual([NG]);
		expect(hints).toContain('2 messages were not sent: outside Sending Hours (skipped: true in the output, with the next opening).');
		for (const skipped of out.slice(0, 2)) {
			expect(skipped).toMatchObject({ accepted: false, skipped: true });
			expect([skipped.sendAt, skipped.credits, skipped.segments]).toEqual([undefined, undefined, undefined]);
		}
	});

	it('SMS → Send and Wait: a message outside the hours is refused clearly (it cannot wait for a schedule); Skip skips it', async () => {
		const parameters = (outside: string) =>
			sendParameters({ operation: 'sendAndWaitForDelivery', waitMode: 'polling', timeout: 30, options: hours({ outside }) });
		await expect(run(parameters('schedule'), [{ phone: KE }])).rejects.toThrow(/Send and Wait does not wait for scheduled messages/);
		expect(sent(emu)).toHaveLength(0);
		const { outputs } = await run(parameters('skip'), [{ phone: KE }]);
		expect(sent(emu)).toHaveLength(0);
		expect(outputs.flat().map((i) => i.json.skipped)).toEqual([true]);
	});

	it('Chat Message → Send: no schedule for chat (refused), Skip and Send Anyway', async () => {
		const chat = (outside: string) => ({
			resource: 'chatMessage',
			operation: 'send',
			phoneNumber: '={{ $json.phone }}',
			messageType: 'text',
			text: 'Hello',
			options: hours({ outside }),
		});
		const chatPosts = () => emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/chat/messages');
		await expect(run(chat('schedule'), [{ phone: OPTED_IN }])).rejects.toThrow(/chat messages cannot be scheduled/);
		const skipped = await run(chat('skip'), [{ phone: OPTED_IN }, { phone: OPTED_IN_NG }]);
		expect(chatPosts()).toHaveLength(1);
		expect(skipped.out.map((o) => [o.skipped ?? false, o.accepted])).toEqual([
			[true, false],
			[false, true],
		]);
		await run(chat('send'), [{ phone: OPTED_IN }]);
		expect(chatPosts()).toHaveLength(2);
	});
});
