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
