import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { EDITION } from '../platform/edition';
import { SERVICE } from '../transport/service';
import { TRIGGER_LIMITS } from './limits';
import { addBlacklisted, isBlacklisted } from './blacklisted';
import type { DeliveryEvent } from './events';
import { sharedLimitOf } from '../transport/redis';
import { claimReport, hasSeen, isFromTheFuture, isStale, remember } from './ledger';
import { boundedRawPayload, flattenReport } from './output';
import { parseDeliveryReport } from './payload';
import type { TriggerOptions } from './properties';
import { DEFAULT_MAX_BODY_KB } from './properties';
import { hasValidSignature } from './signature';

const CREDENTIAL_TYPE = EDITION.apiKeyCredential.name;

/**
 * The API-key credential, or undefined when none is selected. A selected credential that cannot
 * be read makes the call fail (n8n answers 500 and the service retries) rather than letting
 * unsigned calls in.
 */
async function credentialsOf(context: IWebhookFunctions): Promise<IDataObject | undefined> {
	if (!context.getNode().credentials?.[CREDENTIAL_TYPE]) return undefined;
	return (await context.getCredentials(CREDENTIAL_TYPE)) as IDataObject;
}

/** The secret to check signatures with, or '' for none (no credential, or an empty Webhook Secret). */
function webhookSecret(credentials: IDataObject | undefined): string {
	return typeof credentials?.webhookSecret === 'string' ? credentials.webhookSecret : '';
}

/** The exact bytes received: the signature is over them, and they are parsed here, not by n8n. */
export async function rawBodyOf(context: IWebhookFunctions): Promise<Buffer | undefined> {
	const req = context.getRequestObject();
	if (!Buffer.isBuffer(req.rawBody) && typeof req.readRawBody === 'function') {
		await req.readRawBody();
	}
	return Buffer.isBuffer(req.rawBody) ? req.rawBody : undefined;
}

/** Answers at once with a status of our own and starts no execution. */
function reject(context: IWebhookFunctions, statusCode: 400 | 401 | 503, error: string): IWebhookResponseData {
	context.getResponseObject().status(statusCode).json({ received: false, error });
	return { noWebhookResponse: true };
}

/** 200 without an execution (n8n sends `webhookResponse` when there is no workflowData). */
function acknowledge(ignored: string): IWebhookResponseData {
	return { webhookResponse: { received: true, ignored } };
}

/**
 * Handles one delivery-report call: size, signature, JSON, schema, a timestamp ahead of the clock,
 * event filter, replay window and duplicates, in that order. Only a new report of a selected event starts an execution; the service gets a 200
 * for everything it should not send again and a 400/401 for what it must not.
 */
export async function handleDeliveryReport(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const maxBytes = Math.max(1, options.maxBodySizeKb ?? DEFAULT_MAX_BODY_KB) * 1024;

	const rawBody = await rawBodyOf(this);
	if (rawBody === undefined || rawBody.length === 0) {
		return reject(this, 400, 'The body is empty');
	}
	if (rawBody.length > maxBytes) {
		return reject(this, 400, `The body is larger than ${maxBytes} bytes`);
	}

	const credentials = await credentialsOf(this);
	const secret = webhookSecret(credentials);
	if (secret !== '') {
		const signature = this.getHeaderData()[SERVICE.signatureHeader];
		if (!hasValidSignature(rawBody, signature, secret)) {
			return reject(this, 401, 'Missing or invalid signature');
		}
	}

	const parsed = parseDeliveryReport(rawBody);
	if (parsed.kind === 'invalid') return reject(this, 400, parsed.message);
	if (parsed.kind === 'unknownEvent') return acknowledge('event not supported');

	const { report } = parsed;
	if (isFromTheFuture(report, Date.now())) {
		const skew = TRIGGER_LIMITS.maxFutureSkewMs / 60_000;
		return reject(this, 400, `The timestamp ${report.timestamp} is more than ${skew} minutes ahead of this n8n's clock; check the clocks`);
	}
	// Before the event filter and the duplicate check: the number is listed even when the workflow
	// starts on other events, and a report delivered again after a failed write is added then.
	let listed: IDataObject | undefined;
	if (options.addBlacklisted === true && isBlacklisted(report)) {
		const added = await addBlacklisted(report, credentials ? sharedLimitOf(credentials) : undefined).catch((error: unknown) => error as Error);
		if (added instanceof Error) return reject(this, 503, `${added.message}; please retry`);
		listed = added;
	}
	const events = this.getNodeParameter('events', []) as DeliveryEvent[];
	if (!events.includes(report.event)) return acknowledge('event not selected');

	if (options.ignoreDuplicates !== false) {
		// Past the replay window a report is acknowledged and starts nothing, whatever the ledger holds.
		if (isStale(report, Date.now())) return acknowledge('older than the replay window');
		const shared = credentials ? sharedLimitOf(credentials) : undefined;
		if (shared) {
			// One execution across every process that may receive it (queue mode: webhook processes).
			const claimed = await claimReport(this, shared, report).catch((error: unknown) => error as Error);
			if (claimed instanceof Error) return reject(this, 503, `${claimed.message}; please retry`);
			if (!claimed) return acknowledge('duplicate');
		} else {
			const ledger = this.getWorkflowStaticData('node');
			if (hasSeen(ledger, report)) return acknowledge('duplicate');
			remember(ledger, report);
		}
	}

	const item = { ...flattenReport(report, options.includeRawPayload ? boundedRawPayload(parsed.raw, rawBody.length) : undefined), ...listed };
	return {
		webhookResponse: { received: true },
		workflowData: [this.helpers.returnJsonArray([item])],
	};
}
