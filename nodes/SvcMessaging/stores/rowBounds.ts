/**
 * The node's processed-data row in n8n's database (nodeRow.ts), which the send ledger's marks
 * (ledger/durableMarks.ts) and the Idempotency Key's (keys/keyClaims.ts) share. Not in the spec: the
 * package's own bounds. SEND_LEDGER.durable (ledger/ledgerBounds.ts) is this object.
 */
/**
 * An execution Retry honours a FINISHED run's messages this long after it finished (the node
 * succeeded, then the execution crashed before n8n saved its progress): the row keeps a finished
 * run's marks no longer. SEND_LEDGER.finishedRunRetryWindowMs is this value.
 */
export const FINISHED_RUN_RETRY_WINDOW_MS = 60 * 60 * 1000;

export const NODE_ROW = {
	/**
	 * n8n's own trim of the node's row (oldest marks first; two a message): only marks no run took
	 * out reach it, those of failed runs and of runs cut short by a restart
	 */
	maxMarks: 200_000,
	/** a retry honours marks of this and the previous bucket (12 to 24 hours back) */
	bucketMs: 12 * 3600 * 1000,
	/**
	 * finished runs' marks kept for an execution Retry after n8n stopped right after them (before it
	 * saved the execution): the last 100 messages' (two marks each); taken out in one call at twice that
	 */
	keepFinishedMarks: 200,
	/**
	 * consecutive messages of a run recorded as one mark once the service accepted them all
	 * (ledger/markBlocks.ts): their own two marks a message leave the row, which so stays small
	 * through a run of any length
	 */
	blockMessages: 100,
	/**
	 * blocks of a level recorded as one mark of the next once all are whole: few, so that the marks of
	 * the blocks waiting for their larger one stay few at any length of run (3 marks a block)
	 */
	blocksPerBlock: 10,
	/** marks one removal call takes out at most: n8n searches and closes the row once per mark, ~1 s of its CPU for 10,000 from a row of 60,000 (each call rewrites the row) */
	removeAtMost: 10_000,
	/**
	 * a row of up to this many marks (~11 KB: a busy node's finished tail and a short run) is written at
	 * once, each message's "under way" mark in its limiter slot. A larger one (a long run under way)
	 * gathers the marks that come meanwhile, and its messages are marked before they wait for their
	 * turn: a slot must not wait for a gather (63 % of Business in one execution of 1,200 SMS in real
	 * n8n), and a row written at once for every message costs its size per message (62.9 KB per SMS
	 * at 2,000 marks)
	 */
	smallRowMarks: 400,
	/**
	 * the gather of a long run's changes (past its first smallRowMarks / 2 messages), whatever the row's
	 * size: its messages are then marked before they wait for their turn, as a large row's are
	 */
	longRunGatherMs: 250,
	/**
	 * a long run's lead (ledger/runLead.ts) moves this many places a write: after a kill a Retry
	 * withholds at most leadStep + leadAhead - 1 messages that never left (and the in-flight ones);
	 * 5 writes a second at Business's 100/s, each of the small row a long run keeps (a step of 4, 25
	 * writes a second, withheld at most 4 but wrote 2.4 × the bytes per SMS of a large Send: each
	 * write costs n8n's SQLite a page or two whatever the row's size)
	 */
	leadStep: 20,
	/** …and its write starts this many posts before the lead is reached, so that posts rarely wait for it */
	leadAhead: 1,
	/** a long run whose row is larger when it reaches its lead (a busy node's finished tail, ~40 KB) marks each message before its turn, in gathers, as a large row's are */
	leadRowMarks: 1_500,
	/** the gather of a large row: this many times the last write's duration, so rewriting it takes a bounded share of n8n */
	flushCostFactor: 40,
	/**
	 * …but never longer than this: a post waits for its "under way" mark, so a gather near the send
	 * window's 2 s idles the window (a 2 MB row, ~50 ms a write, gathered 2.1 s: 79 % of the plan)
	 */
	flushMaxMs: 1_000,
	/**
	 * a failed call to n8n's helpers is made again after each of these waits: two n8n processes
	 * (queue mode's workers) writing a node's first marks at once both insert its row, and one fails
	 */
	retryDelaysMs: [50, 250],
} as const;
