import { privateHostProblem } from '../../nodes/SvcMessaging/rules/privateAddress';

/** The hosts a media link may not point to, judged without DNS. */
describe('private media hosts', () => {
	it.each([
		['127.0.0.1', '127.0.0.1 is a loopback address (127.0.0.0/8)'],
		['127.255.0.9', '127.255.0.9 is a loopback address (127.0.0.0/8)'],
		['10.1.2.3', '10.1.2.3 is a private address (10.0.0.0/8)'],
		['172.16.0.1', '172.16.0.1 is a private address (172.16.0.0/12)'],
		['172.31.255.254', '172.31.255.254 is a private address (172.16.0.0/12)'],
		['192.168.1.1', '192.168.1.1 is a private address (192.168.0.0/16)'],
		['169.254.169.254', '169.254.169.254 is a link-local address (169.254.0.0/16, where cloud metadata services answer)'],
		['0.0.0.0', '0.0.0.0 is an unspecified ("this network") address (0.0.0.0/8)'],
		['100.64.0.1', '100.64.0.1 is a shared (carrier-grade NAT) address (100.64.0.0/10)'],
		['[::1]', '::1 is a loopback address (::1)'],
		['[::]', ':: is the unspecified address (::)'],
		['[fc00::1]', 'fc00::1 is a unique local address (fc00::/7)'],
		['[fd12:3456::1]', 'fd12:3456::1 is a unique local address (fc00::/7)'],
		['[fe80::1]', 'fe80::1 is a link-local address (fe80::/10)'],
		['[::ffff:7f00:1]', '::ffff:7f00:1 is an IPv4-mapped form of a loopback address (127.0.0.0/8)'],
		['[::ffff:169.254.169.254]', '::ffff:169.254.169.254 is an IPv4-mapped form of a link-local address (169.254.0.0/16, where cloud metadata services answer)'],
		['localhost', 'localhost names this machine'],
		['LOCALHOST.', 'localhost names this machine'],
		['media.localhost', 'media.localhost names this machine'],
		['metadata.google.internal', 'metadata.google.internal names this machine'],
	])('refuses %s', (host, problem) => {
		expect(privateHostProblem(host)).toBe(problem);
	});

	it.each(['8.8.8.8', '172.32.0.1', '100.128.0.1', '192.169.0.1', '[2606:4700::1111]', '[::ffff:8.8.8.8]', 'cdn.example.com'])('allows %s', (host) => {
		expect(privateHostProblem(host)).toBeUndefined();
	});

	it('judges the forms the URL parser normalises (decimal, hex, IPv4-mapped IPv6)', () => {
		const host = (link: string) => privateHostProblem(new URL(link).hostname);
		expect(host('https://2130706433/a.png')).toMatch(/^127\.0\.0\.1 is a loopback/);
		expect(host('https://0x7f.1/a.png')).toMatch(/^127\.0\.0\.1 is a loopback/);
		expect(host('https://[::ffff:127.0.0.1]/a.png')).toMatch(/IPv4-mapped form of a loopback/);
		expect(host('https://[0:0:0:0:0:ffff:a9fe:a9fe]/a.png')).toMatch(/IPv4-mapped form of a link-local/);
	});
});
