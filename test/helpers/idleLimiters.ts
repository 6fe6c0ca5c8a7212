/**
 * Idle keys' limiters let go, measured the same way over either limiter engine (test/limiter/idle.test.ts
 * over Bottleneck, test/cloud/idleLimiters.test.ts over the Cloud engine): `keys` keys used once each,
 * left idle, then released. Whether each limiter is really gone is read from a WeakRef per limiter
 * after full GCs (exact, whatever else the heap holds); the heap figures (per key) are printed and
 * compared by the callers where the engine's size makes a rule of them.
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
const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

export interface IdleRelease {
	/** limiters the registry held once every key was used, and after the release (both over the count before) */
	heldBefore: number;
	heldAfter: number;
	/** limiters still reachable after the release (WeakRefs that still answer) */
	alive: number;
	/** heap per key, in KB: held while idle, left after the release, and given back */
	keptKb: number;
	afterKb: number;
	releasedKb: number;
}

export async function idleRelease(keys: number, label: string): Promise<IdleRelease> {
	await releaseIdleLimiters(0);
	const before = heapUsed();
	const start = limiterCount();
	const refs: Array<WeakRef<object>> = [];
	for (let i = 0; i < keys; i++) {
		const limiter = await limiterFor('http://idle.test', `key-idle-${i}`, { requestsPerSecond: 50, recipientsPerCall: 1 });
		await limiter.schedule(async () => i);
		refs.push(new WeakRef(limiter));
	}
	// Each slot is held 1,000 ms after its answer (no round trips seen yet): then every limiter is idle.
	await sleep(1_300);
	const kept = heapUsed();
	const heldBefore = limiterCount() - start;
	await releaseIdleLimiters(0);
	const after = heapUsed();
	// A WeakRef's target is kept to the end of the turn that read it: a turn between the release and the count.
	await sleep(0);
	gc();
	const alive = refs.filter((ref) => ref.deref() !== undefined).length;
	const perKey = (bytes: number) => bytes / keys / 1024;
	const result = { heldBefore, heldAfter: limiterCount() - start, alive, keptKb: perKey(kept - before), afterKb: perKey(after - before), releasedKb: perKey(kept - after) };
	process.stderr.write(`idle limiters (${label}): ${result.keptKb.toFixed(2)} KB per key kept, ${result.afterKb.toFixed(2)} KB per key after letting them go (${result.releasedKb.toFixed(2)} KB released), ${alive} of ${keys} still reachable\n`);
	return result;
}
