/** Talks to a running n8n over HTTP: the owner, REST, the public API, workflows, executions, webhooks. */
import { waitFor } from '../../helpers/waitFor';
import { carriesTypes, forEdition } from './edition';
import { http } from './processes';
import { FINAL, type Execution, type WorkflowJson } from './workflows';

export const E2E_OWNER = { email: 'owner@svc.test', password: 'SvcDemo-2026', firstName: 'Demo', lastName: 'Owner' };

/** Talks to a running n8n: REST (cookie), public API (key), workflows, executions, webhooks. */
export class N8nClient {
	apiKey = '';
	cookie = '';
	private webhookCounter = 0;

	constructor(
		readonly url: string,
		auth: { apiKey?: string; cookie?: string } = {},
	) {
		this.apiKey = auth.apiKey ?? '';
		this.cookie = auth.cookie ?? '';
	}

	/** Sets up the owner (or logs in when it exists) and creates a public-API key with every scope. */
	async setupOwner(owner = E2E_OWNER): Promise<void> {
		const setup = await http('POST', `${this.url}/rest/owner/setup`, owner);
		let cookie = cookieOf(setup.headers);
		if (setup.status !== 200 || !cookie) {
			// Already set up (a kept user folder): log in.
			const login = await http('POST', `${this.url}/rest/login`, { emailOrLdapLoginId: owner.email, email: owner.email, password: owner.password });
			cookie = cookieOf(login.headers);
			if (login.status !== 200 || !cookie) {
				throw new Error(`Owner setup failed (${setup.status} ${setup.text.slice(0, 300)}) and login failed (${login.status} ${login.text.slice(0, 300)})`);
			}
		}
		this.cookie = cookie;
		const scopes = await this.rest<{ data: string[] }>('GET', '/rest/api-keys/scopes').catch(() => undefined);
		const key = await this.rest<{ data: { rawApiKey?: string; apiKey?: string } }>('POST', '/rest/api-keys', {
			label: `e2e-${Date.now()}`,
			expiresAt: null,
			scopes: scopes?.data ?? [],
		});
		this.apiKey = key.data.rawApiKey ?? key.data.apiKey ?? '';
		if (!this.apiKey) throw new Error(`No API key in ${JSON.stringify(key)}`);
	}

	/** Internal REST API of the editor (cookie). */
	async rest<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const sent = carriesTypes(path) ? forEdition(body) : body;
		const res = await http<T>(method, `${this.url}${path}`, sent, { cookie: this.cookie, 'browser-id': 'e2e' });
		if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status}: ${res.text.slice(0, 500)}`);
		return res.body;
	}

	/**
	 * An n8n Data Table in the owner's personal project, with string columns and rows (n8n 1.123 and
	 * 2.x: the editor's REST API). Answers its ID.
	 */
	async createDataTable(name: string, columns: string[], rows: Array<Record<string, string>>): Promise<string> {
		const { data: project } = await this.rest<{ data: { id: string } }>('GET', '/rest/projects/personal');
		const { data: table } = await this.rest<{ data: { id: string } }>('POST', `/rest/projects/${project.id}/data-tables`, {
			name,
			columns: columns.map((column) => ({ name: column, type: 'string' })),
		});
		if (rows.length) await this.rest('POST', `/rest/projects/${project.id}/data-tables/${table.id}/insert`, { data: rows, returnType: 'count' });
		return table.id;
	}

	/** Public API (`X-N8N-API-KEY`). */
	async api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const sent = carriesTypes(path) ? forEdition(body) : body;
		const res = await http<T>(method, `${this.url}/api/v1${path}`, sent, { 'X-N8N-API-KEY': this.apiKey });
		if (res.status >= 300) throw new Error(`${method} /api/v1${path} → ${res.status}: ${res.text.slice(0, 800)}`);
		return res.body;
	}

	private writes: Promise<unknown> = Promise.resolve();

	/** Runs `fn` after every earlier write of this client (n8n's SQLite takes one writer at a time). */
	protected serial<T>(fn: () => Promise<T>): Promise<T> {
		const next = this.writes.then(fn, fn);
		this.writes = next.catch(() => undefined);
		return next;
	}

	/** Creates a workflow through the public API; returns its id. */
	async createWorkflow(workflow: WorkflowJson): Promise<string> {
		const body = {
			name: workflow.name,
			nodes: workflow.nodes,
			connections: workflow.connections,
			settings: { executionOrder: 'v1', ...(workflow.settings ?? {}) },
		};
		const created = await this.serial(() => this.api<{ id: string }>('POST', '/workflows', body));
		return created.id;
	}

	/** Saves nodes, connections and name of a workflow through the public API. */
	async updateWorkflow(id: string, workflow: WorkflowJson): Promise<void> {
		const body = { name: workflow.name, nodes: workflow.nodes, connections: workflow.connections, settings: { executionOrder: 'v1' } };
		await this.serial(() => this.api('PUT', `/workflows/${id}`, body));
	}

	async activate(id: string): Promise<void> {
		await this.serial(() => this.api('POST', `/workflows/${id}/activate`));
	}

	async deactivate(id: string): Promise<void> {
		await this.serial(() => this.api('POST', `/workflows/${id}/deactivate`));
	}

	async deleteWorkflow(id: string): Promise<void> {
		await this.serial(() => this.api('DELETE', `/workflows/${id}`)).catch(() => undefined);
	}

	/** Executions of a workflow, newest first (ids are numeric strings). */
	async executions(workflowId: string, includeData = true): Promise<Execution[]> {
		const out: Execution[] = [];
		let cursor: string | undefined;
		do {
			const page = await this.api<{ data: Execution[]; nextCursor?: string | null }>(
				'GET',
				`/executions?workflowId=${workflowId}&includeData=${includeData}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
			);
			out.push(...page.data);
			cursor = page.nextCursor ?? undefined;
		} while (cursor);
		return out.sort((a, b) => Number(b.id) - Number(a.id));
	}

	async execution(id: string): Promise<Execution> {
		return await this.api<Execution>('GET', `/executions/${id}?includeData=true`);
	}

	/** Waits until `count` executions of the workflow have finished; returns them oldest first. */
	async waitForExecutions(workflowId: string, count: number, timeoutMs = 60_000): Promise<Execution[]> {
		return await waitFor(
			`${count} finished execution(s) of workflow ${workflowId}`,
			async () => {
				const list = await this.executions(workflowId);
				const done = list.filter((e) => FINAL.has(e.status) || (e.finished && e.stoppedAt));
				return done.length >= count && done.length === list.length ? done.reverse() : undefined;
			},
			timeoutMs,
			150,
		);
	}

	/** Polls a GET on a production webhook URL until n8n has registered it (it then answers POSTs). */
	async waitForWebhook(path: string, timeoutMs = 30_000): Promise<void> {
		await waitFor(
			`webhook ${path} to be registered`,
			async () => {
				const res = await http('GET', `${this.url}/webhook/${path}`, undefined, {}, 5_000);
				// Registered for POST only: "This webhook is not registered for GET requests".
				return res.status === 404 && !/for GET/i.test(res.text) ? undefined : true;
			},
			timeoutMs,
			100,
		);
	}

	/**
	 * Runs a workflow that starts with a Webhook node (see asWebhookWorkflow): creates it under a
	 * unique path, activates it, POSTs `body` to it, and returns its one execution (with data) and
	 * the HTTP answer. The workflow is deactivated afterwards unless `keepActive`.
	 */
	async run(workflow: WorkflowJson, body: unknown = {}, options: RunOptions = {}) {
		const started = await this.startRun(workflow, body);
		return await started.finish(options);
	}

	/** Like run(), in two steps, so that several workflows can execute at the same time. */
	async startRun(workflow: WorkflowJson, body: unknown = {}) {
		const prepared = await this.prepareRun(workflow);
		return prepared.post(body);
	}

	/**
	 * Runs a stored workflow the way the editor's "Execute workflow" button does (REST, manual
	 * mode, the trigger's pinned data as input), and returns the finished execution.
	 */
	async runManual(workflowId: string, options: { edit?: (workflow: WorkflowJson) => void; timeoutMs?: number } = {}): Promise<Execution> {
		const { data: workflowData } = await this.rest<{ data: WorkflowJson & { pinData?: Record<string, unknown> } }>('GET', `/rest/workflows/${workflowId}`);
		if (options.edit) {
			// The editor saves before it runs (n8n 2.x runs the saved workflow, 1.x the one sent along).
			options.edit(workflowData);
			await this.updateWorkflow(workflowId, workflowData);
		}
		const trigger =
			workflowData.nodes.find((n) => workflowData.pinData?.[n.name] !== undefined) ??
			workflowData.nodes.find((n) => /trigger|webhook/i.test(n.type));
		const before = new Set((await this.executions(workflowId, false)).map((e) => e.id));
		const started = await this.rest<{ data: { executionId?: string; waitingForWebhook?: boolean } }>('POST', `/rest/workflows/${workflowId}/run`, {
			workflowData,
			...(trigger ? { triggerToStartFrom: { name: trigger.name } } : {}),
		});
		if (started.data.waitingForWebhook) throw new Error(`Workflow ${workflowId} waits for a test webhook call: pin data on its trigger`);
		const executionId = started.data.executionId;
		return await waitFor(
			`manual execution of workflow ${workflowId}`,
			async () => {
				const list = await this.executions(workflowId, true);
				const found = list.find((e) => (executionId ? e.id === String(executionId) : !before.has(e.id)));
				return found && FINAL.has(found.status) ? found : undefined;
			},
			options.timeoutMs ?? 60_000,
			100,
		);
	}

	/** Creates and activates the workflow; post() then starts one execution. */
	async prepareRun(workflow: WorkflowJson) {
		const webhook = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
		if (!webhook) throw new Error(`Workflow "${workflow.name}" has no Webhook node: use asWebhookWorkflow()`);
		const path = `e2e-${Date.now().toString(36)}-${++this.webhookCounter}`;
		const wf = structuredClone(workflow);
		const hook = wf.nodes.find((n) => n.name === webhook.name)!;
		hook.parameters = { ...hook.parameters, path };
		hook.webhookId = path;
		const id = await this.createWorkflow(wf);
		await this.activate(id);
		await this.waitForWebhook(path);
		return {
			workflowId: id,
			post: (body: unknown = {}) => {
				const t0 = Date.now();
				const response = http('POST', `${this.url}/webhook/${path}`, body, {}, 300_000);
				return {
					workflowId: id,
					finish: async (options: RunOptions = {}) => {
						const answer = await response;
						const executions = await this.waitForExecutions(id, 1, options.timeoutMs ?? 60_000);
						const execution = executions[executions.length - 1];
						const durationMs = Date.now() - t0;
						if (!options.keepActive) await this.deactivate(id).catch(() => undefined);
						return { workflowId: id, execution, response: answer, durationMs };
					},
				};
			},
		};
	}
}

export interface RunOptions {
	keepActive?: boolean;
	timeoutMs?: number;
}

function cookieOf(headers: Headers): string {
	const all = typeof headers.getSetCookie === 'function' ? headers.getSetCookie() : [headers.get('set-cookie') ?? ''];
	const auth = all.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
	return auth ?? '';
}
