/**
 * What the bench worker measures memory with: the RSS high-water mark, the V8 heap's sampled peak,
 * and the live heap (after a full GC) sampled while an execution runs.
 */
import { readFileSync, writeFileSync } from 'fs';
import { getHeapStatistics } from 'v8';

export const mb = (bytes: number) => bytes / 1024 / 1024;

/**
 * Peak RSS without sampling (a 5 ms sampler costs ~20 ms CPU a second, more than the node): Linux
 * keeps the high-water mark (VmHWM) and resets it to the current RSS on `5` > /proc/self/clear_refs.
 * Elsewhere the process's maxRSS, which only shows a peak above every earlier one.
 */
export function resetPeakRss(): boolean {
	try {
		writeFileSync('/proc/self/clear_refs', '5');
		return true;
	} catch {
		return false;
	}
}

export function peakRss(resettable: boolean): number {
	if (resettable) {
		const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
		if (match) return Number(match[1]) * 1024;
	}
	return process.resourceUsage().maxRSS * 1024;
}

/**
 * The V8 heap's peak while the execution runs: sampled every 2 ms between the node's awaits (a
 * synchronous stretch in between is seen at its end), so a lower bound of the true peak.
 */
export function sampleHeapPeak(): { stop: () => number } {
	let peak = 0;
	const sample = () => (peak = Math.max(peak, getHeapStatistics().used_heap_size));
	const timer = setInterval(sample, 2);
	return {
		stop: () => {
			clearInterval(timer);
			sample();
			return peak;
		},
	};
}

/**
 * The live heap (after a full GC), every `everyMs` while the execution runs: its highest value, and
 * the CPU those full GCs took (not the node's: the row's CPU figure leaves it out).
 */
export function sampleLiveHeap(everyMs: number): { stop: () => { peak: number; samples: number; gcCpuMs: number } } {
	let peak = 0;
	let samples = 0;
	let gcCpuMs = 0;
	const timer = setInterval(() => {
		const before = process.cpuUsage();
		global.gc?.();
		const spent = process.cpuUsage(before);
		gcCpuMs += (spent.user + spent.system) / 1000;
		peak = Math.max(peak, process.memoryUsage().heapUsed);
		samples++;
	}, everyMs);
	return {
		stop: () => {
			clearInterval(timer);
			return { peak, samples, gcCpuMs };
		},
	};
}
