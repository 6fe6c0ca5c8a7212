import type {
	IAuthenticateGeneric,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	INodeProperties,
} from 'n8n-workflow';

export class SvcMessagingAccountApi implements ICredentialType {
	name = 'svcMessagingAccountApi';

	displayName = 'SVC Messaging Account API';

	icon = { light: 'file:svcMessaging.svg', dark: 'file:svcMessaging.dark.svg' } as const;

	documentationUrl = 'https://github.com/svc-messaging/n8n-nodes-svc-messaging#nodes-and-credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description: 'Address of the messaging service, without a trailing path',
			hint: "The service's API address from its developer documentation or the dashboard (where API keys are created); the same for both SVC Messaging credentials",
		},
		{
			displayName: 'Email',
			name: 'email',
			type: 'string',
			placeholder: 'name@email.com',
			default: '',
			required: true,
			description: 'The dashboard login used for campaigns and the account balance',
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
		},
		{
			// Filled by preAuthentication; n8n keeps it and logs in again when a request gets a 401.
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const baseUrl = String(credentials.baseUrl ?? '').replace(/\/+$/, '');
		// Status errors are read here rather than thrown, so the request (and its password) never
		// travels inside an error object.
		const response = (await this.helpers.httpRequest({
			method: 'POST',
			url: `${baseUrl}/api/auth/login`,
			body: { email: credentials.email, password: credentials.password },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		})) as { statusCode: number; body: IDataObject };
		const data = response.body?.data as IDataObject | undefined;
		if (response.statusCode >= 400 || typeof data?.accessToken !== 'string') {
			const error = response.body?.error as IDataObject | undefined;
			// The node decides on the code (transport/errors.ts LOGIN_FAILED), never on this text: n8n
			// wraps this error in a NodeApiError whose httpCode it takes from `errorCode`.
			throw Object.assign(
				new Error(
					`SVC Messaging login failed (HTTP ${response.statusCode}${error?.code ? ` ${String(error.code)}` : ''}): check the email and password of the SVC Messaging Account API credential`,
				),
				{ errorCode: 'LOGIN_FAILED' },
			);
		}
		return { accessToken: data.accessToken };
	}

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.accessToken}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/api/account/balance',
			method: 'GET',
		},
	};
}
