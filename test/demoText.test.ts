import { rejection } from './e2e/demoText';

describe('npm run demo: a rejected recipient', () => {
	it('names its code once (the message of a service rejection starts with it)', () => {
		expect(rejection({ errorCode: 'INVALID_SENDER_ID', errorMessage: 'INVALID_SENDER_ID – Sender ID not approved for GH (+233241000103)' })).toBe(
			'INVALID_SENDER_ID – Sender ID not approved for GH (+233241000103)',
		);
		expect(rejection({ errorCode: 'VALIDATION_ERROR', errorMessage: 'Item 2: "Phone Number" is not valid' })).toBe('VALIDATION_ERROR Item 2: "Phone Number" is not valid');
		// Node version 2 (the examples): the service's words from the description, the code once.
		expect(
			rejection({
				errorCode: 'INVALID_SENDER_ID',
				errorMessage: 'Item 3: The service refused the sender ID (+233241000103)',
				errorDescription: 'The service said: Sender ID not approved for GH (INVALID_SENDER_ID).',
			}),
		).toBe('INVALID_SENDER_ID – Sender ID not approved for GH');
	});
});
