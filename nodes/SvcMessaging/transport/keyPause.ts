import type Bottleneck from '../platform/bottleneck';
import { sleep } from 'n8n-workflow';

import { applySettings } from './sharedLimit';

/** Where a key's 429 pause lives: this process's memory, or Redis for a shared limit (sharedLimit.ts). */
export interface PauseStore {
	/** Holds the key's requests until `waitMs` from now (extends, never shortens). */
	extendPause(waitMs: number): Promise<void>;
	/** Milliseconds left of the key's pause, 0 when none. */
	pauseRemainingMs(): Promise<number>;
}

export function localPause(): PauseStore {
	let pausedUntil = 0;
	return {
		async extendPause(waitMs) {
			pausedUntil = Math.max(pausedUntil, Date.now() + waitMs);
		},
		async pauseRemainingMs() {
			return Math.max(0, pausedUntil - Date.now());
		},
	};
}

/** Lifts the key's pause (the Bottleneck's empty reservoir) once the pause's time is over. */
export async function liftPauseWhenDue(bottleneck: Bottleneck, pause: PauseStore): Promise<void> {
	for (let left = await pause.pauseRemainingMs(); left > 0; left = await pause.pauseRemainingMs()) await sleep(left);
	await applySettings(bottleneck, { reservoir: null });
}

/** How often a process with waiting requests checks that a shared pause was not left behind. */
const STUCK_PAUSE_CHECK_MS = 2_000;

/**
 * The process that set a shared pause lifts it; should it stop first, a waiting process does: the
 * returned check runs (once at a time) while `waiting()`, lifting a pause whose time is over.
 */
export function stuckPauseCheck(bottleneck: Bottleneck, pause: PauseStore, waiting: () => boolean): () => Promise<void> {
	let checking = false;
	return async () => {
		if (checking) return;
		checking = true;
		try {
			while (waiting()) {
				await sleep(STUCK_PAUSE_CHECK_MS);
				if ((await bottleneck.currentReservoir()) === 0 && (await pause.pauseRemainingMs()) === 0) await applySettings(bottleneck, { reservoir: null });
			}
		} catch {
			// Redis failures reach cluster.onFailure.
		} finally {
			checking = false;
		}
	};
}
