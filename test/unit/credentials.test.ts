import { SvcMessagingApi } from '../../credentials/SvcMessagingApi.credentials';
import { API_KEY_HEADER } from '../../nodes/SvcMessaging/transport/credentials';
import { sendSms } from '../../nodes/SvcMessaging/api/sms';
import { apiKeyCredentials } from '../helpers/credentials';
import { fakeContext } from './fakeContext';

describe('the API key header', () => {
	it("is the one the credential's authenticate declares", () => {
		expect(new SvcMessagingApi().authenticate).toEqual({ type: 'generic', properties: { headers: { [API_KEY_HEADER]: '={{$credentials.apiKey}}' } } });
	});

	it('is set on every API-key request, from the credential read once', async () => {
		const seen: Array<Record<string, unknown>> = [];
		const { ctx, credentialReads } = fakeContext({
			credentials: apiKeyCredentials('http://svc.test', { apiKey: 'svc_live_header' }),
			answer: (request) => {
				seen.push(request.headers as Record<string, unknown>);
				return { statusCode: 202, body: { success: true, data: { messageId: 'm' } } };
			},
		});
		await sendSms(ctx, { phoneNumber: '+254712345678', message: 'a' });
		await sendSms(ctx, { phoneNumber: '+254712345679', message: 'b' });
		expect(seen).toEqual([{ [API_KEY_HEADER]: 'svc_live_header' }, { [API_KEY_HEADER]: 'svc_live_header' }]);
		expect(credentialReads).toEqual(['svcMessagingApi']);
	});
});
