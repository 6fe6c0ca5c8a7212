/**
 * A 429 storm (an earlier audit's case): Business, 30 sends, the service answers 15 of them 429 with
 * Retry-After 2 s. Each number is sent once, none is lost, and nothing is posted inside the pause the
 * service asked for: no request starts after this process read a 429 and within its Retry-After.
 * Under Learn (the default) and Strict; numbers and 429s counted at the emulator.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { phones, sendsAt } from '../helpers/limiterProcesses';
import { executeNode } from '../helpers/n8n';
import { sendParameters } from '../sms/fixtures';
import { baseUrlOf, planLimits } from '../../nodes/SvcMessaging/transport/credentials';
import { limiterFor } from '../../nodes/SvcMessaging/transport/limiter';

const emu = useEmulator({ per: 'test' });

describe('a 429 storm: 15 of 30 sends answered 429, Retry-After 2 s', () => {
	for (const reading of ['learn', 'strict'] as const) {
		it(`${reading}: each number once, none lost, nothing posted inside the pause`, async () => {
			emu.control.addFault({ kind: 'rate-limit', pathPrefix: '/api/sms/send-api', count: 15, retryAfterSeconds: 2 });
			const items = phones(reading === 'learn' ? 80_000_000 : 81_000_000, 30);
			const credentials = apiKeyCredentials(emu.url, { plan: 'business', extra: { rateLimitReading: reading } });
			// When this process read each 429 and started each request (spies that call through): the emulator
			// shares this event loop, so its arrival times lag by the loop's load (hundreds of ms here).
			const api = credentials.svcMessagingApi!;
			const limiter = await limiterFor(baseUrlOf(api), String(api.apiKey), planLimits(api), undefined, reading);
			const read: number[] = [];
			const penalize = limiter.penalize.bind(limiter);
			jest.spyOn(limiter, 'penalize').mockImplementation((waitMs, startedAt) => (read.push(Date.now()), penalize(waitMs, startedAt)));
			const started: number[] = [];
			const schedule = limiter.schedule.bind(limiter);
			jest.spyOn(limiter, 'schedule').mockImplementation(async (task, lane) => await schedule(async () => (started.push(Date.now()), await task()), lane));
			const [out] = await executeNode({ parameters: sendParameters(), credentials, settings: { onError: 'continueRegularOutput' } }, items);
			expect(out.filter((item) => item.json.accepted === true)).toHaveLength(30);
			const sent = emu.control.messages().map((m) => m.phoneNumber);
			expect(sent.sort()).toEqual(items.map((i) => i.phone).sort());
			const log = sendsAt(emu).map((r) => ({ at: Date.parse(r.time), status: r.status }));
			expect(log.filter((r) => r.status === 429)).toHaveLength(15);
			expect(read).toHaveLength(15);
			expect(started).toHaveLength(45);
			// Started after this process read a 429 and within its Retry-After: none.
			for (const at of read) expect({ readAt: at, inside: started.filter((t) => t > at && t < at + 2_000).map((t) => t - at) }).toEqual({ readAt: at, inside: [] });
		}, 60_000);
	}
});
