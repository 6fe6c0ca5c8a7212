/**
 * Options → Sending Hours and Dry Run in a real n8n (the sms-send workflow, its Send SMS node given
 * the options). n8n's clock cannot be moved, so the hours are set around the present: from the hour
 * before to the hour after the current UTC hour, in each recipient's local time. Accra (UTC+0) is
 * inside them; Nairobi (UTC+3) is outside, and its next opening is that hour tomorrow, Nairobi time.
 */
import { e2e, expectSuccess, jsonOf, out, sleep, withNode, workflow } from './context';

const { n8n, emulator } = e2e();
const run = Date.now().toString(36);
const HOUR = 3_600_000;
/** A test that may wait into the next hour (hoursAroundNow): its run, and those 2 minutes. */
const HOURS_TIMEOUT_MS = 330_000;
const KE = '+254712000301';
const GH = '+233241000302';

const hh = (hour: number) => `${String((hour + 24) % 24).padStart(2, '0')}:00`;
const sendRequests = async () => (await emulator.requests()).filter((r) => r.method === 'POST' && r.path === '/api/sms/send-api');

/** The hours around now, and Nairobi's next opening (the same local hour, tomorrow). */
async function hoursAroundNow() {
	// Not in the last minutes of an hour: the window must not move while the execution runs. Waits
	// into the next hour (2 minutes at most; the tests that call it allow HOURS_TIMEOUT_MS).
	const now = new Date();
	if (now.getUTCMinutes() >= 58) await sleep(HOUR - (now.getTime() % HOUR) + 5_000);
	const hour = new Date().getUTCHours();
	const nairobiOpening = new Date(Math.floor(Date.now() / HOUR) * HOUR + 20 * HOUR).toISOString();
	return { from: hh(hour - 1), until: hh(hour + 1), nairobiOpening };
}

const sendSms = (options: Record<string, unknown>) =>
	withNode(workflow('sms-send'), 'Send SMS', {
		parameters: {
			options: { allowPrivateReportHosts: true, defaultCountry: 'KE', reference: "={{ $json.ref || '' }}", ...options },
		},
	});

describe('Sending Hours and Dry Run in real n8n', () => {
	test("Nairobi outside the hours is scheduled for its next opening; Accra inside them is sent now", async () => {
		const ref = `e2e-hours-${run}`;
		const { from, until, nairobiOpening } = await hoursAroundNow();
		const wf = sendSms({ sendingHours: { hours: { from, until, outside: 'schedule' } } });
		const { execution } = await n8n.run(wf, { items: [{ phone: KE, text: 'Your order shipped', ref }, { phone: GH, text: 'Your order shipped', ref }] });
		expectSuccess(execution);
		const [nairobi, accra] = jsonOf(out(execution, 'Send SMS'));
		expect(nairobi).toMatchObject({ accepted: true, scheduledAt: nairobiOpening, outsideSendingHours: true, timeZone: 'KE UTC+03:00' });
		expect(accra).toMatchObject({ accepted: true });
		expect(accra.scheduledAt).toBeUndefined();
		const recorded = (await emulator.messages()).filter((m) => m.reference === ref);
		expect(recorded.map((m) => [m.phoneNumber, m.scheduledAt]).sort()).toEqual(
			[
				[KE, nairobiOpening],
				[GH, null],
			].sort(),
		);
	}, HOURS_TIMEOUT_MS);

	test('Skip: Nairobi is output as not sent, with its next opening; only Accra is posted', async () => {
		const ref = `e2e-hours-skip-${run}`;
		const { from, until, nairobiOpening } = await hoursAroundNow();
		await emulator.clearRequests();
		const wf = sendSms({ sendingHours: { hours: { from, until, outside: 'skip' } } });
		const { execution } = await n8n.run(wf, { items: [{ phone: KE, text: 'Reminder', ref }, { phone: GH, text: 'Reminder', ref }] });
		expectSuccess(execution);
		const [nairobi, accra] = jsonOf(out(execution, 'Send SMS'));
		expect(nairobi).toMatchObject({ accepted: false, skipped: true, sent: false, nextOpening: nairobiOpening });
		expect(accra).toMatchObject({ accepted: true });
		expect(await sendRequests()).toHaveLength(1);
	}, HOURS_TIMEOUT_MS);

	test('Dry Run: priced, marked dryRun, 0 send requests', async () => {
		await emulator.clearRequests();
		const { execution } = await n8n.run(sendSms({ dryRun: true }), { items: [{ phone: KE, text: 'x'.repeat(200) }] });
		expectSuccess(execution);
		const [priced] = jsonOf(out(execution, 'Send SMS'));
		expect(priced).toMatchObject({ dryRun: true, accepted: false, segments: 2, credits: 2, senderId: 'SVCSMS', sendAt: 'now' });
		expect(await sendRequests()).toHaveLength(0);
	});
});
