import type { SharedLimitConfig } from '../../transport/redis';
import type { KeyClaim, KeyStore } from './keyClaims';
import { openRedisStore } from '../../transport/redisStore';

/**
 * Replaces a claim only when its holder asks (its token): settles it with the result, marks it of
 * unknown outcome, or releases it (ARGV[2] empty). The rest of the claim's time is kept.
 */
const SETTLE = `
local held = redis.call('GET', KEYS[1])
if not held then return 0 end
local ok, claim = pcall(cjson.decode, held)
if not ok or claim.token ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) return 1 end
local left = redis.call('PTTL', KEYS[1])
if left > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', left) else redis.call('SET', KEYS[1], ARGV[2]) end
return 1
`;

/**
 * Key claims in the credential's shared Redis, under `<prefix>:idem:<digest>` (a digest of the
 * account and the user's key): `SET NX PX` claims a key for every n8n process and workflow on the
 * account at once, so two executions at the same instant never both send.
 */
export async function redisKeyStore(config: SharedLimitConfig): Promise<KeyStore> {
	const { client, key, tried } = await openRedisStore(config, 'the idempotency keys');
	const keyOf = (digest: string) => key(`idem:${digest}`);
	const parsed = (value: string | null | undefined) => (value ? (JSON.parse(value) as KeyClaim) : undefined);
	const peek = async (digests: string[]) =>
		digests.length === 0 ? [] : (await tried(async () => await client.mget(digests.map(keyOf)))).map(parsed);
	return {
		peek,
		async claim(asks, mine) {
			const json = JSON.stringify(mine);
			const answers: Array<KeyClaim | undefined> = new Array(asks.length);
			let open = asks.map((_, n) => n);
			// A key that expires between the SET NX and the read is claimed again (bounded).
			for (let round = 0; round < 3 && open.length > 0; round++) {
				// A SET NX tried again after a lost answer reads its own claim back (its token): still ours.
				const set = await tried(async () => {
					const pipeline = client.pipeline();
					for (const n of open) pipeline.set(keyOf(asks[n].digest), json, 'PX', asks[n].ttlMs, 'NX');
					return await pipeline.exec();
				});
				const taken = open.filter((n, i) => set?.[i]?.[1] !== 'OK');
				const held = await peek(taken.map((n) => asks[n].digest));
				open = [];
				taken.forEach((n, i) => {
					if (held[i] && held[i]!.token === mine.token) return;
					if (held[i]) answers[n] = held[i];
					else open.push(n);
				});
			}
			for (const n of open) answers[n] = { ...mine, state: 'unknown', message: 'its claim in Redis could not be read back' };
			return answers;
		},
		async settle(ask, token, next) {
			const answer = await tried(async () => await client.eval(SETTLE, 1, keyOf(ask.digest), token, next ? JSON.stringify(next) : ''));
			return answer === 1;
		},
	};
}
