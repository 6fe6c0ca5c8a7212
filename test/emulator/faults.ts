/** Injected faults: the next matching API requests get a 429, a 5xx, a dropped socket or a delay. */
import { FAULT_DEFAULTS } from './assumptions';
import { badRequest } from './http';
import type { EmulatorState, Fault, FaultKind } from './state';
import { isObject, optNumber, optString } from './validate';

const KINDS: FaultKind[] = ['rate-limit', 'server-error', 'drop-before-processing', 'drop-after-processing', 'slow'];

export interface FaultInput {
	kind: FaultKind;
	/** only requests with this method (default: any) */
	method?: string;
	/** only paths starting with this (default: /api/) */
	pathPrefix?: string;
	/** how many matching requests it hits (default 1) */
	count?: number;
	/** server-error status (default 500) */
	status?: number;
	/** slow: real milliseconds before normal processing (default 2000; not scaled) */
	delayMs?: number;
	/** rate-limit: Retry-After seconds (default 1) */
	retryAfterSeconds?: number;
}

export function addFault(state: EmulatorState, raw: unknown): Fault {
	if (!isObject(raw)) throw badRequest('fault must be an object');
	const kind = optString(raw, 'kind') as FaultKind | undefined;
	if (!kind || !KINDS.includes(kind)) throw badRequest(`kind must be one of ${KINDS.join(', ')}`);
	const count = optNumber(raw, 'count', 1) ?? FAULT_DEFAULTS.count;
	const status = optNumber(raw, 'status', 500) ?? FAULT_DEFAULTS.status;
	if (!Number.isInteger(count) || !Number.isInteger(status) || status > 599) {
		throw badRequest('count must be a positive integer and status an integer from 500 to 599');
	}
	const fault: Fault = {
		id: state.nextFaultId++,
		kind,
		method: optString(raw, 'method')?.toUpperCase() ?? null,
		pathPrefix: optString(raw, 'pathPrefix') ?? '/api/',
		remaining: count,
		status,
		delayMs: optNumber(raw, 'delayMs', 0) ?? FAULT_DEFAULTS.delayMs,
		retryAfterSeconds: optNumber(raw, 'retryAfterSeconds', 0) ?? FAULT_DEFAULTS.retryAfterSeconds,
		hits: 0,
	};
	state.faults.push(fault);
	return fault;
}

/** The first fault matching the request, used up by one; exhausted faults are removed. */
export function takeFault(state: EmulatorState, method: string, path: string): Fault | null {
	const fault = state.faults.find((f) => (f.method === null || f.method === method) && path.startsWith(f.pathPrefix));
	if (!fault) return null;
	fault.remaining--;
	fault.hits++;
	if (fault.remaining <= 0) state.faults.splice(state.faults.indexOf(fault), 1);
	return { ...fault };
}
