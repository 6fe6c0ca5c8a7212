import { quoted } from '../../nodes/SvcMessaging/rules/errorText';
import { baseUrlProblem } from '../../nodes/SvcMessaging/transport/credentials';
import { reasonOf, RedisUnavailable, redisAddress, sharedLimitOf } from '../../nodes/SvcMessaging/transport/redis';

const SECRET = 'S3cretPW';
const shared = (redisHost: string, extra: Record<string, unknown> = {}) => sharedLimitOf({ sharedRateLimit: true, redisHost, ...extra });

describe('Redis Host: a pasted URL is read, never shown', () => {
	it.each([
		[`rediss://default:${SECRET}@redis.example.com:6380`, { host: 'redis.example.com', port: 6380, user: 'default', password: SECRET, tls: true, database: 0 }],
		[`redis://:${SECRET}@10.1.2.3`, { host: '10.1.2.3', port: 6379, user: '', password: SECRET, tls: false }],
		[`redis://app:${SECRET}@redis.example.com:6379/2`, { host: 'redis.example.com', user: 'app', password: SECRET, database: 2 }],
		[`app:${SECRET}@redis.example.com`, { host: 'redis.example.com', user: 'app', password: SECRET }],
		[`redis://:p%40ss%2Fw@[::1]:7000`, { host: '::1', port: 7000, password: 'p@ss/w' }],
		[' redis.example.com:6390 ', { host: 'redis.example.com', port: 6390 }],
		['redis.example.com', { host: 'redis.example.com', port: 6379, password: 'field' }],
	])('%s', (host, expected) => {
		expect(shared(host, { redisPassword: 'field' })).toMatchObject(expected);
	});

	it('what the URL does not state keeps the fields (port, user, TLS)', () => {
		expect(shared(`redis://:${SECRET}@redis.example.com`, { redisPort: 6400, redisUser: 'app', redisTls: true })).toMatchObject({ port: 6400, user: 'app', tls: true, password: SECRET });
	});

	it.each([`https://u:${SECRET}@redis.example.com`, `redis://u:${SECRET}@[bad`, `redis://u:${SECRET}@redis.example.com/abc`, `redis://u:${SECRET}@redis.example.com:99999`])(
		'%s is refused, without the password',
		(host) => {
			let error: RedisUnavailable | undefined;
			try {
				shared(host);
			} catch (caught) {
				error = caught as RedisUnavailable;
			}
			expect(error).toBeInstanceOf(RedisUnavailable);
			expect(error!.message).toMatch(/^"Redis Host" holds a URL/);
			expect(`${error!.message} ${error!.description}`).not.toContain(SECRET);
		},
	);

	it("Redis's own words never carry a login, whatever the scheme", () => {
		for (const text of [`connect to redis://default:${SECRET}@h:1 failed`, `getaddrinfo ENOTFOUND default:${SECRET}@h`, `rediss://:${SECRET}@h`, `x u:p@ss/w${SECRET}@h`]) {
			expect(reasonOf(new Error(text))).not.toContain(SECRET);
		}
		expect(reasonOf(new Error('connect ECONNREFUSED 127.0.0.1:6379'))).toBe('connect ECONNREFUSED 127.0.0.1:6379');
		expect(redisAddress(shared(`rediss://default:${SECRET}@redis.example.com:6380/1`)!)).toBe('redis.example.com:6380 (database 1, TLS)');
	});
});

describe('refused links are quoted without login, query or fragment, in every form URL parsing accepts', () => {
	it.each([
		` https://u:${SECRET}@hooks.example.com/x?token=${SECRET}`,
		`https://u:${SECRET}@hooks.example.com/x?token=${SECRET} `,
		`https:\\\\u:${SECRET}@hooks.example.com/x?token=${SECRET}`,
		`https:/\\u:${SECRET}@hooks.example.com`,
		`https:u:${SECRET}@hooks.example.com`,
		`u:${SECRET}@hooks.example.com/x?token=${SECRET}`,
		`hooks.example.com/x?token=${SECRET}`,
		`//u:${SECRET}@hooks.example.com/x`,
		`\thttps://u:${SECRET}@hooks.example.com`,
		`ht\ttps://u:${SECRET.slice(0, 3)}\t${SECRET.slice(3)}@hooks.example.com/?t=${SECRET}`,
		`HTTPS://U:${SECRET}@HOOKS.EXAMPLE.COM/#${SECRET}`,
	])('%j', (link) => {
		expect(quoted(link)).not.toContain(SECRET);
		expect(quoted(link)?.toLowerCase()).toContain('hooks.example.com');
	});

	it('ordinary text is quoted as it is', () => {
		expect(quoted('Hello there?')).toBe('"Hello there?"');
		expect(quoted('0712 345 678')).toBe('"0712 345 678"');
	});
});

describe('Base URL', () => {
	it.each([
		[`https://u:${SECRET}@api.example.com`, /user name or password/],
		[`https://api.example.com/?token=${SECRET}`, /query/],
		['https://api.example.com/api/', /ends with \/api/],
		['https://api.example.com/api', /ends with \/api/],
		['api.example.com', /full address/],
		['ftp://api.example.com', /must start with https/],
		['', /is empty/],
	])('%s is refused: %s', (url, rule) => {
		expect(baseUrlProblem(url)).toMatch(rule);
		expect(baseUrlProblem(url)).not.toContain(SECRET);
	});

	it.each(['https://api.example.com', 'https://api.example.com/', ' http://127.0.0.1:3000 ', 'https://gateway.example.com/svc'])('%s is fine', (url) => {
		expect(baseUrlProblem(url)).toBeUndefined();
	});
});
