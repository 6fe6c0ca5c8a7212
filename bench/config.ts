/**
 * What `npm run bench` runs: item counts (BENCH_QUICK=1 shrinks them to a CI smoke run), the memory
 * targets, which rows BENCH_ONLY selects, and a fresh API key per scenario.
 */

const quick = !!process.env.BENCH_QUICK;
const pick = <T>(quickValue: T, fullValue: T): T => (quick ? quickValue : fullValue);

/** Send Bulk of 100,000 recipients: the capped row's headroom, and its uncapped live heap growth target. */
export const MEMORY_TARGET_MB = 75;
export const BULK_HEAP_TARGET_MB = 55;
/** SMS Send: live heap growth per item (KB), and the headroom of the largest send's capped process (MB). */
export const SEND_LIVE_KB_PER_ITEM = 2;
export const SEND_CAP_MB = 150;

/**
 * Item counts. A run at a fixed rate takes items / rate seconds: the one-request-per-item rows get
 * fewer items (their figures are ratios and per-1,000 figures).
 */
export const SIZES = {
	bulk: pick(1_000, 10_000),
	send: pick(50, 300),
	sharedSend: pick(20, 60),
	sharedBulk: pick(500, 1_500),
	/** Send Bulk at Business with {{placeholders}}: the memory rows */
	memory: pick(20_000, 100_000),
	/** SMS Send at Business, one request per item: the live heap per item (the window, not the list) */
	sendMemory: pick([1_000, 2_000], [20_000, 50_000]),
	/** how often the SMS Send memory rows take a full GC and read the heap left */
	liveHeapEveryMs: pick(1_000, 5_000),
	/** the same for Send Bulk's memory rows, which finish in seconds */
	bulkLiveHeapEveryMs: pick(100, 250),
	/** Rate rows: N processes on one fresh key, these many Sends in all (split between them). */
	rate: {
		counts: [1, 2, 4],
		items: pick({ free: 20, starter: 60, business: 400 }, { free: 100, starter: 400, business: 3_000 }),
		/** a quick run's rows beyond the Free and Starter rate rows: one at a distance, Business across processes at one */
		/** the dead-worker row (not in a quick run): Sends per process, 3 processes */
		deadWorkerItems: 300,
		quickOnly: pick(['distance-starter-250-1-local', 'distance-business-250-4-shared'], undefined as string[] | undefined),
	},
	/** Send and the floor at Business pace, in alternating rounds (the machine's load hits both alike). */
	floor: pick({ items: 150, rounds: 3 }, { items: 2_250, rounds: 9 }),
	/** At Free: one request per item (100 items take 20 s), and Send Bulk's 10,000-row sheet in chunks. */
	user: pick({ perItem: 20, bulk: 1_000 }, { perItem: 100, bulk: 10_000 }),
	/** The real-n8n cost rows (bench/n8nCost.ts); BENCH_N8N_AFTER, _BATCH, _MANY and _FILL override them. */
	n8n: {
		/** one-SMS executions measured after this many earlier sends of the SMS Send node */
		after: listFromEnv('BENCH_N8N_AFTER') ?? pick([100, 400], [500, 2_000, 10_000]),
		/** executions measured per flow at each point (in `rounds` alternating halves: SMS Send, then HTTP Request) */
		batch: Number(process.env.BENCH_N8N_BATCH ?? pick(50, 100)),
		/** BENCH_N8N_ROUNDS=4: each point in quarters, each quarter's ratio logged (a noisy machine's quarter shows apart) */
		rounds: Number(process.env.BENCH_N8N_ROUNDS ?? 2),
		/** one execution of this many SMS each, at Business */
		many: listFromEnv('BENCH_N8N_MANY') ?? pick([300, 1_200], [3_000, 30_000]),
		/** executions at once while the node's earlier sends are made (the measured ones run one after another) */
		fillConcurrency: Number(process.env.BENCH_N8N_FILL ?? 4),
		/** the PostgreSQL row runs in a full run, or when BENCH_ONLY names it */
		postgres: !quick,
	},
};

function listFromEnv(name: string): number[] | undefined {
	const value = process.env[name];
	return value ? value.split(',').map((n) => Number(n.trim())) : undefined;
}

/** BENCH_ONLY=bulk-free,memory-business runs only those rows (a partial run: targets judge only what ran). */
export const only = process.env.BENCH_ONLY?.split(',').map((id) => id.trim());
export const want = (id: string) => !only || only.includes(id);

let keySerial = 0;
export const keyFor = (id: string) => `svc_test_bench_${id.replace(/[^a-z0-9]/gi, '_')}_${String(1000 + ++keySerial)}`;

export const log = (line: string) => process.stderr.write(`${line}\n`);
