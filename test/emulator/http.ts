/** Replies, the error envelope, and small helpers shared by every area. */
import { randomBytes } from 'crypto';

export interface Reply {
	status: number;
	body: unknown;
	headers?: Record<string, string>;
}

export class ApiError extends Error {
	constructor(
		readonly statusCode: number,
		readonly code: string,
		message: string,
		readonly details?: unknown,
	) {
		super(message);
	}
}

export const badRequest = (message: string) => new ApiError(400, 'BAD_REQUEST', message);
export const unauthorized = (message: string) => new ApiError(401, 'UNAUTHORIZED', message);
export const notFound = (message: string) => new ApiError(404, 'NOT_FOUND', message);
export const unprocessable = (code: string, message: string, details?: unknown) =>
	new ApiError(422, code, message, details);

/** `{ success: true, data }` */
export function ok(data: unknown, status = 200): Reply {
	return { status, body: { success: true, data } };
}

/** A bare object (campaign endpoints). */
export function bare(body: unknown, status = 200): Reply {
	return { status, body };
}

export function errorReply(error: ApiError): Reply {
	const body: { code: string; message: string; statusCode: number; details?: unknown } = {
		code: error.code,
		message: error.message,
		statusCode: error.statusCode,
	};
	if (error.details !== undefined) body.details = error.details;
	return { status: error.statusCode, body: { success: false, error: body } };
}

export function iso(ms: number | null): string | null {
	return ms === null ? null : new Date(Math.floor(ms)).toISOString();
}

export function newId(prefix: string): string {
	return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** Unicode code points ("characters" in the spec). */
export function codePoints(text: string): number {
	let n = 0;
	for (const _ of text) n++;
	return n;
}
