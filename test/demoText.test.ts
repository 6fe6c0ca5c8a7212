import { rejection } from './e2e/demoText';

describe('npm run demo: a rejected recipient', () => {
	it('names its code once (the message of a service rejection starts with it)', () => {
		expect(rejection({ errorCode: 'INVALID_SENDER_ID', errorMessage: 'INVALID_SENDER_ID – Sender ID not approved for GH (+233241000103)' })).toBe(
			'INVALID_SENDER_ID – Sender ID not approved for GH (+233241000103)',
		);
		expect(rejection({ errorCode: 'VALIDATION_ERROR', errorMessage: 'Item 2: "Phone Number" is not valid' })).toBe('VALIDATION_ERROR Item 2: "Phone Number" is not valid');
	});
});
