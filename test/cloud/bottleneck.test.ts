/**
 * The Cloud edition's limiter engine (cloud/platform/bottleneck.ts) against Bottleneck 2.19.5 (the
 * self-hosted engine): the same jobs give the same order, spacing, concurrency, reservoir and stop,
 * and the engine keeps no pending sleep per queued job (one scheduler loop).
 */
import Bottleneck from 'bottleneck';

import CloudBottleneck from '../../cloud/platform/bottleneck';

type Engine = typeof Bottleneck | typeof CloudBottleneck;
const ENGINES: Array<[string, Engine]> = [
	['Bottleneck', Bottleneck],
	['the Cloud engine', CloudBottleneck],
];

/** The engine's sleeps (n8n-workflow's, counted): how many are pending at once. */
const sleeps = { pending: 0, most: 0 };
jest.mock('n8n-workflow', () => {
	const actual = jest.requireActual('n8n-workflow');
	return {
		...actual,
		sleep: async (ms: number) => {
			sleeps.most = Math.max(sleeps.most, ++sleeps.pending);
			await actual.sleep(ms);
			sleeps.pending--;
		},
	};
});

const delay = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** Schedules `jobs` (priority, duration) on a new limiter; answers each job's start, in start order. */
async function run(Engine: Engine, options: Bottleneck.ConstructorOptions, jobs: Array<{ priority?: number; ms?: number }>) {
	const limiter = new Engine(options as never) as Bottleneck;
	const starts: Array<{ job: number; at: number; concurrent: number }> = [];
	let concurrent = 0;
	const scheduledAt = Date.now();
	const results = jobs.map(({ priority, ms = 0 }, job) =>
		limiter.schedule({ priority }, async () => {
			starts.push({ job, at: Date.now(), concurrent: ++concurrent });
			await delay(ms);
			concurrent--;
			return job;
		}),
	);
	expect(await Promise.all(results)).toEqual(jobs.map((_, job) => job));
	return Object.assign(starts, { scheduledAt });
}

describe.each(ENGINES)('%s', (_name, Engine) => {
	it('FIFO within a priority, a lower priority number first', async () => {
		// The first job takes the only slot; the rest queue behind it and start by priority, then order.
		const jobs = [{ ms: 30 }, { priority: 7 }, { priority: 3 }, { priority: 7 }, {}, { priority: 3 }, {}];
		const starts = await run(Engine, { maxConcurrent: 1 }, jobs);
		expect(starts.map((s) => s.job)).toEqual([0, 2, 5, 4, 6, 1, 3]);
	});

	it('starts are planned minTime apart: never k + 1 starts within k × minTime', async () => {
		const starts = await run(Engine, { minTime: 40 }, Array.from({ length: 8 }, () => ({})));
		expect(starts.map((s) => s.job)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
		// Starts are planned from the first one's registration (after `scheduledAt`): a start made late
		// by its timer is caught up by the next; timers may round down by a millisecond.
		for (let i = 1; i < starts.length; i++) expect(starts[i].at - starts.scheduledAt).toBeGreaterThanOrEqual(40 * i - 1);
	});

	it('at most maxConcurrent jobs run at once, and that many do', async () => {
		const starts = await run(Engine, { maxConcurrent: 3 }, Array.from({ length: 12 }, () => ({ ms: 20 })));
		expect(Math.max(...starts.map((s) => s.concurrent))).toBe(3);
	});

	it('a reservoir starts that many jobs; 0 holds the rest until it is lifted', async () => {
		const limiter = new Engine({ reservoir: 3 }) as Bottleneck;
		const started: number[] = [];
		const jobs = Array.from({ length: 6 }, (_, job) => limiter.schedule(async () => void started.push(job)));
		await delay(100);
		expect(started).toEqual([0, 1, 2]);
		expect(await limiter.currentReservoir()).toBe(0);
		await (limiter.updateSettings({ reservoir: 1 }) as unknown as Promise<unknown>);
		await delay(50);
		expect(started).toEqual([0, 1, 2, 3]);
		await (limiter.updateSettings({ reservoir: null }) as unknown as Promise<unknown>);
		await Promise.all(jobs);
		expect(started).toEqual([0, 1, 2, 3, 4, 5]);
		expect(await limiter.currentReservoir()).toBeNull();
	});

	it('incrementReservoir adds to the reservoir and starts what it allows', async () => {
		const limiter = new Engine({ reservoir: 0 }) as Bottleneck;
		const started: number[] = [];
		const jobs = [0, 1, 2].map((job) => limiter.schedule(async () => void started.push(job)));
		await delay(50);
		expect(started).toEqual([]);
		expect(await limiter.incrementReservoir(2)).toBe(2);
		await delay(50);
		expect(started).toEqual([0, 1]);
		await limiter.incrementReservoir(1);
		await Promise.all(jobs);
		expect(await limiter.currentReservoir()).toBe(0);
	});

	it('a job that throws rejects its own promise only', async () => {
		const limiter = new Engine({ maxConcurrent: 1 }) as Bottleneck;
		const failing = limiter.schedule(async () => {
			throw new Error('boom');
		});
		await expect(failing).rejects.toThrow('boom');
		await expect(limiter.schedule(async () => 'next')).resolves.toBe('next');
	});

	it('stop drops the waiting jobs, lets the executing one finish and refuses new ones', async () => {
		const limiter = new Engine({ maxConcurrent: 1 }) as Bottleneck;
		let finished = false;
		const executing = limiter.schedule(async () => {
			await delay(50);
			finished = true;
		});
		const waiting = limiter.schedule(async () => 'never').catch((error: Error) => error);
		await delay(10);
		await limiter.stop();
		await expect(executing).resolves.toBeUndefined();
		expect(finished).toBe(true);
		expect(await waiting).toEqual(expect.objectContaining({ message: 'This limiter has been stopped.' }));
		await expect(limiter.schedule(async () => 'late')).rejects.toThrow('This limiter has been stopped and cannot accept new jobs.');
	});

	it('stop with dropWaitingJobs false runs the waiting jobs first', async () => {
		const limiter = new Engine({ maxConcurrent: 1 }) as Bottleneck;
		const done: number[] = [];
		const jobs = [0, 1, 2].map((job) => limiter.schedule(async () => void (await delay(10), done.push(job))));
		await delay(5);
		await limiter.stop({ dropWaitingJobs: false });
		await Promise.all(jobs);
		expect(done).toEqual([0, 1, 2]);
	});
});

describe('the Cloud engine', () => {
	it('keeps one pending sleep at most, however many jobs wait (no loop or timer per job), none once idle', async () => {
		const limiter = new CloudBottleneck({ minTime: 20, maxConcurrent: 2 });
		Object.assign(sleeps, { pending: 0, most: 0 });
		const jobs = Array.from({ length: 5_000 }, () => limiter.schedule(async () => undefined));
		await delay(100);
		expect(limiter.counts().QUEUED).toBeGreaterThan(4_900);
		await limiter.stop();
		await Promise.allSettled(jobs);
		await delay(30);
		expect(sleeps).toEqual({ pending: 0, most: 1 });
	});

	it('refuses a clustered construction and a Redis connection: no shared limit on n8n Cloud', () => {
		expect(() => new CloudBottleneck({ id: 'x', datastore: 'ioredis', clearDatastore: false })).toThrow('No shared rate limit on n8n Cloud');
		expect(() => new CloudBottleneck.IORedisConnection({})).toThrow('No shared rate limit on n8n Cloud');
	});

	it('refuses the options it does not implement rather than ignoring them', () => {
		expect(() => new CloudBottleneck({ highWater: 3 })).toThrow('highWater');
		expect(() => new CloudBottleneck({ reservoirRefreshInterval: 1000 })).toThrow('reservoirRefreshInterval');
	});
});
