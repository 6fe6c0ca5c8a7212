/**
 * One API key through two credentials that read the rate differently (Strict and Learn): one limiter
 * for the key in the process, and the strict reading for it once both are in use (the strictest).
 * Counted at the emulator (20 ± 10 ms away each way): arrivals in any 1,000 ms, 429s, messages.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { mostInAnySecond, phones, sendsAt } from '../helpers/limiterProcesses';
import { executeNode } from '../helpers/n8n';
import { sleep } from 'n8n-workflow';
import { sendParameters } from '../sms/fixtures';

const emu = useEmulator({ per: 'test', timeScale: 1000, rateLimit: 'sliding-window' });
beforeEach(() => void emu.control.setLatency({ inbound: '20±10', outbound: '20±10' }));

const starter = (rateLimitReading: string) => apiKeyCredentials(emu.url, { plan: 'starter', extra: { rateLimitReading } });
const send = async (reading: string, from: number, n: number) =>
	(await executeNode({ parameters: sendParameters(), credentials: starter(reading) }, phones(from, n)))[0].filter((item) => item.json.accepted === true).length;
const arrivals = (from = 0) => sendsAt(emu).map((r) => Date.parse(r.time)).filter((t) => t >= from);
const messagesOnce = () => new Set(emu.control.messages().map((m) => m.phoneNumber)).size;

describe('one key, two credentials reading the rate differently', () => {
	it('Strict and Learn sending at once: one limiter, never more than N in any 1,000 ms, no 429 from a strict service', async () => {
		const [strict, learn] = await Promise.all([send('strict', 70_000_000, 80), send('learn', 71_000_000, 80)]);
		expect([strict, learn]).toEqual([80, 80]);
		expect(sendsAt(emu).filter((r) => r.status === 429)).toHaveLength(0);
		expect(mostInAnySecond(arrivals())).toBeLessThanOrEqual(20);
		expect(messagesOnce()).toBe(160);
	}, 60_000);

	it('Learn at the plan rate spaced (a token bucket), then Strict on the key: from then on never more than N in any 1,000 ms', async () => {
		emu.control.setRateLimitMode('token-bucket');
		const learn = send('learn', 72_000_000, 200);
		// The probe's verdict comes within the first seconds; then the key sends spaced, N a second.
		await sleep(4_000);
		const joined = Date.now();
		const [learned, strict] = await Promise.all([learn, send('strict', 73_000_000, 60)]);
		expect([learned, strict]).toEqual([200, 60]);
		// Requests on their way when Strict joined arrive within the way in (≤ 30 ms): after that, N at most.
		expect(mostInAnySecond(arrivals(joined + 40))).toBeLessThanOrEqual(20);
		expect(messagesOnce()).toBe(260);
	}, 60_000);
});
