/**
 * The trigger's claims on delivery reports in a real Redis Cluster ("Redis Cluster Nodes": 3
 * masters on loopback ports, test/helpers/redisCluster.ts): the same signed event reaching two
 * webhook processes at once starts one execution, for events whose claims fall on every master.
 */
import type { IDataObject } from 'n8n-workflow';

import { useRedisCluster } from '../helpers/redisCluster';
import { ALL_EVENTS, payloadOf, receiver, SECRET, sent, signed, trigger, useTriggerBed, withSecret } from './bed';

const REDIS_PASSWORD = 'cluster-claims-secret-pw-0006';
useTriggerBed();
const cluster = useRedisCluster({ password: REDIS_PASSWORD });

it('two webhook processes, 30 events: one execution each, the service’s retry none; claims on all 3 masters', async () => {
	const credentials = () => withSecret(SECRET, { redis: { port: 6379 }, extra: { redisClusterNodes: cluster.nodesText, redisPassword: REDIS_PASSWORD } });
	const ours = new Set(Object.values(sent).map((m) => m.messageId));
	const real = receiver.deliveries.filter((d) => d.attempt === 1 && ours.has(d.messageId));
	const deliveries = Array.from({ length: 30 }, (_, k) => {
		const payload = payloadOf(real[k % real.length]);
		payload.data.messageId = `${String(payload.data.messageId)}-cluster${k}`;
		return signed(real[k % real.length], JSON.stringify(payload));
	});
	let executions = 0;
	for (const d of deliveries) {
		const run = () => trigger(d, { credentials: credentials(), parameters: { events: ALL_EVENTS }, staticData: {} as IDataObject });
		const [a, b] = await Promise.all([run(), run()]);
		expect(a.executions + b.executions).toBe(1);
		expect([a.body, b.body]).toContainEqual({ received: true, ignored: 'duplicate' });
		expect((await run()).executions).toBe(0);
		executions += a.executions + b.executions;
	}
	expect(executions).toBe(30);
	// The claims spread over the masters (one key each: no slot to share), as any key does.
	const perMaster = cluster.nodes.map((_, i) => Number(cluster.cli(['dbsize'], i).trim()));
	expect(perMaster.every((keys) => keys > 0)).toBe(true);
	expect(perMaster.reduce((a, b) => a + b, 0)).toBe(30);
}, 120_000);
