// The spec's chat media Limits, shared by the link rules (chatMedia.ts) and the HEAD check (mediaVerify.ts).

/** Chat media kinds and the spec's Limits: file types (checked by extension and content type) and sizes. */
export type MediaKind = 'image' | 'document' | 'video';

const MB = 1024 * 1024;

export const CHAT_MEDIA: Record<MediaKind, { label: string; extensions: string[]; contentTypes: string[]; maxBytes: number }> = {
	image: {
		label: 'JPEG, PNG or WEBP',
		extensions: ['jpg', 'jpeg', 'png', 'webp'],
		contentTypes: ['image/jpeg', 'image/png', 'image/webp'],
		maxBytes: 5 * MB,
	},
	document: {
		label: 'PDF, DOC, DOCX, XLS, XLSX, PPT or PPTX',
		extensions: ['pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx'],
		contentTypes: [
			'application/pdf',
			'application/msword',
			'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
			'application/vnd.ms-excel',
			'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
			'application/vnd.ms-powerpoint',
			'application/vnd.openxmlformats-officedocument.presentationml.presentation',
		],
		maxBytes: 100 * MB,
	},
	video: {
		label: 'MP4 or 3GPP',
		extensions: ['mp4', '3gp', '3gpp'],
		contentTypes: ['video/mp4', 'video/3gpp'],
		maxBytes: 16 * MB,
	},
};

export const ARTICLE: Record<MediaKind, string> = { image: 'an image', document: 'a document', video: 'a video' };

/** The rule a media link to a private host breaks, with how to allow it. */
export function privateHostRule(problem: string): string {
	return `must point to a public host: ${problem} (turn on the option "Allow Private Media Hosts" to allow it)`;
}

export function orList(values: string[]): string {
	return values.length > 1 ? `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}` : values.join('');
}

export function formatBytes(bytes: number): string {
	return bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
