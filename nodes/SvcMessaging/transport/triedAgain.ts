import { sleep } from 'n8n-workflow';

/** Runs `call`, and again after each of `delaysMs` while it fails; the last try's error is thrown. */
export async function triedAgain<T>(delaysMs: readonly number[], call: () => Promise<T>): Promise<T> {
	for (const delay of delaysMs) {
		try {
			return await call();
		} catch {
			await sleep(delay);
		}
	}
	return await call();
}
