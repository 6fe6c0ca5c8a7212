/**
 * A real redis-server for a block's tests (the shared rate limit, the send ledger): started before the
 * block, and after it the package's shared limiters and Redis clients are closed before the server
 * stops, so no client reconnects to a server that is gone.
 */
import { closeSharedLimiters } from '../../nodes/SvcMessaging/transport/limiter';
import { closeRedisClients } from '../../nodes/SvcMessaging/transport/redis';
import { live, runningOnly } from './live';
import { startRedis, type RedisServer } from './services';

/** Installing redis-server on first use can take a while. */
const START_TIMEOUT_MS = 120_000;

export function useRedis(options: { password?: string } = {}): RedisServer {
	let running: RedisServer | undefined;
	beforeAll(async () => {
		running = await startRedis(options);
	}, START_TIMEOUT_MS);
	afterAll(async () => {
		await closeSharedLimiters();
		await closeRedisClients();
		await running?.stop();
		running = undefined;
	});
	return live(runningOnly('useRedis()', () => running));
}
