/**
 * A lone request on a key (one-SMS executions one after another: an OTP flow) starts at once where
 * the strict reading allows it, instead of waiting for a start-grid turn (transport/startGrid.ts
 * `onTheGrid`, transport/readingProbe.ts `turn`): an OTP waited up to the gap, half its
 * execution's time in real n8n. On numbers and n8n's timers (faked): no wait is measured.
 */
import { ReadingProbe } from '../../nodes/SvcMessaging/transport/readingProbe';
import { CYCLE_MS, GAP_MS, onTheGrid, StartGrid } from '../../nodes/SvcMessaging/transport/startGrid';

const N = 20;

afterEach(() => jest.useRealTimers());

/** Whether `promise` settles without any timer firing (only microtasks run). */
async function settlesAtOnce(promise: Promise<unknown>): Promise<boolean> {
	let settled = false;
	void promise.then(() => (settled = true));
	for (let i = 0; i < 20; i++) await Promise.resolve();
	return settled;
}

describe('the spaced reading’s start grid', () => {
	it('a lone start in the gap goes at once; one that is not alone waits for the next cycle', async () => {
		jest.useFakeTimers({ now: 10_000 });
		const grid = new StartGrid(N);
		grid.take(Date.now());
		grid.started(Date.now());
		// In the gap: the grid's next slot is the next cycle's first, up to GAP_MS away.
		jest.setSystemTime(10_000 + CYCLE_MS - GAP_MS + 50);
		expect(await settlesAtOnce(onTheGrid(grid, 0, true))).toBe(true);
		const waiting = onTheGrid(grid, 0, false);
		expect(await settlesAtOnce(waiting)).toBe(false);
		await jest.advanceTimersByTimeAsync(GAP_MS);
		expect(await settlesAtOnce(waiting)).toBe(true);
	});

	it('a lone start waits for its slot once N starts fell in the last second (and a late arrival’s margin), or a pause is due', async () => {
		jest.useFakeTimers({ now: 10_000 });
		const grid = new StartGrid(N);
		for (let i = 0; i < N; i++) {
			grid.take(Date.now());
			grid.started(Date.now());
			jest.setSystemTime(Date.now() + 10);
		}
		jest.setSystemTime(10_000 + CYCLE_MS - GAP_MS + 10);
		expect(grid.quiet(Date.now())).toBe(false);
		const waiting = onTheGrid(grid, 0, true);
		expect(await settlesAtOnce(waiting)).toBe(false);
		await jest.advanceTimersByTimeAsync(CYCLE_MS);
		// The first of the N started more than a second and 150 ms ago.
		jest.setSystemTime(10_000 + CYCLE_MS + 151);
		expect(grid.quiet(Date.now())).toBe(true);
		expect(await settlesAtOnce(onTheGrid(grid, Date.now() + 500, true))).toBe(false);
	});

	it.each([
		['one after another, 40 to 120 ms apart', 40, 80],
		['dense arrivals, 0 to 12 ms apart', 0, 12],
		['a mix of both', 0, 60],
	])('%s: no 1,000 ms holds more than N starts, lone ones going at once', (_, least, spread) => {
		// A deterministic sequence of arrival gaps in [least, least + spread).
		let seed = 7;
		const random = () => ((seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647);
		const grid = new StartGrid(N);
		const starts: number[] = [];
		// Starts timed for later: a request whose slot is still to come makes the next one not alone.
		let timed: number[] = [];
		let early = 0;
		let now = 0;
		for (let i = 0; i < 3_000; i++) {
			now += least + random() * spread;
			for (const t of timed.filter((t) => t <= now).sort((a, b) => a - b)) grid.started(t);
			timed = timed.filter((t) => t > now);
			const slot = grid.take(now);
			if (timed.length === 0 && grid.quiet(now)) {
				grid.started(now);
				starts.push(now);
				if (slot > now) early++;
			} else {
				timed.push(slot);
				starts.push(slot);
			}
		}
		starts.sort((a, b) => a - b);
		let most = 0;
		for (let i = 0, j = 0; i < starts.length; i++) {
			// (slot times are sums of fractions: a margin for their rounding)
			while (j < starts.length && starts[j] < starts[i] + CYCLE_MS - 1e-6) j++;
			most = Math.max(most, j - i);
		}
		expect(most).toBeLessThanOrEqual(N);
		// The case is one: some lone starts did go before their slot.
		if (least > 0) expect(early).toBeGreaterThan(100);
	});
});

describe('Learn before its verdict (the probe’s grid)', () => {
	it('a lone start goes at once while fewer than N starts hold their place; the N + 1st waits, alone or not', async () => {
		jest.useFakeTimers({ now: 50_000 });
		const probe = new ReadingProbe(N, () => 900, () => undefined);
		expect(probe.deciding).toBe(true);
		for (let i = 0; i < N; i++) {
			expect(await settlesAtOnce(probe.turn(true))).toBe(true);
			jest.setSystemTime(Date.now() + 1);
		}
		// N starts unanswered hold their places: the strict reading allows no other now.
		const waiting = probe.turn(true);
		expect(await settlesAtOnce(waiting)).toBe(false);
		expect(await settlesAtOnce(probe.turn(false))).toBe(false);
		probe.decide('spaced');
		await jest.advanceTimersByTimeAsync(2 * CYCLE_MS);
		expect(await settlesAtOnce(waiting)).toBe(true);
	});

	it('a start that is not alone still waits for its grid turn', async () => {
		jest.useFakeTimers({ now: 50_000 });
		const probe = new ReadingProbe(N, () => 900, () => undefined);
		await probe.turn(true);
		expect(await settlesAtOnce(probe.turn(false))).toBe(false);
	});
});
