/**
 * The spaced reading's start grid (transport/startGrid.ts), on numbers only: N starts per cycle of
 * 1,000 ms in its first 1000 − GAP_MS, never a slot twice, and after `alignTo` no second of the
 * service (from the estimated edge) holds more than N starts, those made before the move included.
 */
import { ALIGN_LEAD_MS, CYCLE_MS, GAP_MS, StartGrid } from '../../nodes/SvcMessaging/transport/startGrid';

const N = 20;
const spacing = (CYCLE_MS - GAP_MS) / N;

/** The most starts in any window [edge + k·1000, edge + (k + 1)·1000). */
const mostPerSecond = (starts: number[], edge: number) => {
	const counts = new Map<number, number>();
	for (const t of starts) {
		const k = Math.floor((t - edge) / CYCLE_MS);
		counts.set(k, (counts.get(k) ?? 0) + 1);
	}
	return Math.max(...counts.values());
};

it('gives N starts a cycle, spacing apart in its first 1000 − GAP_MS ms, then the gap', () => {
	const grid = new StartGrid(N);
	const starts = Array.from({ length: 3 * N }, () => grid.take(0));
	expect(starts.slice(0, N)).toEqual(Array.from({ length: N }, (_, i) => i * spacing));
	expect(starts[N] - starts[N - 1]).toBeCloseTo(GAP_MS + spacing);
	expect(starts[2 * N]).toBe(2 * CYCLE_MS);
	expect(mostPerSecond(starts, 0)).toBe(N);
});

it('after an idle spell starts at the next free slot, and a cycle already used never gets more than N', () => {
	const grid = new StartGrid(N);
	const starts = [grid.take(0), grid.take(0), grid.take(0)];
	starts.push(grid.take(500), grid.take(500));
	expect(starts[3]).toBeGreaterThanOrEqual(500);
	for (let i = 0; i < 40; i++) starts.push(grid.take(starts[starts.length - 1]));
	expect(new Set(starts).size).toBe(starts.length);
	expect(mostPerSecond(starts, 0)).toBeLessThanOrEqual(N);
	// Later than the last slot of a cycle: the next cycle's first.
	const late = new StartGrid(N);
	late.take(0);
	expect(late.take(CYCLE_MS - GAP_MS / 2)).toBe(CYCLE_MS);
});

it.each([0, 137, 420, 799, 950])('alignTo a refusal at %i ms into a cycle: the gap is centred on the estimated edge, no second from it holds more than N', (offset) => {
	const grid = new StartGrid(N);
	const starts: number[] = [];
	for (let i = 0; i < 2 * N; i++) starts.push(grid.take(0));
	const refusedAt = CYCLE_MS + offset;
	const answeredAt = refusedAt + 250;
	grid.alignTo(refusedAt, answeredAt);
	const edge = refusedAt + spacing / 2;
	const next = grid.take(answeredAt);
	// A cycle's first start, half a gap after an edge, and that edge after every earlier start.
	expect((((next - edge - GAP_MS / 2) % CYCLE_MS) + CYCLE_MS) % CYCLE_MS).toBeCloseTo(0);
	expect(next - GAP_MS / 2).toBeGreaterThanOrEqual(answeredAt);
	const after = [next];
	for (let i = 0; i < 3 * N; i++) after.push(grid.take(after[after.length - 1]));
	expect(mostPerSecond([...starts.filter((t) => t <= answeredAt), ...after], edge)).toBeLessThanOrEqual(N);
	// Every start after the move keeps at least half the gap away from the edges.
	for (const t of after) {
		const intoSecond = (((t - edge) % CYCLE_MS) + CYCLE_MS) % CYCLE_MS;
		expect(intoSecond).toBeGreaterThanOrEqual(GAP_MS / 2 - 1e-9);
		expect(CYCLE_MS - intoSecond).toBeGreaterThanOrEqual(GAP_MS / 2 - 1e-9);
	}
});

it('a longer cycle with a shorter busy part (Learn before its verdict): N starts in busyMs, then a gap to cycleMs', () => {
	const grid = new StartGrid(N, 1_150, 700);
	const starts = Array.from({ length: 2 * N + 1 }, () => grid.take(0));
	expect(starts[N - 1]).toBeCloseTo(700 - 700 / N);
	expect(starts[N]).toBe(1_150);
	// Start k and start k + N are a cycle apart: more than a second, so no N + 1 in any 1,000 ms.
	for (let k = 0; k + N < starts.length; k++) expect(starts[k + N] - starts[k]).toBeCloseTo(1_150);
});

it('alignAt: cycles begin ALIGN_LEAD_MS after the given edge (the rest of the gap before the next), and the places starts made before already hold are left free in their seconds', () => {
	const grid = new StartGrid(N);
	// The service's second began at 1,000; 15 starts already made may arrive in it, 3 in the next one.
	grid.alignAt(1_000, new Map([[0, 15], [1, 3]]));
	const starts = Array.from({ length: 2 * N }, () => grid.take(1_050));
	expect(starts[0]).toBeGreaterThanOrEqual(1_000 + ALIGN_LEAD_MS);
	const inSecond = (k: number) => starts.filter((t) => t >= 1_000 + k * CYCLE_MS && t < 2_000 + k * CYCLE_MS).length;
	expect(inSecond(0)).toBe(N - 15);
	expect(inSecond(1)).toBe(N - 3);
	expect(inSecond(2)).toBe(2 * N - (N - 15) - (N - 3));
	// No start within ALIGN_LEAD_MS after an edge, or within GAP_MS − ALIGN_LEAD_MS before one.
	for (const t of starts) {
		expect((t - 1_000) % CYCLE_MS).toBeGreaterThanOrEqual(ALIGN_LEAD_MS - 1e-9);
		expect(CYCLE_MS - ((t - 1_000) % CYCLE_MS)).toBeGreaterThanOrEqual(GAP_MS - ALIGN_LEAD_MS - 1e-9);
	}
});

it('nearGap: a start among the last 150 ms of a busy part, or in the gap, is near it; one earlier in the cycle is not', () => {
	const grid = new StartGrid(N);
	grid.take(0);
	expect(grid.nearGap(100)).toBe(false);
	const busy = CYCLE_MS - GAP_MS;
	expect(grid.nearGap(busy - 160)).toBe(false);
	expect(grid.nearGap(busy - 100)).toBe(true);
	expect(grid.nearGap(busy + 100)).toBe(true);
	expect(grid.nearGap(1_100)).toBe(false);
	expect(grid.nearGap(1_000 + busy - 40)).toBe(true);
});
