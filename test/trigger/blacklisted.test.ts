/**
 * The trigger's "Add Blacklisted Numbers to the Do-Not-Send List": a signed report that failed with
 * BLACKLISTED (the emulator's real delivery) puts its number on the credential's Redis list, and
 * the next send with that credential posts nothing to it (counted at the emulator).
 */
import { executeNode } from '../helpers/n8n';
import { useRedis } from '../helpers/redisFixture';
import { downRedisPort } from '../helpers/services';
import { sendParameters } from '../sms/fixtures';
import { delivery, NUMBERS, trigger, useTriggerBed, withSecret } from './bed';

const emu = useTriggerBed();
const redis = useRedis();

let prefix = 0;
const shared = (port = redis.port) => withSecret(undefined, { redis: { port, prefix: `blacklisted-${++prefix}` } });
const check = async (credentials: ReturnType<typeof shared>, phone: string) =>
	(await executeNode({ parameters: { resource: 'doNotSendList', operation: 'check', phoneNumber: phone, options: {} }, credentials }))[0][0].json.onDoNotSendList;

describe('Add Blacklisted Numbers to the Do-Not-Send List', () => {
	it('a BLACKLISTED report lists its number in E.164; the item says so; the next send posts nothing to it', async () => {
		const credentials = shared();
		const answer = await trigger(delivery('blacklisted', 'message.failed'), { credentials, parameters: { events: ['message.failed'], options: { addBlacklisted: true } } });
		expect(answer.items).toEqual([expect.objectContaining({ phoneNumber: NUMBERS.blacklisted, reasonCode: 'BLACKLISTED', addedToDoNotSendList: true })]);
		expect(await check(credentials, NUMBERS.blacklisted)).toBe(true);
		const posts = () => emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/sms/send-api').length;
		const before = posts();
		const out = (await executeNode({ parameters: sendParameters(), credentials }, [{ phone: NUMBERS.blacklisted }]))[0];
		expect(out[0].json).toMatchObject({ suppressed: true, phoneNumber: NUMBERS.blacklisted });
		expect(posts()).toBe(before);
	});

	it('listed even when the workflow starts on other events only; other failures are not listed', async () => {
		const credentials = shared();
		const answer = await trigger(delivery('blacklisted', 'message.failed'), { credentials, parameters: { events: ['message.delivered'], options: { addBlacklisted: true } } });
		expect(answer.executions).toBe(0);
		expect(await check(credentials, NUMBERS.blacklisted)).toBe(true);
		await trigger(delivery('unreachable', 'message.failed'), { credentials, parameters: { events: ['message.failed'], options: { addBlacklisted: true } } });
		expect(await check(credentials, NUMBERS.unreachable)).toBe(false);
	});

	it('off (the default): nothing is listed', async () => {
		const credentials = shared();
		await trigger(delivery('blacklisted', 'message.failed'), { credentials, parameters: { events: ['message.failed'] } });
		expect(await check(credentials, NUMBERS.blacklisted)).toBe(false);
	});

	it('without a shared Redis the item says the number could not be listed', async () => {
		const answer = await trigger(delivery('blacklisted', 'message.failed'), { parameters: { events: ['message.failed'], options: { addBlacklisted: true } } });
		expect(answer.items[0]).toMatchObject({ addedToDoNotSendList: false, doNotSendListNote: expect.stringContaining('no Redis (Use Redis)') });
	});

	it('Redis unreachable: 503, so that the service delivers the report again, and no execution', async () => {
		const down = await downRedisPort();
		const answer = await trigger(delivery('blacklisted', 'message.failed'), {
			credentials: shared(down.port),
			parameters: { events: ['message.failed'], options: { addBlacklisted: true, ignoreDuplicates: false } },
		}).finally(down.close);
		expect(answer.statusCode).toBe(503);
		expect(answer.executions).toBe(0);
	}, 20_000);
});
