/**
 * The emulator keeps only its last 10,000 requests (MAX_REQUEST_LOG), and an SMS Send of 20,000
 * items makes 20,000: read at the end, the log would count half the posts and judge the rate on the
 * second half. So while a row that may post more than half that runs, its log is read every 20 s (at
 * 100 requests/s, 2,000 new ones) and the records are gathered by their id; the figures come from
 * every post of the row. Smaller rows read it once, at the end, and the emulator answers no read
 * while they run.
 */
import { setTimeout as wait } from 'timers/promises';

import { call, SEND_PATH, type LoggedRequest } from './lib';

const READ_EVERY_MS = 20_000;
const READ_WHILE_RUNNING_ABOVE = 5_000;

type Logged = LoggedRequest & { id: number };

async function readLog(url: string, into: Map<number, Logged>) {
	const { body } = await call(url, 'GET', '/__emulator/requests');
	for (const record of body!.data as Logged[]) into.set(record.id, record);
}

/** Runs `work`, which should make `expectedPosts` SMS posts, and returns its result and every SMS post of `key`. */
export async function withSendPosts<T>(url: string, key: string, expectedPosts: number, work: () => Promise<T>): Promise<{ result: T; posts: LoggedRequest[] }> {
	const seen = new Map<number, Logged>();
	let done = expectedPosts <= READ_WHILE_RUNNING_ABOVE;
	const reading = (async () => {
		// One read per 20 s for as long as the row runs, no longer.
		while (!done) {
			for (let waited = 0; waited < READ_EVERY_MS && !done; waited += 500) await wait(500);
			if (!done) await readLog(url, seen);
		}
	})();
	let result: T;
	try {
		result = await work();
	} finally {
		done = true;
		await reading;
	}
	await readLog(url, seen);
	const last4 = key.slice(-4);
	const posts = [...seen.values()].filter((r) => r.keyLast4 === last4 && r.method === 'POST' && r.path === SEND_PATH);
	return { result, posts: posts.sort((a, b) => a.id - b.id) };
}
