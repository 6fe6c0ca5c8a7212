import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorCategory, errorCodeOf, INVALID_INPUT, mayHaveBeenProcessed, withErrorCode } from '../transport/errors';

/**
 * Whether this run is a call of "SVC Messaging Tool" by an AI Agent, the Tool Executor or the MCP
 * Server Trigger (rather than a step of a workflow).
 *
 * n8n builds the tool from this node as a separate node type whose name is the node's name plus
 * `Tool` (`n8n-nodes-svc-messaging.svcMessagingTool`; NodeTypes.getByNameAndVersion and
 * LoadNodesAndCredentials.convertNodeToAiTool in n8n 1.123 and 2.41), and a tool node in a
 * workflow has that type in every way it is run: inside a SupplyDataContext (Agent V1/V2, Tool
 * Executor, MCP Server Trigger) or as a node of the execution that the Agent V3 engine runs for a
 * tool call (an ExecuteContext). n8n 2.x also has `isToolExecution()`, but it is true only in the
 * SupplyDataContext (ExecuteContext answers false even for the engine's tool calls) and is missing
 * in 1.x: it is consulted, the type decides.
 */
export function isToolCall(ctx: IExecuteFunctions): boolean {
	const isToolExecution = (ctx as { isToolExecution?: () => boolean }).isToolExecution;
	if (typeof isToolExecution === 'function' && isToolExecution.call(ctx) === true) return true;
	return ctx.getNode().type.endsWith('Tool');
}

/**
 * Runs the operation as a tool call: a refusal (bad input, the service's error, the message cap)
 * comes back as the tool's result, which the model reads and can act on, instead of an error that
 * fails the Agent's execution (n8n's Agent V3 engine and the Tool Executor stop the workflow on a
 * tool's error). Nothing is sent on bad input: the operations check every input before sending.
 *
 * The result deliberately has no `error` field: n8n's "Retry On Fail" re-runs a node whose first
 * output item has one, and a model should decide what to do, not n8n.
 */
export async function runAsTool(
	ctx: IExecuteFunctions,
	properties: INodeProperties[],
	run: () => Promise<INodeExecutionData[][]>,
): Promise<INodeExecutionData[][]> {
	try {
		refuseWhatAToolCannotDo(ctx);
		const outputs = await run();
		// A tool answers with its first output only; "Send and Wait for Delivery" also has "Not Delivered".
		return outputs.length > 1 ? [outputs.flat()] : outputs;
	} catch (error) {
		return [[{ json: toolRefusal(ctx, properties, error), pairedItem: { item: 0 } }]];
	}
}

/**
 * A tool call runs inside its caller (or a webhook request): it cannot pause the execution, so
 * "Send and Wait for Delivery" waits by polling only. Refused before anything is sent.
 */
function refuseWhatAToolCannotDo(ctx: IExecuteFunctions): void {
	const { resource, operation } = ctx.getNode().parameters;
	if (resource === 'sms' && operation === 'sendAndWaitForDelivery' && ctx.getNodeParameter('waitMode', 0, 'polling') === 'webhook') {
		const error = new NodeOperationError(
			ctx.getNode(),
			'Item 0: "Wait Using" must be Polling when SVC Messaging runs as a tool: a tool call cannot pause for delivery reports',
		);
		throw withErrorCode(error, INVALID_INPUT);
	}
}


/** Service error codes → the field (label in the form) they are about. */
const FIELD_OF_CODE: Record<string, string> = {
	INVALID_PHONE_NUMBER: 'Phone Number',
	MESSAGE_TOO_LONG: 'Message',
	INVALID_SENDER_ID: 'Sender ID',
	INVALID_MEDIA_URL: 'Media Link',
	CHAT_OPT_IN_REQUIRED: 'Phone Number',
	INVALID_TEMPLATE: 'Template',
};

/** What a NOT_FOUND is about, per resource (SMS lookups: per operation). */
const NOT_FOUND_FIELD: Record<string, string> = {
	'sms.getMessage': 'Message ID',
	'sms.getBatch': 'Batch ID',
	campaign: 'Campaign',
	chatTemplate: 'Template',
};

interface ErrorLike {
	message?: string;
	description?: string | null;
	context?: IDataObject;
}

/** What a model should do about a refusal of each category it cannot fix by changing an argument. */
const CATEGORY_ADVICE: Partial<Record<string, string>> = {
	AUTH_FAILED: 'Nothing was sent. The credential in n8n is refused: do not call the tool again; tell the user to fix the credential.',
	RATE_LIMITED: 'Nothing was sent. The service is rate limiting: calling the tool again later may work.',
	SERVICE_UNAVAILABLE: 'Nothing was sent. The service is unavailable right now: calling the tool again later may work.',
	REDIS_UNAVAILABLE: "Nothing was sent. n8n's Redis (the shared rate limit) cannot be reached: calling the tool again later may work; tell the user if it persists.",
	INSUFFICIENT_CREDITS: 'Do not call the tool again until the account has been topped up; tell the user.',
};

/**
 * The tool result of a refused call: what went wrong (`errorCode`, and its `category` with whether
 * `retryable` — from codes set where the errors are made), which argument, how to fix it.
 */
export function toolRefusal(ctx: IExecuteFunctions, properties: INodeProperties[], error: unknown): IDataObject {
	const e = (error ?? {}) as ErrorLike;
	const errorCode = errorCodeOf(error) ?? 'UNEXPECTED_ERROR';
	const { category, retryable } = errorCategory(error);
	// One tool call is one input item: "Item 0:" means nothing to a model.
	const errorMessage = String(e.message ?? error ?? 'Unknown error').replace(/^Item \d+: /, '');
	const parameters = ctx.getNode().parameters;
	const notFound =
		errorCode === 'NOT_FOUND'
			? (NOT_FOUND_FIELD[`${String(parameters.resource)}.${String(parameters.operation)}`] ?? NOT_FOUND_FIELD[String(parameters.resource)])
			: undefined;
	const label = /^"([^"]+)"/.exec(errorMessage)?.[1] ?? FIELD_OF_CODE[errorCode] ?? notFound ?? /"([^"]+)"/.exec(errorMessage)?.[1];
	const argument = label ? argumentOf(ctx, properties, label) : undefined;

	const fix: string[] = [];
	if (e.description) fix.push(String(e.description));
	if (argument?.fromAI) {
		fix.push(`Call the tool again with a corrected "${argument.fromAI}".`);
	} else if (argument) {
		fix.push(`"${label}" is set in the n8n workflow, not by a tool argument: tell the user it needs fixing there.`);
	}
	if (mayHaveBeenProcessed(e) || category === 'UNKNOWN_OUTCOME') {
		fix.push('Do not call the tool again for this message: it may have been sent. Look its status up first.');
	} else if (category === 'INVALID_INPUT' && errorCode === INVALID_INPUT) {
		fix.push('Nothing was sent.');
	} else if (CATEGORY_ADVICE[category]) {
		fix.push(CATEGORY_ADVICE[category]!);
	}
	return {
		success: false,
		errorCode,
		category,
		retryable,
		errorMessage,
		...(argument ? { field: argument.fromAI ?? label } : {}),
		fix: fix.join(' ') || 'Tell the user what went wrong.',
	};
}

/**
 * The parameter a form label names (for the current resource and operation), and the `$fromAI()`
 * key its value comes from when the model supplies it.
 */
function argumentOf(ctx: IExecuteFunctions, properties: INodeProperties[], label: string): { path: string; fromAI?: string } | undefined {
	const parameters = ctx.getNode().parameters as IDataObject;
	const shown = (p: INodeProperties) => {
		const show = p.displayOptions?.show;
		return (['resource', 'operation'] as const).every((key) => {
			const allowed = show?.[key];
			return !allowed || (allowed as unknown[]).includes(parameters[key]);
		});
	};
	for (const property of properties) {
		if (!shown(property)) continue;
		const candidates: Array<[string, INodeProperties]> = [[property.name, property]];
		if (property.type === 'collection' && Array.isArray(property.options)) {
			for (const option of property.options as INodeProperties[]) candidates.push([`${property.name}.${option.name}`, option]);
		}
		for (const [path, candidate] of candidates) {
			if (candidate.displayName !== label) continue;
			return { path, fromAI: fromAIKey(lookup(parameters, path)) };
		}
	}
	return undefined;
}

function lookup(parameters: IDataObject, path: string): unknown {
	const value = path.split('.').reduce<unknown>((v, key) => (v as IDataObject | undefined)?.[key], parameters);
	// A resource locator keeps its value under `value`.
	return value && typeof value === 'object' && 'value' in value ? (value as IDataObject).value : value;
}

function fromAIKey(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	return /\$fromAI\(\s*(['"`])([A-Za-z0-9_-]+)\1/i.exec(value)?.[2];
}
