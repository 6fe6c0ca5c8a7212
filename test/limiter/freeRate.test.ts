/**
 * 200 single sends on a Free key (5 requests/s) finish with zero 429s and never above the plan,
 * against the emulator's sliding window (at most 5 in any 1,000 ms). The rate is a property of the
 * emulator's request log — (n − 1) requests over the span between the first and the last arrival it
 * recorded. How CLOSE to the plan a send runs is performance, measured by `npm run bench` (the
 * rate-free rows), not asserted here: a busy machine only slows a send, which a timed lower bound
 * would report as a failure. Takes ~40 s: the plan allows no faster.
 */
import { apiKeyCredentials, STRICT } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { sendParameters } from '../sms/fixtures';

const emu = useEmulator({ timeScale: 1000, rateLimit: 'sliding-window' });

it('200 single sends on a Free key: no 429, never above 5 requests/s', async () => {
	const items = Array.from({ length: 200 }, (_, i) => ({ phone: `+2547${String(30_000_000 + i)}` }));
	const [out] = await executeNode(
		{
			parameters: sendParameters(),
			credentials: apiKeyCredentials(emu.url, { plan: 'free', extra: STRICT }),
		},
		items,
	);
	expect(out.filter((item) => item.json.accepted === true)).toHaveLength(200);

	const log = emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/sms/send-api');
	expect(log.filter((r) => r.status === 429)).toHaveLength(0);
	expect(log.map((r) => r.status)).toEqual(Array(200).fill(202));
	const arrivals = log.map((r) => Date.parse(r.time)).sort((a, b) => a - b);
	const rate = ((arrivals.length - 1) * 1000) / (arrivals[arrivals.length - 1] - arrivals[0]);
	// never above the plan (the sliding window would have answered 429 anyway)
	expect(rate).toBeLessThanOrEqual(5 * 1.05);
}, 120_000);
