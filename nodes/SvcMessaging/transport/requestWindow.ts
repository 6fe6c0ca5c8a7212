import type { PlanLimits } from './service';

/**
 * How many requests one execution keeps waiting in (or passing through) a key's shared limiter:
 * half a second of the plan's rate. Enough to keep the limiter busy while a call takes up to about
 * that long to answer, and small enough that concurrent executions on the key take turns soon
 * even when their requests share a lane, instead of one execution's whole list going first.
 */
export function requestWindow(limits: PlanLimits): number {
	return Math.max(2, Math.ceil(limits.requestsPerSecond / 2));
}
