/**
 * Limiters of idle keys are let go: memory follows the keys in use, not every key ever used; and a
 * limiter let go passes every later call to the key's next limiter, so that two limiters of one key
 * never run at once in a process. Heap measured after full GCs (test/helpers/idleLimiters.ts).
 */
import { limiterFor, releaseIdleLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { idleRelease } from '../helpers/idleLimiters';

const ONE_PER_SECOND = { requestsPerSecond: 1, recipientsPerCall: 1 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('2,000 keys used once each: their limiters are let go once idle, and the heap they held with them', async () => {
	const KEYS = 2_000;
	const release = await idleRelease(KEYS, 'Bottleneck');
	expect(release.heldBefore).toBe(KEYS);
	expect(release.heldAfter).toBe(0);
	expect(release.alive).toBe(0);
	// Measured against each other (the heap before can still hold what earlier test files left).
	expect(release.releasedKb).toBeGreaterThan(5);
	// What stays grows far slower than the keys (plain node: 2,000 keys ~1 MB, 8,000 keys ~2 MB).
	expect(release.afterKb).toBeLessThan(1);
}, 60_000);

it('a limiter is not let go while a request holds its slot, nor during a pause after a 429', async () => {
	const limiter = await limiterFor('http://idle.test', 'key-busy', ONE_PER_SECOND);
	let finish = () => {};
	let holding = () => {};
	// The job holds its slot once it has started (not after a fixed pause: a busy machine starts it later).
	const started = new Promise<void>((resolve) => (holding = resolve));
	const running = limiter.schedule(
		async () =>
			await new Promise<void>((resolve) => {
				finish = resolve;
				holding();
			}),
	);
	await started;
	await releaseIdleLimiters(0);
	expect(await limiterFor('http://idle.test', 'key-busy', ONE_PER_SECOND)).toBe(limiter);
	finish();
	await running;
	limiter.penalize(3_000);
	await sleep(1_200);
	await releaseIdleLimiters(0);
	expect(await limiterFor('http://idle.test', 'key-busy', ONE_PER_SECOND)).toBe(limiter);
}, 20_000);

it('a limiter let go passes later calls to the key’s next limiter: one slot at 1 request/s is never taken twice at once', async () => {
	const old = await limiterFor('http://idle.test', 'key-successor', ONE_PER_SECOND);
	await old.schedule(async () => 0);
	await sleep(1_100);
	await releaseIdleLimiters(0);
	const next = await limiterFor('http://idle.test', 'key-successor', ONE_PER_SECOND);
	expect(next).not.toBe(old);
	// Through the old reference and the new one at once: the key's single slot runs one, then the other.
	const started: string[] = [];
	const finish: Record<string, () => void> = {};
	const task = (name: string) => async () => {
		started.push(name);
		await new Promise<void>((resolve) => (finish[name] = resolve));
	};
	const both = Promise.all([old.schedule(task('old')), next.schedule(task('new'))]);
	while (started.length === 0) await sleep(20);
	// One holds the slot: the other does not start beside it.
	await sleep(300);
	expect(started).toHaveLength(1);
	finish[started[0]]();
	// The other waits for the slot's hold (1,000 ms after the first's answer), then runs.
	while (started.length < 2) await sleep(50);
	expect([...started].sort()).toEqual(['new', 'old']);
	finish[started[1]]();
	await both;
}, 20_000);
