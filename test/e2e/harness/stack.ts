/** The emulator process and n8n with the package and the emulator's credentials, started together. */
import { startEmulatorProcess, type EmulatorProcess as BareEmulatorProcess, type EmulatorProcessOptions } from '../../helpers/emulatorProcess';
import { redisInstalled, startRedis, type RedisServer } from '../../helpers/services';
import { EmulatorClient } from './emulatorClient';
import { N8n, type N8nOptions } from './n8n';
import type { Target } from './target';
import { emulatorCredentials, WEBHOOK_SECRET, type WorkflowJson } from './workflows';

/** The emulator process with a client of its control surface. */
export interface EmulatorProcess extends BareEmulatorProcess {
	client: EmulatorClient;
}

/** The one emulator-process starter (test/helpers/emulatorProcess.ts), and a client of the emulator it started. */
export async function startEmulatorWithClient(options: EmulatorProcessOptions = {}): Promise<EmulatorProcess> {
	const started = await startEmulatorProcess(options);
	return { ...started, client: new EmulatorClient(started.url) };
}

/** Emulator + n8n with the package, the emulator's credentials and (optionally) workflows. */
export interface Stack {
	emulator: EmulatorProcess;
	n8n: N8n;
	/** `withRedis` and redis-server installed: the Redis of the API key credentials' "Use Redis" */
	redis?: RedisServer;
	stop(): Promise<void>;
}

export async function startStack(options: {
	target?: Target;
	n8nPort?: number;
	emulatorPort?: number;
	timeScale?: number;
	workflows?: WorkflowJson[];
	userFolder?: string;
	verbose?: boolean;
	log?: (line: string) => void;
	/** extra environment for n8n */
	env?: Record<string, string>;
	/** owner set up through REST; default E2E_OWNER */
	owner?: N8nOptions['owner'];
	/** false: n8n starts without the package */
	installPackage?: boolean;
	/**
	 * npm run dev / demo: a redis-server (free port, temporary folder, emptied at each start) for the
	 * API key credentials' "Use Redis", when Debian's redis-server is installed (scripts/install-services.sh)
	 */
	withRedis?: boolean;
}): Promise<Stack> {
	const redis = options.withRedis && redisInstalled() ? await startRedis() : undefined;
	const emulator = await startEmulatorWithClient({ port: options.emulatorPort, timeScale: options.timeScale, log: options.log }).catch(async (error: unknown) => {
		await redis?.stop();
		throw error;
	});
	try {
		// Delivery reports of the demo account are signed with this secret (as set in the dashboard).
		await emulator.client.patchAccount('acc_demo', { webhookSecret: WEBHOOK_SECRET });
		const n8n = await N8n.start({
			target: options.target,
			port: options.n8nPort,
			userFolder: options.userFolder,
			credentials: emulatorCredentials(emulator.url, redis),
			workflows: options.workflows,
			verbose: options.verbose,
			log: options.log,
			env: options.env,
			owner: options.owner,
			installPackage: options.installPackage,
		});
		return {
			emulator,
			n8n,
			redis,
			stop: async () => {
				await n8n.stop();
				await emulator.stop();
				await redis?.stop();
			},
		};
	} catch (error) {
		await emulator.stop();
		await redis?.stop();
		throw error;
	}
}
