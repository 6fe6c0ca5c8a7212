/**
 * A Redis that keeps its connections open but stops answering (a network partition, a stopped
 * process behind a live proxy) must not hang the node. A TCP proxy of our own
 * (tcpProxy.ts) stands between the nodes and a real redis-server; "silent" drops everything in both directions.
 * Every Redis command has a time limit: the send then fails unsent with the clear "Lost the
 * connection to Redis" error, and the emulator counts what was sent.
 */
import { executeNode } from '../helpers/n8n';
import { sendParameters } from '../sms/fixtures';
import { useRedisBehindProxy } from './redisBehindProxy';
import { recordCase } from './tally';

const bed = useRedisBehindProxy('silent');

it('a Redis that stops answering fails the send unsent, with the Redis error, instead of hanging', async () => {
	const [first] = await executeNode({ parameters: sendParameters(), credentials: bed.credentials() }, [{ phone: '+254712300001' }]);
	expect(first[0].json).toMatchObject({ accepted: true });
	expect(bed.emu.control.messages()).toHaveLength(1);

	bed.proxy.setMode('silent');
	let error: Error | undefined;
	try {
		await executeNode({ parameters: sendParameters(), credentials: bed.credentials() }, [{ phone: '+254712300002' }]);
	} catch (caught) {
		error = caught as Error;
	}
	expect(error?.message).toMatch(/Lost the connection to Redis at 127\.0\.0\.1:\d+/);
	expect(bed.emu.control.messages()).toHaveLength(1);
	recordCase('Redis goes silent mid-run: the send fails unsent', { sentTwice: 0, lost: 0, forgedAccepted: 0 });
}, 60_000);
