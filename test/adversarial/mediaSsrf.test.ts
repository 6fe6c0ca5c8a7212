/**
 * Chat media links to private, loopback, link-local and metadata addresses are
 * refused before any request (the emulator counts no chat message, the local HTTPS host no HEAD),
 * and "Verify Media Link" refuses a host name that resolves to one. As an AI tool the model sets
 * the link, so the rule is in the node's field rules (rules/chatMedia.ts, rules/mediaVerify.ts).
 */
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';

import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { chatPosts, chatSend, errorOf, OPTED_IN, startMediaHost } from '../chat/helpers';
import { recordCase } from './tally';

const emu = useEmulator();
let host: Awaited<ReturnType<typeof startMediaHost>>;

beforeAll(async () => {
	host = await startMediaHost({ '/ok.png': { contentType: 'image/png', contentLength: 1000 } });
});
afterAll(async () => {
	await host.close();
});
beforeEach(() => {
	host.heads.splice(0);
});

const port = () => new URL(host.url).port;

const PRIVATE_LINKS: Array<[string, string]> = [
	['loopback 127/8', `https://127.0.0.1:{port}/ok.png`],
	['loopback 127/8 (decimal form)', `https://2130706433:{port}/ok.png`],
	['private 10/8', 'https://10.0.0.5/ok.png'],
	['private 172.16/12', 'https://172.20.1.1/ok.png'],
	['private 192.168/16', 'https://192.168.1.10/ok.png'],
	['cloud metadata 169.254.169.254', 'https://169.254.169.254/latest/meta-data/x.png'],
	['this network 0/8', 'https://0.0.0.0/ok.png'],
	['shared 100.64/10', 'https://100.64.0.1/ok.png'],
	['IPv6 loopback ::1', `https://[::1]:{port}/ok.png`],
	['IPv6 unique local fc00::/7', 'https://[fd00::1]/ok.png'],
	['IPv6 link-local fe80::/10', 'https://[fe80::1]/ok.png'],
	['IPv4-mapped IPv6 of 127.0.0.1', `https://[::ffff:127.0.0.1]:{port}/ok.png`],
	['localhost', `https://localhost:{port}/ok.png`],
];

it.each(PRIVATE_LINKS)('refuses a media link to %s before any request', async (name, template) => {
	const link = template.replace('{port}', port());
	const items = [{ link }, { link }];
	const error = await errorOf(
		chatSend(emu.url, { phoneNumber: OPTED_IN, messageType: 'image', mediaLink: '={{ $json.link }}', options: { verifyMediaLink: true } }, items),
	);
	expect(error.message).toMatch(/^Item 0: "Media Link" must point to a public host: .+ \(turn on the option "Allow Private Media Hosts" to allow it\) \(got ".+"\)$/);
	// The refusal quotes the link (shortened) so that a user finds the row.
	expect(error.message).toContain(`(got ${JSON.stringify(link.length > 40 ? `${link.slice(0, 39)}…` : link)})`);
	expect(chatPosts(emu)).toHaveLength(0);
	expect(host.heads).toHaveLength(0);
	recordCase(`media link to ${name}: refused before any request`, { sentTwice: 0, lost: 0, forgedAccepted: chatPosts(emu).length + host.heads.length });
});

it('with Continue On Fail, every private link is one error item naming its rule; nothing is sent or lost', async () => {
	const links = PRIVATE_LINKS.map(([, template]) => ({ link: template.replace('{port}', port()) }));
	const [out] = await executeNode(
		{
			parameters: { resource: 'chatMessage', operation: 'send', phoneNumber: OPTED_IN, messageType: 'image', mediaLink: '={{ $json.link }}' },
			credentials: apiKeyCredentials(emu.url),
			settings: { onError: 'continueRegularOutput' },
		},
		links,
	);
	expect(out).toHaveLength(links.length);
	expect(out.map((item) => item.pairedItem)).toEqual(links.map((_, item) => ({ item })));
	for (const item of out) {
		expect(item.json).toMatchObject({ accepted: false });
		expect(String(item.json.errorMessage)).toMatch(/"Media Link" must point to a public host/);
	}
	expect(chatPosts(emu)).toHaveLength(0);
	recordCase(`${links.length} private media links with Continue On Fail: all error items`, { sentTwice: 0, lost: links.length - out.length, forgedAccepted: chatPosts(emu).length });
});

it('"Verify Media Link" refuses a host name that resolves to 127.0.0.1 (this machine\'s name), before its HEAD request', async () => {
	const name = hostname();
	// This machine's name resolves to a loopback (here 127.0.0.1) or private address through /etc/hosts,
	// as on Debian and Ubuntu hosts and CI runners; the rule alone cannot know that.
	const resolved = await lookup(name, { all: true });
	expect(resolved.some(({ address }) => /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$)/.test(address))).toBe(true);
	const link = `https://${name}:${port()}/ok.png`;
	const error = await errorOf(chatSend(emu.url, { phoneNumber: OPTED_IN, messageType: 'image', mediaLink: link, options: { verifyMediaLink: true } }));
	expect(error.message).toMatch(
		new RegExp(`^Item 0: "Media Link" must point to a public host: ${name} resolves to [0-9a-f.:]+, an? (loopback|private) address`),
	);
	expect(host.heads).toHaveLength(0);
	expect(chatPosts(emu)).toHaveLength(0);
	recordCase('media link host name resolving to 127.0.0.1: Verify refuses before HEAD', { sentTwice: 0, lost: 0, forgedAccepted: host.heads.length + chatPosts(emu).length });
});

it('"Allow Private Media Hosts" lets the same link through: the HEAD request reaches the host and the message is sent', async () => {
	const link = `${host.url}/ok.png`;
	const [[out]] = await chatSend(emu.url, {
		phoneNumber: OPTED_IN,
		messageType: 'image',
		mediaLink: link,
		options: { verifyMediaLink: true, allowPrivateMediaHosts: true },
	});
	expect(out.json.accepted).toBe(true);
	expect(host.heads).toEqual([{ method: 'HEAD', path: '/ok.png' }]);
	expect(chatPosts(emu)).toHaveLength(1);
});
