import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	Workflow,
} from 'n8n-workflow';
import { ICredentialsHelper } from 'n8n-workflow';

import { SvcMessagingAccountApi, SvcMessagingApi } from './packageClasses';

const credentialTypes: Record<string, ICredentialType> = {
	svcMessagingApi: new SvcMessagingApi(),
	svcMessagingAccountApi: new SvcMessagingAccountApi(),
};

export interface CredentialCall {
	method: 'preAuthentication' | 'updateCredentials' | 'authenticate';
	type: string;
	expired?: boolean;
}

/**
 * The part of n8n's server-side CredentialsHelper that a node's requests go through: applies the
 * credential class's own `authenticate` (expressions evaluated by n8n-workflow) and calls its
 * `preAuthentication` the way n8n does (when the expirable field is empty, or after a 401).
 * Credentials live in memory, keyed by id.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	readonly store = new Map<string, ICredentialDataDecryptedObject>();

	readonly calls: CredentialCall[] = [];

	set(id: string, data: ICredentialDataDecryptedObject) {
		this.store.set(id, { ...data });
	}

	getParentTypes(): string[] {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incoming: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		this.calls.push({ method: 'authenticate', type: typeName });
		const requestOptions = incoming as IHttpRequestOptions & Record<string, Record<string, unknown>>;
		const { authenticate } = credentialTypes[typeName];
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (authenticate?.type === 'generic') {
			for (const [outerKey, entries] of Object.entries(authenticate.properties)) {
				requestOptions[outerKey] ??= {};
				for (const [key, value] of Object.entries(entries as Record<string, string>)) {
					requestOptions[outerKey][resolve(key, credentials, workflow, node)] = resolve(
						value,
						credentials,
						workflow,
						node,
					);
				}
			}
		}
		return requestOptions;
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = credentialTypes[typeName];
		const expirable = type.properties.find(
			(p) => p.type === 'hidden' && p.typeOptions?.expirable === true,
		);
		if (!expirable || typeof type.preAuthentication !== 'function') return undefined;
		if (credentials[expirable.name] !== '' && credentials[expirable.name] !== undefined && !credentialsExpired) {
			return undefined;
		}
		this.calls.push({ method: 'preAuthentication', type: typeName, expired: credentialsExpired });
		const output = await type.preAuthentication.call(helpers, credentials);
		if (output[expirable.name] === undefined) return undefined;
		const details = node.credentials?.[typeName];
		if (details) await this.updateCredentials(details, typeName, Object.assign(credentials, output));
		return Object.assign(credentials, output);
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by the nodes under test');
	}

	async getDecrypted(
		_additionalData: unknown,
		nodeCredentials: INodeCredentialsDetails,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.store.get(nodeCredentials.id ?? '');
		if (!data) throw new Error(`No test credential with id ${nodeCredentials.id}`);
		return { ...data };
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.calls.push({ method: 'updateCredentials', type });
		this.store.set(nodeCredentials.id ?? '', { ...data });
	}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return credentialTypes[type].properties;
	}
}

function resolve(value: string, credentials: ICredentialDataDecryptedObject, workflow: Workflow, node: INode) {
	if (typeof value !== 'string' || !value.startsWith('=')) return value;
	const result = workflow.expression.getSimpleParameterValue(node, value, 'internal', {
		$credentials: credentials,
	} as never);
	return result === undefined || result === null ? '' : String(result);
}
