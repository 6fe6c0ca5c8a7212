/** The default seed: three accounts, their keys, logins, sender IDs, opt-ins and contact groups. */
import type { Seed } from './state';

export const SEED_ACCOUNT_IDS = { demo: 'acc_demo', broke: 'acc_broke', nochat: 'acc_nochat' } as const;

export const SEED_KEYS = {
	free: 'svc_test_free_0001',
	starter: 'svc_test_starter_0001',
	business: 'svc_test_business_0001',
	enterprise: 'svc_live_enterprise_0001',
	liveFree: 'svc_live_free_0001',
	broke: 'svc_test_broke_0001',
	nochat: 'svc_test_nochat_0001',
} as const;

export const SEED_LOGINS = {
	demo: { email: 'demo@svc.test', password: 'demo-password', accountId: SEED_ACCOUNT_IDS.demo },
	broke: { email: 'broke@svc.test', password: 'broke-password', accountId: SEED_ACCOUNT_IDS.broke },
	nochat: { email: 'nochat@svc.test', password: 'nochat-password', accountId: SEED_ACCOUNT_IDS.nochat },
} as const;

export const SEED_CREDITS = { demo: 1000, broke: 0, nochat: 100 } as const;

/** SVCTEST: the accounts' testing sender (pre-approved for Ghana); ACMEKE: not for Ghana; 20880: numeric, Kenya only. */
export const SEED_SENDER_IDS = { testing: 'SVCTEST', brand: 'ACMEKE', numeric: '20880' } as const;

export const SEED_ENTERPRISE_LIMITS = { requestsPerSecond: 200, recipientsPerCall: 20000 } as const;

export const SEED_OPT_INS = ['+254712345678', '+254712345679', '+2348031234567'] as const;

export const SEED_CONTACT_GROUPS: Readonly<Record<number, readonly string[]>> = {
	1: ['+254711000001', '+254711000002', '+254711000003'],
	2: ['+254711000003', '+254711000004'],
};

const testingSender = { senderId: SEED_SENDER_IDS.testing, type: 'ALPHANUMERIC' as const, countries: ['KE', 'NG', 'UG', 'TZ', 'RW', 'GH'] };

/** A fresh copy of the default seed (safe to modify). */
export function defaultSeed(): Seed {
	return {
		accounts: [
			{
				id: SEED_ACCOUNT_IDS.demo,
				email: SEED_LOGINS.demo.email,
				password: SEED_LOGINS.demo.password,
				credits: SEED_CREDITS.demo,
				defaultSenderId: SEED_SENDER_IDS.testing,
				senderIds: [
					{ ...testingSender, countries: [...testingSender.countries] },
					{ senderId: SEED_SENDER_IDS.brand, type: 'ALPHANUMERIC', countries: ['KE', 'NG', 'UG', 'TZ', 'RW'] },
					{ senderId: SEED_SENDER_IDS.numeric, type: 'NUMERIC', countries: ['KE'] },
				],
				apiKeys: [
					{ key: SEED_KEYS.free, tier: 'free', label: 'sandbox free' },
					{ key: SEED_KEYS.starter, tier: 'starter', label: 'sandbox starter' },
					{ key: SEED_KEYS.business, tier: 'business', label: 'sandbox business' },
					{ key: SEED_KEYS.enterprise, tier: 'enterprise', label: 'live enterprise', ...SEED_ENTERPRISE_LIMITS },
					{ key: SEED_KEYS.liveFree, tier: 'free', label: 'live free' },
				],
				chatRegistered: true,
				optIns: [...SEED_OPT_INS],
				contactGroups: Object.fromEntries(Object.entries(SEED_CONTACT_GROUPS).map(([id, members]) => [id, [...members]])),
				webhookUrl: null,
				webhookSecret: null,
			},
			{
				id: SEED_ACCOUNT_IDS.broke,
				email: SEED_LOGINS.broke.email,
				password: SEED_LOGINS.broke.password,
				credits: SEED_CREDITS.broke,
				defaultSenderId: SEED_SENDER_IDS.testing,
				senderIds: [{ ...testingSender, countries: [...testingSender.countries] }],
				apiKeys: [{ key: SEED_KEYS.broke, tier: 'free', label: 'sandbox' }],
				chatRegistered: true,
			},
			{
				id: SEED_ACCOUNT_IDS.nochat,
				email: SEED_LOGINS.nochat.email,
				password: SEED_LOGINS.nochat.password,
				credits: SEED_CREDITS.nochat,
				defaultSenderId: SEED_SENDER_IDS.testing,
				senderIds: [{ ...testingSender, countries: [...testingSender.countries] }],
				apiKeys: [{ key: SEED_KEYS.nochat, tier: 'free', label: 'sandbox' }],
				chatRegistered: false,
			},
		],
	};
}
