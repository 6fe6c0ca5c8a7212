// The tuning of "Send and Wait for Delivery" (this package's own choices; the service's facts stay in transport/service.ts).

/**
 * "Send and Wait for Delivery". The message lookup (GET /api/sms/messages/:id) has no failure
 * reason in the spec, so in polling mode a FAILED message has none; delivery reports carry it.
 */
export const DELIVERY_WAIT = {
	/** the suffix of the execution's resume URL that the service posts the reports to */
	resumePath: 'svc-delivery-report',
	timeoutSeconds: { default: 120, min: 5, maxPolling: 15 * 60, maxWebhook: 24 * 3600 },
	pollIntervalSeconds: { default: 5, min: 1, max: 300 },
	pollBackoff: 1.5,
	maxPollIntervalMs: 60_000,
	/** n8n's own timer resumes the execution this long after the timeout if the node's call did not */
	backstopMs: 60_000,
	/**
	 * Delivery Report mode: a message a lookup found FAILED waits this long for its report (which
	 * carries the reason; the service retries a report after 30 s) before it is final without one.
	 */
	failureReasonGraceMs: 45_000,
	/** a waiting state resumed by one report is not resumed by another for this long (deliveryReportWebhook) */
	resumeClaimMs: 30_000,
	/** header of the node's own call to the resume URL at the timeout: HMAC of the wait, keyed with the wait's own secret */
	deadlineHeader: 'x-svc-wait-deadline',
	/**
	 * query parameter of the report URL (webhookUrl) sent with each message: HMAC of the execution,
	 * keyed with a random secret of the wait (not the API key, which may be replaced while it waits).
	 * A call to the resume URL without it gets a 401 and changes nothing.
	 */
	tokenParameter: 'svcWait',
	/** the node's own call at the wake time, while it meets the execution running (a report being handled): this many tries, this far apart */
	deadlineAttempts: 10,
	deadlineRetryMs: 3_000,
	/** at most this many resume claims and scheduled wake-up calls are remembered in one process (oldest dropped first) */
	maxTrackedWaits: 10_000,
} as const;
