/** The tool's result for a bad phone number: the field ($fromAI key), the rule and the fix; nothing sent. */
export const BAD_PHONE_REFUSAL = {
	success: false,
	errorCode: 'INVALID_INPUT',
	category: 'INVALID_INPUT',
	retryable: false,
	errorMessage: expect.stringMatching(/^"Phone Number" must be in E\.164 format/),
	field: 'phone',
	fix: expect.stringMatching(/Call the tool again with a corrected "phone"\. Nothing was sent\./),
};
