/**
 * The agents' "Max Messages per Execution" counted in a real Redis Cluster ("Redis Cluster Nodes":
 * 3 masters on loopback ports, test/helpers/redisCluster.ts): the tool calls of one execution
 * running on two workers at once send at most the cap together. Counted at the emulator.
 */
import type { ApiKeyOptions } from '../helpers/credentials';
import { useRedisCluster } from '../helpers/redisCluster';
import { messagesCounted } from '../../nodes/SvcMessaging/aiTool/agentCap';
import { callTool, phone, SMS_SEND, useToolEmulator } from './toolBed';

const REDIS_PASSWORD = 'cluster-cap-secret-pw-0005';
const emu = useToolEmulator();
const cluster = useRedisCluster({ password: REDIS_PASSWORD });
const onCluster = (): ApiKeyOptions => ({
	redis: { port: 6379, prefix: 'svc-agent-cap' },
	extra: { redisClusterNodes: cluster.nodesText, redisPassword: REDIS_PASSWORD },
});

it('one execution on two workers at once, a cap of 3: 3 messages in all, the rest refused; counted in the cluster, not the process', async () => {
	const setup = { parameters: { ...SMS_SEND, maxMessagesPerExecution: 3 }, executionId: 'exec-cluster-cap', workflowId: 'wf-cluster-cap', credential: onCluster() };
	const calls = (from: number) => Array.from({ length: 4 }, (_, n) => ({ phone: phone(from + n), text: `Reminder ${n}` }));
	const [a, b] = await Promise.all([callTool(setup, calls(70)), callTool(setup, calls(80))]);
	const results = [...a, ...b].map((call) => call.result[0]);
	expect(results.filter((r) => r.accepted === true)).toHaveLength(3);
	expect(results.filter((r) => r.errorCode === 'MESSAGE_CAP_REACHED')).toHaveLength(5);
	expect(emu.control.messages()).toHaveLength(3);
	expect(messagesCounted('wf-cluster-cap', 'exec-cluster-cap')).toBe(0);

	// Another execution counts from zero.
	const next = await callTool({ ...setup, executionId: 'exec-cluster-cap-2' }, [{ phone: phone(90), text: 'Next run' }]);
	expect(next[0].result[0]).toMatchObject({ accepted: true });
}, 60_000);
