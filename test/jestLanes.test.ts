/**
 * npm test's lanes (jest.config.js, test/helpers/laneRunner.js): the files that start processes run
 * one at a time beside the others. A file that starts a Redis server, a Redis Cluster, PostgreSQL,
 * the emulator's process or a child process (itself or through a module of its own it imports) must
 * be in the `processes` project, or it would meet the others at once; and the list names only such
 * files, so that it cannot keep a file out of the parallel lane for nothing.
 */
import { existsSync, readFileSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

const ROOT = dirname(__dirname);
const config = require(join(ROOT, 'jest.config.js'));

/** Calls that start a process: the helpers that start services, and child processes. */
const STARTS = /\b(useRedis|useRedisCluster|startRedis|startRedisCluster|startTlsRedis|startPostgres|startEmulatorProcess|spawn|fork)\(|ts-node\/(register|dist\/bin)/;
/** The helpers that define those starters: a call of theirs is seen where it is made. */
const STARTERS = ['services.ts', 'redisFixture.ts', 'redisCluster.ts', 'redisTls.ts', 'emulatorProcess.ts', 'processGroup.ts'].map((f) => join(ROOT, 'test', 'helpers', f));

const projectNamed = (name: string) => config.projects.find((p: { displayName: string }) => p.displayName === name);

/** The file and the files of test/ it imports, followed through their own relative imports. */
function withLocalImports(file: string, seen = new Set<string>()): Set<string> {
	if (seen.has(file) || STARTERS.includes(file)) return seen;
	seen.add(file);
	for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
		const path = resolve(dirname(file), spec);
		const found = [`${path}.ts`, join(path, 'index.ts')].find(existsSync);
		if (found && found.startsWith(join(ROOT, 'test'))) withLocalImports(found, seen);
	}
	return seen;
}

const startsProcesses = (file: string) => [...withLocalImports(file)].some((f) => STARTS.test(readFileSync(f, 'utf8')));

function testFiles(): string[] {
	const { execFileSync } = require('child_process') as typeof import('child_process');
	const listed = execFileSync(process.execPath, [join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--listTests'], { cwd: ROOT, encoding: 'utf8' });
	return listed.split('\n').filter((line) => line.endsWith('.test.ts'));
}

describe('npm test lanes', () => {
	const processes: string[] = projectNamed('processes').testMatch.map((pattern: string) => pattern.replace('<rootDir>', ROOT));

	it('runs in three projects on the lane runner, with more than one worker', () => {
		expect(config.projects.map((p: { displayName: string }) => p.displayName)).toEqual(['unit', 'integration', 'processes']);
		for (const project of config.projects) expect(project.runner).toBe('<rootDir>/test/helpers/laneRunner.js');
		expect(config.maxWorkers).toBeGreaterThan(1);
	});

	it('puts every file that starts a process in the processes project, and only those', () => {
		const files = testFiles();
		expect(files.length).toBeGreaterThan(100);
		for (const file of processes) expect(files).toContain(file);
		const starting = files.filter(startsProcesses).map((f) => relative(ROOT, f));
		expect(starting.sort()).toEqual(processes.map((f) => relative(ROOT, f)).sort());
	});
});
