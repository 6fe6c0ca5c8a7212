/**
 * test/limiter/idle.test.ts's heap test over the Cloud engine (the cloud jest project maps the seam):
 * limiters of idle keys are let go with the heap they held. idle.test.ts asks more than 5 KB a key
 * released, Bottleneck's size; the Cloud engine holds less (4.3 KB a key kept, one run), so this
 * asks what the rule means: nearly all of what the limiters held comes back, little stays.
 */
import { setFlagsFromString } from 'v8';
import { runInNewContext } from 'vm';

import { limiterCount, limiterFor, releaseIdleLimiters } from '../../nodes/SvcMessaging/transport/limiter';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapUsed = () => {
	gc();
	gc();
	return process.memoryUsage().heapUsed;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('2,000 keys used once each: their limiters are let go once idle, and the heap they held with them', async () => {
	const KEYS = 2_000;
	await releaseIdleLimiters(0);
	const before = heapUsed();
	const start = limiterCount();
	for (let i = 0; i < KEYS; i++) {
		const limiter = await limiterFor('http://idle.test', `key-idle-${i}`, { requestsPerSecond: 50, recipientsPerCall: 1 });
		await limiter.schedule(async () => i);
	}
	await sleep(1_300);
	const kept = heapUsed();
	expect(limiterCount()).toBe(start + KEYS);
	await releaseIdleLimiters(0);
	const after = heapUsed();
	expect(limiterCount()).toBe(start);
	const [keptKb, afterKb] = [(kept - before) / KEYS / 1024, (after - before) / KEYS / 1024];
	process.stderr.write(`idle limiters (Cloud engine): ${keptKb.toFixed(2)} KB per key kept, ${afterKb.toFixed(2)} KB per key after letting them go\n`);
	expect(keptKb).toBeGreaterThan(1);
	expect(kept - after).toBeGreaterThan(0.9 * (kept - before));
	expect(afterKb).toBeLessThan(1);
}, 60_000);
