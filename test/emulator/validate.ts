/** Field validation: type problems are 400 BAD_REQUEST naming the field. */
import { badRequest } from './http';

export type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function objectBody(body: unknown): Obj {
	if (!isObject(body)) throw badRequest('Request body must be a JSON object');
	return body;
}

/** A present, non-empty string. */
export function reqString(obj: Obj, field: string, name = field): string {
	const value = obj[field];
	if (value === undefined || value === null) throw badRequest(`${name} is required`);
	if (typeof value !== 'string') throw badRequest(`${name} must be a string`);
	if (value.length === 0) throw badRequest(`${name} must not be empty`);
	return value;
}

/** A string when present; null and undefined mean absent. */
export function optString(obj: Obj, field: string, name = field): string | undefined {
	const value = obj[field];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string') throw badRequest(`${name} must be a string`);
	return value;
}

export function optHttpUrl(obj: Obj, field: string): string | undefined {
	const value = optString(obj, field);
	if (value === undefined) return undefined;
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw badRequest(`${field} must be an absolute http(s) URL`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(`${field} must be an http(s) URL`);
	return value;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** An ISO 8601 date-time in the future of `now`, when present. */
export function optFutureDateTime(obj: Obj, field: string, now: number): number | undefined {
	const value = optString(obj, field);
	if (value === undefined) return undefined;
	const ms = ISO_DATE_TIME.test(value) ? Date.parse(value) : NaN;
	if (Number.isNaN(ms)) throw badRequest(`${field} must be an ISO 8601 date-time`);
	if (ms <= now) throw badRequest(`${field} must be in the future`);
	return ms;
}

export function optStringArray(obj: Obj, field: string): string[] | undefined {
	const value = obj[field];
	if (value === undefined || value === null) return undefined;
	if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
		throw badRequest(`${field} must be an array of strings`);
	}
	return value as string[];
}

export function optIntArray(obj: Obj, field: string): number[] | undefined {
	const value = obj[field];
	if (value === undefined || value === null) return undefined;
	if (!Array.isArray(value) || value.some((v) => !Number.isInteger(v))) {
		throw badRequest(`${field} must be an array of integers`);
	}
	return value as number[];
}

export function optBoolean(obj: Obj, field: string): boolean | undefined {
	const value = obj[field];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'boolean') throw badRequest(`${field} must be a boolean`);
	return value;
}

export function optNumber(obj: Obj, field: string, min = -Infinity): number | undefined {
	const value = obj[field];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
		throw badRequest(`${field} must be a number${min > -Infinity ? ` >= ${min}` : ''}`);
	}
	return value;
}

/** An integer query parameter within [min, max], or the default when absent. */
export function intQuery(query: URLSearchParams, name: string, def: number, min: number, max: number): number {
	const raw = query.get(name);
	if (raw === null || raw === '') return def;
	const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
	if (!Number.isInteger(n) || n < min || n > max) {
		throw badRequest(`${name} must be an integer between ${min} and ${max}`);
	}
	return n;
}

/** `{ data, total, page, limit, totalPages }` slice of an already ordered list. */
export function paginate<T>(items: T[], page: number, limit: number) {
	return {
		data: items.slice((page - 1) * limit, page * limit),
		total: items.length,
		page,
		limit,
		totalPages: Math.ceil(items.length / limit),
	};
}
