import { REDIS_RETRY_DELAYS_MS } from '../../transport/redisStore';
import { FINISHED_RUN_RETRY_WINDOW_MS, NODE_ROW } from '../../stores/rowBounds';

/**
 * The send ledger (sending/ledger/ledger.ts): what each send operation already sent, so that no retry
 * sends it again. Not in the spec: the package's own bounds.
 */
export const SEND_LEDGER = {
	/**
	 * An execution Retry also honours entries of runs that FINISHED (the node succeeded, then the
	 * execution crashed before n8n saved its progress) when written this recently; older finished
	 * entries (yesterday's identical reminder) do not hold a retry back.
	 */
	finishedRunRetryWindowMs: FINISHED_RUN_RETRY_WINDOW_MS,
	/** how long an entry stays in the shared Redis (an execution Retry later than this is not covered) */
	redisTtlMs: 72 * 3600 * 1000,
	/**
	 * the in-process ledger's size (estimated bytes); past it whole runs go: finished ones first,
	 * then open ones not written to for `openRunProtectionMs` (sending/ledger/ledgerMemory.ts)
	 */
	maxMemoryBytes: 24 * 1024 * 1024,
	/** an open run written to this recently is never evicted: its Retry On Fail must find all it sent */
	openRunProtectionMs: 10 * 60 * 1000,
	/** runs this process remembers as having sent or finished (a few hundred bytes each) */
	maxRuns: 20_000,
	/** a failed Redis read or write is tried again after each of these waits, then given up (transport/redisStore.ts) */
	redisRetryDelaysMs: REDIS_RETRY_DELAYS_MS,
	/** a Retry looks this far back for the run it repeats, to say when that run is older than the marks kept (durable.bucketMs) */
	olderRunLookBackMs: 14 * 24 * 3600 * 1000,
	/** the record in n8n's database without the shared Redis (sending/ledger/durableMarks.ts, stores/rowBounds.ts) */
	durable: NODE_ROW,
} as const;
