/**
 * n8n's environment-managed community packages (n8n ≥ 2.21: N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV=true,
 * N8N_COMMUNITY_PACKAGES='[{"name":…,"version":…}]'), the way test/packages/ installs a package: a local
 * npm registry (registry.ts) with the packages published to it, which n8n's npm reaches through npm's
 * own proxy settings (npmProxy.ts: a custom N8N_COMMUNITY_PACKAGES_REGISTRY needs a licence in n8n
 * 2.41.1, checked before the start-up install), and n8n started with the list in its environment.
 */
import type { N8nClient } from './client';
import { N8n, type N8nOptions } from './n8n';
import { startNpmProxy, type NpmProxy } from './npmProxy';
import { startRegistry, type LocalRegistry } from './registry';

export interface ListedPackage {
	name: string;
	version: string;
}

/** A local registry with packages published, and the proxy through which n8n's npm reaches it. */
export interface PackageSource {
	registry: LocalRegistry;
	proxy: NpmProxy;
	/** npm's settings that send its registry requests to the local registry */
	npmEnv: Record<string, string>;
	/** n8n's environment that installs (and keeps) exactly `packages` at start-up */
	managedEnv(packages: ListedPackage[]): Record<string, string>;
	stop(): Promise<void>;
}

/** Starts the registry, runs `publish` against it, then starts the proxy in front of it. */
export async function startPackageSource(publish: (registry: LocalRegistry) => Promise<void>): Promise<PackageSource> {
	const registry = await startRegistry();
	let proxy: NpmProxy | undefined;
	try {
		await publish(registry);
		proxy = await startNpmProxy(new URL(registry.upstream).host, registry.url);
	} catch (error) {
		await registry.stop();
		throw error;
	}
	const npmEnv = { npm_config_https_proxy: proxy.proxyUrl, npm_config_cafile: proxy.cafile };
	const started = proxy;
	return {
		registry,
		proxy: started,
		npmEnv,
		managedEnv: (packages) => ({ ...npmEnv, N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV: 'true', N8N_COMMUNITY_PACKAGES: JSON.stringify(packages) }),
		stop: async () => {
			await started.stop();
			await registry.stop();
		},
	};
}

/** n8n 2.41.1 in regular mode that installs `packages` from `source` at start-up (none staged by the harness). */
export async function startManagedN8n(
	source: PackageSource,
	packages: ListedPackage[],
	options: Omit<N8nOptions, 'target' | 'installPackage'> = {},
): Promise<N8n> {
	return await N8n.start({ ...options, target: '2', installPackage: false, env: { ...(options.env ?? {}), ...source.managedEnv(packages) } });
}

export interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	failedLoading?: boolean;
	updateAvailable?: string;
	installedNodes: Array<{ name: string; type: string }>;
}

/** The community packages n8n lists (Settings → Community Nodes), by name. */
export async function installedPackages(app: N8nClient): Promise<InstalledPackage[]> {
	const { data } = await app.rest<{ data: InstalledPackage[] }>('GET', '/rest/community-packages');
	return data.sort((a, b) => a.packageName.localeCompare(b.packageName));
}

/** The node types of `packageName` n8n has loaded (what the editor's nodes panel offers), sorted. */
export async function loadedNodeTypes(app: N8nClient, packageName: string): Promise<string[]> {
	const types = await app.rest<Array<{ name: string }>>('GET', '/types/nodes.json');
	return types.map((t) => t.name).filter((name) => name.startsWith(`${packageName}.`)).sort();
}
