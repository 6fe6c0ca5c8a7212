import { StoreFull, type ProcessBounds, type Store } from './store';

interface Held<V> {
	value: V;
	/** epoch ms; Infinity: no expiry */
	expires: number;
	written: number;
}

/** A store in this process, with what only a process store can do: read at once, and forget (a restart, in tests). */
export interface ProcessStore<V> extends Store<V> {
	/** the value under `key`, now (undefined: none, or expired) */
	held(key: string): V | undefined;
	/** forgets every key, as a restart does */
	clear(): void;
}

/**
 * A store in this process: every workflow of this n8n process sees it, and a Map's step is atomic
 * here. Bounded by `bounds` (the oldest written first; expired keys are forgotten as new ones come).
 * Values are kept as they are, no copy.
 */
export function inProcess<V>(bounds: ProcessBounds): ProcessStore<V> {
	const map = new Map<string, Held<V>>();
	const alive = (key: string, now: number): Held<V> | undefined => {
		const held = map.get(key);
		if (held && held.expires <= now) map.delete(key);
		return held && held.expires > now ? held : undefined;
	};
	/** Insertion order is write order: with one lifetime for all, the expired keys are at the front. */
	const forgetExpired = (now: number) => {
		for (const [key, held] of map) {
			if (held.expires > now) break;
			map.delete(key);
		}
	};
	/** keepUnexpired: the earliest expiry the last sweep left (no sweep before it: nothing to find) */
	let nextExpiry = 0;
	/** Forgets every expired key, wherever it is in the map (lifetimes differ): once per expiry, not per write. */
	const sweep = (now: number) => {
		if (now < nextExpiry) return;
		nextExpiry = Infinity;
		for (const [key, held] of map) {
			if (held.expires <= now) map.delete(key);
			else nextExpiry = Math.min(nextExpiry, held.expires);
		}
	};
	/** Throws when `n` new keys would not all find a place (keepUnexpired): a call sets all its keys or none. */
	const roomFor = (n: number, now: number) => {
		if (!bounds.keepUnexpired || map.size + n <= bounds.maxKeys) return;
		forgetExpired(now);
		sweep(now);
		if (map.size + n > bounds.maxKeys) throw bounds.full?.(map.size) ?? new StoreFull(map.size);
	};
	/** Frees one place for a new key, or throws StoreFull (see ProcessBounds). */
	const makeRoom = (now: number) => {
		forgetExpired(now);
		if (map.size < bounds.maxKeys) return;
		if (bounds.keepUnexpired) {
			sweep(now);
			if (map.size < bounds.maxKeys) return;
			throw bounds.full?.(map.size) ?? new StoreFull(map.size);
		}
		const [oldestKey, oldest] = map.entries().next().value as [string, Held<V>];
		if (bounds.keepAtLeastMs !== undefined && now - oldest.written < bounds.keepAtLeastMs) throw new StoreFull(map.size);
		map.delete(oldestKey);
	};
	const write = (key: string, value: V, ttlMs: number | undefined, now: number) => {
		if (!map.delete(key)) makeRoom(now);
		const expires = ttlMs === undefined ? Infinity : now + ttlMs;
		map.set(key, { value, expires, written: now });
		nextExpiry = Math.min(nextExpiry, expires);
	};
	return {
		held: (key) => alive(key, Date.now())?.value,
		clear: () => {
			map.clear();
			nextExpiry = 0;
		},
		async get(keys) {
			const now = Date.now();
			return keys.map((key) => alive(key, now)?.value);
		},
		async set(entries, ttlMs) {
			const now = Date.now();
			for (const [key, value] of entries) write(key, value, ttlMs, now);
		},
		async setIfAbsent(entries) {
			const now = Date.now();
			roomFor(entries.filter(([key]) => !alive(key, now)).length, now);
			return entries.map(([key, value, ttlMs]) => {
				if (alive(key, now)) return false;
				write(key, value, ttlMs, now);
				return true;
			});
		},
		async replaceIfToken(key, token, next) {
			const held = alive(key, Date.now());
			if (!held || (held.value as { token?: unknown }).token !== token) return false;
			if (next === undefined) map.delete(key);
			// The rest of its time, and its place, are kept.
			else held.value = next;
			return true;
		},
		async remove(keys) {
			for (const key of keys) map.delete(key);
		},
		async addUpTo(key, n, limit, ttlMs) {
			const now = Date.now();
			forgetExpired(now);
			const before = (alive(key, now)?.value as number | undefined) ?? 0;
			if (before + n > limit) return { added: false, before };
			write(key, (before + n) as V, ttlMs, now);
			return { added: true, before };
		},
		subtract(key, n) {
			const held = map.get(key);
			if (held) held.value = Math.max(0, (held.value as number) - n) as V;
		},
	};
}
