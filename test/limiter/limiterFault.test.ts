/**
 * A fault inside the key's limiter, before the request left (a slot that throws: the limiter's own
 * test knob, the transport itself runs as it does in n8n): the item says it was not sent
 * (LIMITER_FAULT, not "no answer … may have accepted it"), the ledger keeps no mark of it, and the
 * Retry sends it, once. Counted at the emulator.
 */
import { apiKeyCredentials } from '../helpers/credentials';
import { useEmulator } from '../helpers/emulatorFixture';
import { executeNode } from '../helpers/n8n';
import { sendParameters } from '../sms/fixtures';
import { slotFaults } from '../../nodes/SvcMessaging/transport/keyLimiter';
import { clearLocalLedger } from '../../nodes/SvcMessaging/sending/ledger/ledger';

const emu = useEmulator({ per: 'test' });
afterEach(() => void (slotFaults.next = 0));

const sent = () => emu.control.messages().map((m) => m.phoneNumber);

it.each([1, 2])('node version %i: one slot fails, its item is "not sent", and the Retry sends it once', async (typeVersion) => {
	const items = Array.from({ length: 5 }, (_, i) => ({ phone: `+25471${String(5_550_000 + typeVersion * 10 + i).padStart(7, '0')}` }));
	const settings = { onError: 'continueRegularOutput' as const };
	const credentials = apiKeyCredentials(emu.url, { plan: 'free' });
	slotFaults.next = 1;
	const [first] = await executeNode({ parameters: sendParameters(), credentials, executionId: `fault-${typeVersion}-a`, settings, typeVersion }, items);
	const failed = first.filter((item) => item.json.errorCode !== undefined);
	expect(failed).toHaveLength(1);
	expect(failed[0].json.errorCode).toBe('LIMITER_FAULT');
	expect(String(failed[0].json.errorMessage)).toMatch(/not sent/i);
	expect(String(failed[0].json.errorMessage)).not.toMatch(/may have|NETWORK_ERROR/);
	expect(sent()).toHaveLength(4);
	const missing = items[(failed[0].pairedItem as { item: number }).item].phone;
	expect(sent()).not.toContain(missing);

	// The Retry, after a restart as well (this process's ledger forgotten): the one not sent goes now.
	clearLocalLedger();
	const [retry] = await executeNode({ parameters: sendParameters(), credentials, executionId: `fault-${typeVersion}-b`, mode: 'retry', settings, typeVersion }, items);
	expect(retry.filter((item) => item.json.errorCode !== undefined)).toEqual([]);
	expect(retry.filter((item) => item.json.alreadySent === true)).toHaveLength(4);
	expect(sent().filter((phone) => phone === missing)).toHaveLength(1);
	expect(new Set(sent()).size).toBe(5);
	expect(sent()).toHaveLength(5);
}, 30_000);
