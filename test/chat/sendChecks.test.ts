/**
 * Chat Message → Send: the checks made before sending (template, media, text, and the media link
 * verified by a HEAD request through n8n), each refusing before any chat message is posted.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { approvedTemplate, chatPosts, chatSend, errorOf, locator, mapped, NOT_OPTED_IN, OPTED_IN, startMediaHost } from './helpers';

const emu = useEmulator();

describe('template checks before sending', () => {
	beforeEach(async () => {
		await approvedTemplate(emu, 'two_vars', [{ type: 'BODY', text: 'Hi {{1}}, code {{2}}.' }]);
		emu.control.clearRequests();
	});

	it('stops when a variable of the template has no value', async () => {
		const error = await errorOf(
			chatSend(emu.url, {
				phoneNumber: OPTED_IN,
				messageType: 'template',
				template: locator('two_vars'),
				templateVariables: mapped({ body_1: 'Amina', body_2: '' }),
			}),
		);
		expect(error.message).toBe('Item 0: Template "two_vars" has 2 variables but 1 value was mapped: Body {{2}} has no value');
		expect(chatPosts(emu)).toHaveLength(0);
	});

	it('stops when more values are mapped than the template has variables', async () => {
		const error = await errorOf(
			chatSend(emu.url, {
				phoneNumber: OPTED_IN,
				messageType: 'template',
				template: locator('two_vars'),
				templateVariables: mapped({ body_1: 'Amina', body_2: '42', body_3: 'extra' }),
			}),
		);
		expect(error.message).toBe(
			'Item 0: Template "two_vars" has 2 variables but 3 values were mapped: Body {{3}} is not in the template (refresh the field list of "Template Variables")',
		);
		expect(chatPosts(emu)).toHaveLength(0);
	});

	it('stops when the language does not match the template', async () => {
		const error = await errorOf(
			chatSend(emu.url, {
				phoneNumber: OPTED_IN,
				messageType: 'template',
				template: locator('two_vars', 'name'),
				templateLanguage: 'fr',
				templateVariables: mapped({ body_1: 'a', body_2: 'b' }),
			}),
		);
		expect(error.message).toBe('Item 0: "Template Language" is fr, but template "two_vars" is in en');
		expect(chatPosts(emu)).toHaveLength(0);
	});

	it('stops for a template that does not exist', async () => {
		const error = await errorOf(
			chatSend(emu.url, { phoneNumber: OPTED_IN, messageType: 'template', template: locator('no_such', 'name'), templateVariables: mapped({}) }),
		);
		expect(error.message).toBe('Item 0: Template "no_such" does not exist in this account (names are case-sensitive)');
		// What to do, for a user who imported an example whose template this account lacks.
		expect(error.description).toMatch(/^Create it with Chat Template → Create .* approval, or pick an approved template/);
		expect(chatPosts(emu)).toHaveLength(0);
	});

	it('stops for a template that is not approved, with the rejection reason', async () => {
		emu.control.reviewTemplate('two_vars', 'REJECTED', 'Promotional content in a utility template');
		const error = await errorOf(
			chatSend(emu.url, {
				phoneNumber: OPTED_IN,
				messageType: 'template',
				template: locator('two_vars'),
				templateVariables: mapped({ body_1: 'a', body_2: 'b' }),
			}),
		);
		expect(error.message).toBe(
			'Item 0: Template "two_vars" is REJECTED (Promotional content in a utility template): only APPROVED templates can be sent',
		);
		expect(chatPosts(emu)).toHaveLength(0);
	});
});


describe('media and text checks before sending', () => {
	const send = (parameters: Record<string, unknown>) => chatSend(emu.url, { phoneNumber: OPTED_IN, ...parameters });

	it.each([
		['image', 'https://cdn.example.com/doc.pdf', '"Media Link" must link to an image file (JPEG, PNG or WEBP): its path must end in .jpg, .jpeg, .png or .webp (got .pdf)'],
		['document', 'https://cdn.example.com/photo.jpg', '"Media Link" must link to a document file (PDF, DOC, DOCX, XLS, XLSX, PPT or PPTX): its path must end in .pdf, .doc, .docx, .xls, .xlsx, .ppt or .pptx (got .jpg)'],
		['video', 'https://cdn.example.com/clip.mov', '"Media Link" must link to a video file (MP4 or 3GPP): its path must end in .mp4, .3gp or .3gpp (got .mov)'],
		['image', 'http://cdn.example.com/photo.jpg', '"Media Link" must be a public HTTPS URL (starting with https://) (got "http://cdn.example.com/photo.jpg")'],
		['image', 'cdn.example.com/photo.jpg', '"Media Link" must be a full URL starting with https:// (got "cdn.example.com/photo.jpg")'],
		['video', 'https://cdn.example.com/watch?v=1', '"Media Link" must link to a video file (MP4 or 3GPP): its path must end in .mp4, .3gp or .3gpp (it has no file extension) (got "https://cdn.example.com/watch?…")'],
	])('refuses the %s link %s', async (messageType, mediaLink, message) => {
		const error = await errorOf(send({ messageType, mediaLink }));
		expect(error.message).toBe(`Item 0: ${message}`);
		expect(chatPosts(emu)).toHaveLength(0);
	});

	it('refuses a caption over 1024 characters', async () => {
		const error = await errorOf(send({ messageType: 'image', mediaLink: 'https://cdn.example.com/a.jpg', caption: 'é'.repeat(1025) }));
		expect(error.message).toBe(`Item 0: "Caption" must be at most 1024 characters (it has 1025) (got "${'é'.repeat(39)}…")`);
		expect(chatPosts(emu)).toHaveLength(0);
	});

	it('accepts a caption of exactly 1024 characters', async () => {
		const [[out]] = await send({ messageType: 'image', mediaLink: 'https://cdn.example.com/a.jpg', caption: 'x'.repeat(1024) });
		expect(out.json.accepted).toBe(true);
	});

	it('refuses a document file name over 240 characters', async () => {
		const error = await errorOf(
			send({ messageType: 'document', mediaLink: 'https://cdn.example.com/a.pdf', filename: `${'f'.repeat(237)}.pdf` }),
		);
		expect(error.message).toBe(`Item 0: "File Name" must be at most 240 characters (it has 241) (got "${'f'.repeat(39)}…")`);
		expect(chatPosts(emu)).toHaveLength(0);
	});

	it('refuses an empty text and a malformed phone number', async () => {
		expect((await errorOf(send({ messageType: 'text', text: '  ' }))).message).toBe('Item 0: "Text" must not be empty');
		const error = await errorOf(chatSend(emu.url, { phoneNumber: '0712345678', messageType: 'text', text: 'Hi' }));
		expect(error.message).toBe(
			'Item 0: "Phone Number" must be in E.164 format (+ and country code, no leading zero), e.g. +254712345678 (got "0712345678")',
		);
		expect(chatPosts(emu)).toHaveLength(0);
	});

	it('checks every item before sending any', async () => {
		const error = await errorOf(
			chatSend(
				emu.url,
				{ phoneNumber: OPTED_IN, messageType: 'image', mediaLink: '={{ $json.link }}' },
				[{ link: 'https://cdn.example.com/1.jpg' }, { link: 'https://cdn.example.com/2.jpg' }, { link: 'https://cdn.example.com/3.gif' }],
			),
		);
		expect(error.message).toMatch(/^Item 2: "Media Link" must link to an image file \(JPEG, PNG or WEBP\): .* \(got \.gif\)$/);
		expect(chatPosts(emu)).toHaveLength(0);
	});

	it('does not send an accepted message again when n8n retries the node in the same execution', async () => {
		const setup = {
			parameters: { resource: 'chatMessage', operation: 'send', phoneNumber: '={{ $json.phone }}', messageType: 'text', text: 'Once' },
			credentials: apiKeyCredentials(emu.url),
			executionId: 'chat-retry-1',
		};
		const items = [{ phone: OPTED_IN }, { phone: NOT_OPTED_IN }];
		const first = await errorOf(executeNode(setup, items));
		expect(first.message).toBe('1 chat message(s) were not accepted (items 1); 1 were accepted');
		const second = await errorOf(executeNode(setup, items));
		expect(second.message).toBe(first.message);
		expect(emu.control.chatMessages()).toHaveLength(1);
	});
});


describe('Verify Media Link (HEAD request through n8n)', () => {
	let host: Awaited<ReturnType<typeof startMediaHost>>;

	beforeAll(async () => {
		host = await startMediaHost({
			'/ok.png': { contentType: 'image/png', contentLength: 120_000 },
			'/big.jpg': { contentType: 'image/jpeg', contentLength: 6 * 1024 * 1024 },
			'/page.jpg': { contentType: 'text/html; charset=utf-8', contentLength: 900 },
			'/report.pdf': { contentType: 'application/pdf', contentLength: 40 * 1024 * 1024 },
			'/long.mp4': { contentType: 'video/mp4', contentLength: 17 * 1024 * 1024 },
		});
	});
	afterAll(async () => {
		await host.close();
	});
	beforeEach(() => host.heads.splice(0));

	// The test host listens on 127.0.0.1: "Allow Private Media Hosts" lets the check reach it.
	const verify = (messageType: string, path: string) =>
		chatSend(emu.url, {
			phoneNumber: OPTED_IN,
			messageType,
			mediaLink: `${host.url}${path}`,
			options: { verifyMediaLink: true, allowPrivateMediaHosts: true },
		});

	it('sends when the link answers with an allowed type and size', async () => {
		const [[image]] = await verify('image', '/ok.png');
		const [[document]] = await verify('document', '/report.pdf');
		expect([image.json.accepted, document.json.accepted]).toEqual([true, true]);
		expect(host.heads).toEqual([
			{ method: 'HEAD', path: '/ok.png' },
			{ method: 'HEAD', path: '/report.pdf' },
		]);
	});

	it.each([
		['image', '/big.jpg', 'is 6.0 MB; an image may be at most 5.0 MB'],
		['video', '/long.mp4', 'is 17.0 MB; a video may be at most 16.0 MB'],
		['image', '/page.jpg', 'has content type "text/html"; an image must be JPEG, PNG or WEBP (image/jpeg, image/png or image/webp)'],
		['document', '/missing.pdf', 'answered HTTP 404 to a HEAD request; it must be publicly reachable'],
	])('refuses the %s at %s', async (messageType, path, problem) => {
		const error = await errorOf(verify(messageType, path));
		expect(error.message).toBe(`Item 0: "Media Link" ${problem}`);
		expect(host.heads).toEqual([{ method: 'HEAD', path }]);
		expect(chatPosts(emu)).toHaveLength(0);
	});
});
