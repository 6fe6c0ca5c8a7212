/**
 * Other n8n processes on one API key, as the shared-limit tests stand them in: isolated copies of
 * the limiter module (their own Redis connections and module state, as in another worker), each
 * sending real HTTP to the emulator. And the emulator's own count of what arrived.
 */
import { request } from 'undici';

import type { RunningEmulator } from '../emulator';
import * as mainLimiter from '../../nodes/SvcMessaging/transport/limiter';
import type { RateReading } from '../../nodes/SvcMessaging/transport/rateReading';
import type { SharedLimitConfig } from '../../nodes/SvcMessaging/transport/redis';

export type LimiterModule = typeof mainLimiter;
export interface PlanLimits {
	requestsPerSecond: number;
	recipientsPerCall: number;
}

/** Copies of the limiter as other processes have them; every limiter is closed after each test. */
export function useLimiterProcesses(): { otherProcess(): LimiterModule } {
	const others: LimiterModule[] = [];
	afterEach(async () => {
		await mainLimiter.closeSharedLimiters();
		for (const other of others.splice(0)) await other.closeSharedLimiters();
	});
	return {
		otherProcess() {
			let copy: LimiterModule | undefined;
			jest.isolateModules(() => {
				copy = require('../../nodes/SvcMessaging/transport/limiter') as LimiterModule;
			});
			others.push(copy!);
			return copy!;
		},
	};
}

export const phones = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(from + i).padStart(8, '0')}` }));

/** `n` single sends by another process through its copy of the limiter; a 429 pauses the key and is tried again (20 times at most). */
export async function sendFromOther(
	emu: RunningEmulator,
	other: LimiterModule,
	config: SharedLimitConfig | undefined,
	from: number,
	n: number,
	key: string,
	limits: PlanLimits,
	reading?: RateReading,
) {
	const limiter = await other.limiterFor(emu.url, key, limits, config, reading);
	return await Promise.all(
		phones(from, n).map(async ({ phone }) => {
			for (let tries = 0; tries < 20; tries++) {
				const status = await limiter.schedule(async () => {
					const res = await request(`${emu.url}/api/sms/send-api`, {
						method: 'POST',
						headers: { 'x-api-key': key, 'content-type': 'application/json' },
						body: JSON.stringify({ phoneNumber: phone, message: 'From another process' }),
					});
					await res.body.text();
					if (res.statusCode === 429) limiter.penalize(Number(res.headers['retry-after'] ?? 1) * 1000);
					return res.statusCode;
				}, 'other');
				if (status !== 429) return status;
			}
			return 429;
		}),
	);
}

/** The SMS send requests the emulator received. */
export const sendsAt = (emu: RunningEmulator) => emu.control.requests().filter((r) => r.method === 'POST' && r.path === '/api/sms/send-api');

/** The most requests that ARRIVED in any 1,000 ms (the service's sliding window). */
export function mostInAnySecond(times: number[]): number {
	const arrivals = [...times].sort((a, b) => a - b);
	let most = 0;
	for (let first = 0, i = 0; i < arrivals.length; i++) {
		while (arrivals[i] - arrivals[first] >= 1000) first++;
		most = Math.max(most, i - first + 1);
	}
	return most;
}
