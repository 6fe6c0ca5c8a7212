/**
 * Which hosts a media link must not point to: loopback, private, link-local (cloud metadata at
 * 169.254.169.254 included), shared, unspecified, multicast and reserved addresses, in IPv4 and
 * IPv6 (IPv4-mapped, -compatible, NAT64 and 6to4 addresses are judged by the IPv4 address inside),
 * and the names that always mean this machine. "Verify Media Link" connects from the n8n host, and
 * as an AI tool a model chooses the link: such a link would reach n8n's own network.
 */

/** IPv4 ranges that are not public, as [first octets, prefix length, what it is]. */
const IPV4_RANGES: Array<[number[], number, string]> = [
	[[0], 8, 'an unspecified ("this network") address (0.0.0.0/8)'],
	[[10], 8, 'a private address (10.0.0.0/8)'],
	[[100, 64], 10, 'a shared (carrier-grade NAT) address (100.64.0.0/10)'],
	[[127], 8, 'a loopback address (127.0.0.0/8)'],
	[[169, 254], 16, 'a link-local address (169.254.0.0/16, where cloud metadata services answer)'],
	[[172, 16], 12, 'a private address (172.16.0.0/12)'],
	[[192, 0, 0], 24, 'a reserved address (192.0.0.0/24)'],
	[[192, 168], 16, 'a private address (192.168.0.0/16)'],
	[[198, 18], 15, 'a benchmarking address (198.18.0.0/15)'],
	[[224], 4, 'a multicast address (224.0.0.0/4)'],
	[[240], 4, 'a reserved address (240.0.0.0/4)'],
];

/** Host names that resolve to this machine (or its cloud metadata) without asking DNS. */
const LOCAL_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback', 'metadata.google.internal']);

function ipv4Bytes(text: string): number[] | undefined {
	const parts = text.split('.');
	if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
	return parts.map(Number);
}

function inRange(bytes: number[], first: number[], prefix: number): boolean {
	const base = [...first, 0, 0, 0, 0].slice(0, 4);
	const value = (b: number[]) => ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
	const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
	return ((value(bytes) & mask) >>> 0) === ((value(base) & mask) >>> 0);
}

function ipv4Range(bytes: number[]): string | undefined {
	return IPV4_RANGES.find(([first, prefix]) => inRange(bytes, first, prefix))?.[2];
}

/** The 16 bytes of an IPv6 address (with `::` and a dotted IPv4 tail), or undefined. */
function ipv6Bytes(text: string): number[] | undefined {
	const address = text.split('%')[0];
	if (!/^[0-9a-f:.]+$/i.test(address) || !address.includes(':')) return undefined;
	const halves = address.split('::');
	if (halves.length > 2) return undefined;
	const groupsOf = (part: string): number[] | undefined => {
		if (part === '') return [];
		const bytes: number[] = [];
		const groups = part.split(':');
		for (const [index, group] of groups.entries()) {
			if (index === groups.length - 1 && group.includes('.')) {
				const v4 = ipv4Bytes(group);
				if (!v4) return undefined;
				bytes.push(...v4);
			} else if (/^[0-9a-f]{1,4}$/i.test(group)) {
				const n = parseInt(group, 16);
				bytes.push(n >> 8, n & 0xff);
			} else {
				return undefined;
			}
		}
		return bytes;
	};
	const head = groupsOf(halves[0]);
	const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
	if (!head || !tail) return undefined;
	if (halves.length === 1) return head.length === 16 ? head : undefined;
	const missing = 16 - head.length - tail.length;
	return missing >= 2 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : undefined;
}

const startsWith = (bytes: number[], prefix: number[]) => prefix.every((b, i) => bytes[i] === b);

function ipv6Range(bytes: number[]): string | undefined {
	const zeros = (n: number) => bytes.slice(0, n).every((b) => b === 0);
	if (zeros(16)) return 'the unspecified address (::)';
	if (zeros(15) && bytes[15] === 1) return 'a loopback address (::1)';
	const embedded = (offset: number, kind: string) => {
		const range = ipv4Range(bytes.slice(offset, offset + 4));
		return range ? `${kind} of ${range}` : undefined;
	};
	if (zeros(10) && bytes[10] === 0xff && bytes[11] === 0xff) return embedded(12, 'an IPv4-mapped form');
	if (zeros(12)) return embedded(12, 'an IPv4-compatible form');
	if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b]) && bytes.slice(4, 12).every((b) => b === 0)) return embedded(12, 'a NAT64 form');
	if (startsWith(bytes, [0x20, 0x02])) return embedded(2, 'a 6to4 form');
	if ((bytes[0] & 0xfe) === 0xfc) return 'a unique local address (fc00::/7)';
	if (bytes[0] === 0xfe && (bytes[1] & 0xc0) === 0x80) return 'a link-local address (fe80::/10)';
	if (bytes[0] === 0xfe && (bytes[1] & 0xc0) === 0xc0) return 'a site-local address (fec0::/10)';
	if (bytes[0] === 0xff) return 'a multicast address (ff00::/8)';
	return undefined;
}

/** What kind of non-public address `address` (an IP literal, IPv6 with or without brackets) is, or undefined. */
export function privateRangeOf(address: string): string | undefined {
	const bare = address.replace(/^\[|\]$/g, '');
	const v4 = ipv4Bytes(bare);
	if (v4) return ipv4Range(v4);
	const v6 = ipv6Bytes(bare);
	return v6 ? ipv6Range(v6) : undefined;
}

/**
 * Why the host of a link (URL.hostname: IPv4 normalised to dotted form, IPv6 in brackets) is not a
 * public host, judged without DNS; undefined for a public IP or any other name.
 */
export function privateHostProblem(hostname: string): string | undefined {
	const host = hostname.toLowerCase().replace(/\.$/, '');
	if (LOCAL_NAMES.has(host) || host.endsWith('.localhost')) return `${host} names this machine`;
	const range = privateRangeOf(host);
	return range ? `${host.replace(/^\[|\]$/g, '')} is ${range}` : undefined;
}
