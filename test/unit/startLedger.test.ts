/**
 * The starts Learn makes before its verdict (transport/startLedger.ts), on numbers: a start holds its
 * place until the hold after its answer (the strict reading's slot), the spread and way in come from
 * the round trips, and the places starts made hold in each second of the service.
 */
import { StartLedger } from '../../nodes/SvcMessaging/transport/startLedger';

const N = 3;
const at = (ms: number) => jest.spyOn(Date, 'now').mockReturnValue(ms);
afterEach(() => jest.restoreAllMocks());

it('fits while fewer than N starts hold their place: unanswered, or answered less than the hold ago', () => {
	const ledger = new StartLedger(N, () => 900);
	const starts = [0, 10, 20].map((t) => ledger.started(t));
	expect(ledger.fits(30)).toBe(false);
	at(200);
	ledger.answer(starts[0]);
	expect(ledger.fits(1_099)).toBe(false);
	expect(ledger.fits(1_100)).toBe(true);
	expect(ledger.oldestOfLastN()).toBe(0);
	ledger.started(1_100);
	expect(ledger.oldestOfLastN()).toBe(10);
	expect(ledger.lastStart()).toBe(1_100);
});

it('reads the spread and the way in from the round trips', () => {
	const ledger = new StartLedger(N, () => 1_000);
	const starts = [0, 10, 20].map((t) => ledger.started(t));
	[200, 260, 250].forEach((answeredAt, i) => {
		at(answeredAt);
		ledger.answer(starts[i]);
	});
	// Round trips 200, 250 and 230 ms: spread 50 (+ 5 ms of timer slack), way in (200 + 250) / 4.
	expect(ledger.answers).toBe(3);
	expect(ledger.spreadMs()).toBe(55);
	expect(ledger.wayInMs()).toBe(112.5);
});

it('counts each start made in every second of the service it may arrive in, by seconds after the edge', () => {
	const ledger = new StartLedger(N, () => 1_000);
	[100, 950, 1_500].forEach((t) => ledger.started(t));
	// Edge at 0 (start times), an arrival up to 60 ms either side: 950 may fall in second 0 or 1.
	expect([...ledger.placesTaken(0, 60).entries()].sort()).toEqual([
		[0, 2],
		[1, 2],
	]);
});
