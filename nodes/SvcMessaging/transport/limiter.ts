import type { PlanLimits } from './service';
import { createLimiter, type KeyLimiter, type OwnedLimiter } from './keyLimiter';
import { learnedStrictHere, limiterSettings, rememberStrictHere, type RateReading } from './rateReading';
import { connectionId, digest, scopedPrefix, type SharedLimitConfig } from './redis';
import { joinCluster, type ClusterStore } from './sharedLimit';

export type { KeyLimiter } from './keyLimiter';

/** One key's limiter in this process, and how to make it again. */
interface Entry {
	limiter: Promise<OwnedLimiter>;
	make: () => Promise<OwnedLimiter>;
	/** the reading it was made with (readAlso) */
	reading?: RateReading;
	/** the Redis connection of a shared limiter, once joined */
	cluster?: ClusterStore;
}

/**
 * This process's limiters, one per key in use (keyLimiter.ts). A limiter idle for IDLE_MS (nothing
 * queued, held or paused) is let go, so memory follows the keys in use, not every key ever used.
 * It leaves the map in the same synchronous step that finds it idle, and from then on passes every
 * call to the key's next limiter: two limiters of one key never run at once in a process.
 */
const limiters = new Map<string, Entry>();

/** A limiter idle this long is let go (a 429's pause keeps it busy until the pause is over). */
export const IDLE_MS = 60_000;
let nextSweep = 0;

/** Lets go of every limiter idle for `idleForMs` or more (limiterFor does it now and then). */
export async function releaseIdleLimiters(idleForMs = IDLE_MS): Promise<void> {
	const now = Date.now();
	await Promise.all(
		[...limiters].map(async ([id, entry]) => {
			const limiter = await entry.limiter.catch(() => undefined);
			const since = limiter?.idleSince();
			// Still the key's limiter, and idle long enough: out of the map and retired in one step.
			if (!limiter || since === undefined || now - since < idleForMs || limiters.get(id) !== entry) return;
			limiters.delete(id);
			limiter.retire(async () => await lookUp(id, entry.make, entry.reading));
			await entry.cluster?.close();
		}),
	);
}

/** How many limiters this process holds (tests). */
export const limiterCount = () => limiters.size;

/**
 * The key's limiter in this process; with `shared`, one clustered on that Redis for all processes.
 * The key is kept in process memory only (as n8n keeps decrypted credentials); Redis sees a hash.
 * `reading`: how it reads the plan's rate (rateReading.ts; what it learns outlives the limiter).
 * Throws SharedLimitUnavailable when Redis cannot be reached (nothing is sent then).
 */
export async function limiterFor(
	baseUrl: string,
	apiKey: string,
	limits: PlanLimits,
	shared?: SharedLimitConfig,
	reading: RateReading = 'strict',
): Promise<KeyLimiter> {
	const where = shared ? connectionId(shared) : '';
	// One limiter per key whatever the credential's reading: two would each send the plan's rate.
	const id = `${baseUrl}\u0000${apiKey}\u0000${limits.requestsPerSecond}\u0000${where}`;
	const now = Date.now();
	if (now >= nextSweep) {
		nextSweep = now + IDLE_MS / 4;
		void releaseIdleLimiters();
	}
	const existing = limiters.get(id);
	if (existing) return readAlso(existing, reading, await existing.limiter);
	// Only when made: a digest per request would cost every request.
	const make = async () => {
		const keyDigest = digest(`${baseUrl}\u0000${apiKey}`);
		const learned = reading === 'learn' && learnedStrictHere(keyDigest);
		if (shared) return await sharedLimiter(id, keyDigest, limits, shared, { reading, learned });
		return createLimiter(limits, { reading, learnedStrict: learned, onLearnedStrict: () => rememberStrictHere(keyDigest) });
	};
	const limiter = await lookUp(id, make, reading);
	return readAlso(limiters.get(id), reading, limiter);
}

/**
 * Credentials that read the key's rate differently (Strict beside Learn, …): the key's one limiter
 * keeps the strict reading, the strictest, from then on (docs/assumptions.md).
 */
function readAlso(entry: Entry | undefined, reading: RateReading, limiter: OwnedLimiter): KeyLimiter {
	if (entry && entry.reading !== reading) limiter.holdStrict();
	return limiter;
}

async function lookUp(id: string, make: () => Promise<OwnedLimiter>, reading?: RateReading): Promise<OwnedLimiter> {
	let entry = limiters.get(id);
	if (!entry) {
		const fresh = { make, reading } as Entry;
		limiters.set(id, fresh);
		// make() reads the map's entry (a shared limiter records its connection there).
		fresh.limiter = make();
		entry = fresh;
	}
	return await entry.limiter;
}

async function sharedLimiter(
	id: string,
	keyDigest: string,
	limits: PlanLimits,
	shared: SharedLimitConfig,
	start: { reading: RateReading; learned: boolean },
): Promise<OwnedLimiter> {
	const entry = limiters.get(id)!;
	const forget = () => {
		if (limiters.get(id) === entry) limiters.delete(id);
	};
	const bottleneckId = `${scopedPrefix(shared, keyDigest)}:limiter:${keyDigest}:${limits.requestsPerSecond}`;
	// A limiter that could not join is forgotten (the next request tries again); its RedisUnavailable
	// goes on unchanged to the node-facing layer, which turns it into a NodeOperationError
	// (transport/request.ts sharedLimitError).
	let joined = false;
	try {
		// The key's N slots and its spacing, shared by every process on the key.
		const { reading } = start;
		const strict = reading === 'strict' || start.learned;
		const cluster = await joinCluster(shared, bottleneckId, (isStrict) => limiterSettings(limits, isStrict), { strict, learns: reading === 'learn' });
		// A failed limiter is forgotten: the next request connects again (and fails clearly if it cannot).
		cluster.onFailure(() => {
			forget();
			clusters.delete(cluster);
		});
		clusters.add(cluster);
		entry.cluster = cluster;
		const onLearnedStrict = () => {
			rememberStrictHere(keyDigest);
			cluster.learnStrict().catch(() => undefined);
		};
		const limiter = createLimiter(limits, { cluster, reading, learnedStrict: cluster.strictAtJoin, onLearnedStrict });
		joined = true;
		return limiter;
	} finally {
		if (!joined) forget();
	}
}

const clusters = new Set<ClusterStore>();

/** Disconnects every shared limiter of this process (tests and benchmarks end with this). */
export async function closeSharedLimiters(): Promise<void> {
	const open = [...clusters];
	clusters.clear();
	for (const [id, entry] of [...limiters]) if (entry.cluster || id.split('\u0000')[3]) limiters.delete(id);
	await Promise.all(open.map(async (cluster) => await cluster.close()));
}
