/**
 * A real n8n queue-mode installation for tests: Redis and PostgreSQL of their own (free ports,
 * temporary folders), the emulator in its own process (its rate limit a sliding window), ONE `n8n start` (main: editor, REST,
 * webhooks, enqueues executions) and N `n8n worker` processes (run the executions), all on the
 * same Redis, database and encryption key, each with its own user folder holding the package (as
 * separate machines would), its own task-runner broker port and (workers) its own health-server
 * port. Everything started is stopped by stop(), also when start-up fails half-way.
 */
import {
	emulatorCredentials,
	http,
	isInstalled,
	N8n,
	startEmulatorWithClient,
	targetInfo,
	WEBHOOK_SECRET,
	type CredentialJson,
	type EmulatorProcess,
} from '../e2e/harness';
import { startRedisCluster } from '../helpers/redisCluster';
import { startPostgres, startRedis, type PostgresServer, type RedisServer } from '../helpers/services';

/** API-key credentials with "Use Redis" (sharedRateLimit) on, on the queue's Redis. */
export const SHARED_CREDENTIALS = {
	free: { id: 'svcQueueFreeShr1', name: 'SVC Messaging API (emulator, Free, shared limit)', apiKey: 'svc_test_free_0001', plan: 'free' },
	starter: { id: 'svcQueueStartSh1', name: 'SVC Messaging API (emulator, Starter, shared limit)', apiKey: 'svc_test_starter_0001', plan: 'starter' },
} as const;

export const REDIS_KEY_PREFIX = 'svc-messaging';

export function sharedLimitCredentials(emulatorUrl: string, redis: { host: string; port: number }, clusterNodes = ''): CredentialJson[] {
	return Object.values(SHARED_CREDENTIALS).map(({ id, name, apiKey, plan }) => ({
		id,
		name,
		type: 'svcMessagingApi',
		data: {
			baseUrl: emulatorUrl,
			apiKey,
			plan,
			// The queue's service counts strictly (a sliding window); these rows hold the strict reading's figures.
			rateLimitReading: 'strict',
			webhookSecret: WEBHOOK_SECRET,
			sharedRateLimit: true,
			redisHost: redis.host,
			redisPort: redis.port,
			redisDatabase: 0,
			redisPrefix: REDIS_KEY_PREFIX,
			redisClusterNodes: clusterNodes,
		},
	}));
}

export interface QueueStack {
	redis: RedisServer;
	postgres: PostgresServer;
	emulator: EmulatorProcess;
	main: N8n;
	workers: N8n[];
	/** `n8n webhook` processes (production webhooks, executions handed to the workers) */
	webhooks: N8n[];
	/** the queue-mode environment every n8n process got (besides its own ports and folder) */
	env: Record<string, string>;
	/** milliseconds: services, main (imports + server), workers */
	timings: Record<string, number>;
	stop(): Promise<void>;
}

export interface QueueStackOptions {
	workers?: number;
	/** `n8n webhook` processes (default 0) */
	webhooks?: number;
	/** `n8n worker --concurrency` (n8n warns below 5) */
	concurrency?: number;
	log?: (line: string) => void;
	/** mirror n8n's output through `log` */
	verbose?: boolean;
	/** false: n8n starts without the package (test/packages/ installs it from a registry) */
	installPackage?: boolean;
	/** extra environment for main, and for the workers and webhook processes */
	mainEnv?: Record<string, string>;
	workerEnv?: Record<string, string>;
	/**
	 * n8n's queue and the package's shared limit on a Redis Cluster of 3 masters
	 * (QUEUE_BULL_REDIS_CLUSTER_NODES, "Redis Cluster Nodes") instead of one Redis
	 */
	redisCluster?: boolean;
}

export async function startQueueStack(options: QueueStackOptions = {}): Promise<QueueStack> {
	const log = options.log ?? (() => undefined);
	const info = targetInfo();
	if (!isInstalled(info)) throw new Error(`n8n ${info.version} is not installed: run \`bash scripts/install-n8n.sh ${info.target}\``);
	const stoppers: Array<{ what: string; stop: () => Promise<void> }> = [];
	const stop = async () => {
		// Reverse order: workers and main before the emulator, PostgreSQL and Redis they use.
		for (const { what, stop: stopOne } of stoppers.splice(0).reverse()) {
			await stopOne().catch((error: unknown) => log(`stopping ${what} failed: ${String((error as Error)?.message ?? error)}`));
		}
	};
	const timings: Record<string, number> = {};
	try {
		const t0 = Date.now();
		const started = await Promise.allSettled([startRedis(), startPostgres(), startEmulatorWithClient({ log })]);
		const [redisResult, postgresResult, emulatorResult] = started;
		if (redisResult.status === 'fulfilled') stoppers.push({ what: 'redis', stop: () => redisResult.value.stop() });
		if (postgresResult.status === 'fulfilled') stoppers.push({ what: 'postgres', stop: () => postgresResult.value.stop() });
		if (emulatorResult.status === 'fulfilled') stoppers.push({ what: 'emulator', stop: () => emulatorResult.value.stop() });
		for (const result of started) if (result.status === 'rejected') throw result.reason;
		const redis = (redisResult as PromiseFulfilledResult<RedisServer>).value;
		const postgres = (postgresResult as PromiseFulfilledResult<PostgresServer>).value;
		const emulator = (emulatorResult as PromiseFulfilledResult<EmulatorProcess>).value;
		const cluster = options.redisCluster ? await startRedisCluster() : undefined;
		if (cluster) stoppers.push({ what: 'redis cluster', stop: () => cluster.stop() });
		timings.servicesMs = Date.now() - t0;
		if (cluster) log(`[queue] Redis Cluster ${cluster.nodesText}`);
		log(`[queue] redis ${redis.host}:${redis.port}, postgres ${postgres.host}:${postgres.port}/${postgres.database}, emulator ${emulator.url}`);
		await emulator.client.patchAccount('acc_demo', { webhookSecret: WEBHOOK_SECRET });
		// The strictest reading of "N requests per second": at most N in any 1,000 ms, so a
		// burst that a per-second bucket would allow still counts against the plan.
		// An emulator setting: the tests' resets keep it.
		const mode = await http('PUT', `${emulator.url}/__emulator/rate-limit`, { mode: 'sliding-window' });
		if (mode.status !== 200) throw new Error(`could not put the emulator in sliding-window mode: ${mode.status}`);

		const env: Record<string, string> = {
			EXECUTIONS_MODE: 'queue',
			...(cluster ? { QUEUE_BULL_REDIS_CLUSTER_NODES: cluster.nodesText } : { QUEUE_BULL_REDIS_HOST: redis.host, QUEUE_BULL_REDIS_PORT: String(redis.port) }),
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: postgres.host,
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: postgres.database,
			DB_POSTGRESDB_USER: postgres.user,
			DB_POSTGRESDB_PASSWORD: postgres.password,
			// "Worker started execution <id> (job <n>)" is an info line: the proof of who ran what.
			N8N_LOG_LEVEL: 'info',
		};

		// Main first: its `import:credentials` runs the database migrations once for everybody.
		const t1 = Date.now();
		const main = await N8n.start({
			target: info.target,
			env: { ...env, ...options.mainEnv },
			installPackage: options.installPackage,
			credentials: [...emulatorCredentials(emulator.url), ...sharedLimitCredentials(emulator.url, redis, cluster?.nodesText)],
			verbose: options.verbose,
			log: (line) => log(`[main] ${line}`),
		});
		stoppers.push({ what: 'n8n main', stop: () => main.stop() });
		timings.mainImportMs = main.timings.importMs;
		timings.mainStartMs = main.timings.startMs;
		log(`[queue] n8n main at ${main.url} (imports ${(main.timings.importMs / 1000).toFixed(1)} s, server ${(main.timings.startMs / 1000).toFixed(1)} s)`);

		const t2 = Date.now();
		const concurrency = options.concurrency ?? 5;
		// Several processes of one kind at once; each one started is stopped with the stack.
		const startAll = async (kind: 'worker' | 'webhook', count: number, command: string[], extraEnv: Record<string, string> = {}) => {
			const results = await Promise.allSettled(
				Array.from({ length: count }, (_, i) =>
					N8n.start({ target: info.target, command, env: { ...env, ...options.workerEnv, ...extraEnv }, installPackage: options.installPackage, verbose: options.verbose, log: (line) => log(`[${kind} ${i + 1}] ${line}`) }),
				),
			);
			const started: N8n[] = [];
			for (const [i, result] of results.entries()) {
				if (result.status === 'fulfilled') {
					started.push(result.value);
					stoppers.push({ what: `n8n ${kind} ${i + 1}`, stop: () => result.value.stop() });
				}
			}
			for (const result of results) if (result.status === 'rejected') throw result.reason;
			return started;
		};
		const webhooks = await startAll('webhook', options.webhooks ?? 0, ['webhook']);
		// One public webhook URL for the processes that run nodes, as a real deployment has: the
		// resume URLs of waiting executions ($execution.resumeUrl) point at the webhook processes.
		const publicUrl = `${(webhooks[0] ?? main).url}/`;
		const workers = await startAll('worker', options.workers ?? 2, ['worker', `--concurrency=${concurrency}`], { WEBHOOK_URL: publicUrl });
		timings.workersMs = Date.now() - t2;
		timings.totalMs = Date.now() - t0;
		log(`[queue] ${workers.length} workers ready (health ports ${workers.map((w) => w.port).join(', ')}) in ${(timings.workersMs / 1000).toFixed(1)} s; main started ${((t2 - t1) / 1000).toFixed(1)} s`);
		if (webhooks.length) log(`[queue] ${webhooks.length} webhook processes at ${webhooks.map((w) => w.url).join(', ')}`);
		return { redis, postgres, emulator, main, workers, webhooks, env, timings, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}
