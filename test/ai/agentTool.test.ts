/**
 * What the model sees of "SVC Messaging Tool" run through n8n-core's tool machinery (toolBed.ts):
 * its description and arguments, refusals as the tool's result, and Send and Wait for Delivery.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiKeyCredentials } from '../helpers/credentials';
import { TOOL_DESCRIPTIONS } from '../../nodes/SvcMessaging/actions/tool.descriptions';
import { DEFAULT_AGENT_MESSAGE_CAP } from '../../nodes/SvcMessaging/aiTool/agentCap';
import { SEED_KEYS, sent } from '../sms/fixtures';
import { BAD_PHONE_REFUSAL } from './refusals';
import { callTool, fromAI, PACKAGE, phone, SMS_SEND, types, useToolEmulator } from './toolBed';

const emu = useToolEmulator();

describe('SVC Messaging Tool: description and arguments', () => {
	it('gives the model the operation’s own description and the $fromAI arguments', async () => {
		const [call] = await callTool({ parameters: SMS_SEND }, [{ phone: phone(1), text: 'Your parcel is on its way' }]);
		expect(call.name).toBe('Send_SMS');
		expect(call.description).toBe(TOOL_DESCRIPTIONS.sms.send);
		expect(call.description).toMatch(/^Sends one SMS to one phone number/);
		expect(call.result).toEqual([expect.objectContaining({ accepted: true, phoneNumber: phone(1), messageId: expect.any(String) })]);
		expect(emu.control.messages()).toEqual([expect.objectContaining({ phoneNumber: phone(1), message: 'Your parcel is on its way' })]);
	});

	it('every operation has its own description, shown only in the tool; the cap only on the sending ones', () => {
		const toolProps = types[`${PACKAGE}.svcMessagingTool`].description.properties;
		const regular = types[`${PACKAGE}.svcMessaging`].description;
		const operations = regular.properties
			.filter((p) => p.name === 'operation')
			.flatMap((p) => (p.options as Array<{ value: string }>).map((o) => `${String(p.displayOptions!.show!.resource![0])}.${o.value}`));
		const described = toolProps
			.filter((p) => p.name === 'toolDescription')
			.map((p) => `${String(p.displayOptions!.show!.resource![0])}.${String(p.displayOptions!.show!.operation![0])}`);
		expect(operations.filter((o) => !described.includes(o))).toEqual([]);
		expect(new Set(described).size).toBe(described.length);
		for (const p of toolProps.filter((q) => ['toolDescription', 'maxMessagesPerExecution'].includes(q.name))) {
			expect(p.displayOptions!.show!['@tool']).toEqual([true]);
		}
		const cap = toolProps.filter((p) => p.name === 'maxMessagesPerExecution');
		expect(cap.map((p) => [p.default, p.displayOptions!.show!.resource, p.displayOptions!.show!.operation])).toEqual([
			[DEFAULT_AGENT_MESSAGE_CAP, ['sms'], ['send', 'sendBulk', 'sendAndWaitForDelivery']],
			[DEFAULT_AGENT_MESSAGE_CAP, ['chatMessage'], ['send']],
			// Node version 2's Send Template sends too.
			[DEFAULT_AGENT_MESSAGE_CAP, ['chatMessage'], ['sendTemplate']],
		]);
		expect(cap[2].displayOptions!.show!['@version']).toEqual([2]);
	});

	it('a national number works with the tool’s Default Country', async () => {
		const [call] = await callTool({ parameters: { ...SMS_SEND, options: { defaultCountry: 'KE' } } }, [{ phone: '0722 001 234', text: 'Habari' }]);
		expect(call.result[0]).toMatchObject({ accepted: true, phoneNumber: '+254722001234' });
		expect(emu.control.messages()).toEqual([expect.objectContaining({ phoneNumber: '+254722001234' })]);
	});
});

describe('SVC Messaging Tool: refusals are the tool’s result', () => {
	it('a bad number: the field (the $fromAI key), the rule and the fix; nothing sent', async () => {
		const [call] = await callTool({ parameters: SMS_SEND }, [{ phone: '0712', text: 'Hello' }]);
		expect(call.result).toEqual([BAD_PHONE_REFUSAL]);
		expect(sent(emu)).toHaveLength(0);
	});

	it('a message too long names the message argument', async () => {
		const [call] = await callTool({ parameters: SMS_SEND }, [{ phone: phone(2), text: 'x'.repeat(1601) }]);
		expect(call.result[0]).toMatchObject({ success: false, errorCode: 'INVALID_INPUT', field: 'text' });
		expect(call.result[0].errorMessage).toMatch(/"Message" must be at most 1600 characters/);
		expect(sent(emu)).toHaveLength(0);
	});

	it('a value fixed in the workflow (not from the model) is named as such', async () => {
		const [call] = await callTool({ parameters: { ...SMS_SEND, senderId: { __rl: true, mode: 'id', value: 'bad sender!' } } }, [
			{ phone: phone(3), text: 'Hello' },
		]);
		expect(call.result[0]).toMatchObject({ success: false, field: 'Sender ID' });
		expect(call.result[0].fix).toMatch(/"Sender ID" is set in the n8n workflow, not by a tool argument/);
		expect(sent(emu)).toHaveLength(0);
	});

	it("the service's refusal (no credits) with its code and what to do", async () => {
		const [call] = await callTool({ parameters: SMS_SEND, credential: { apiKey: SEED_KEYS.broke } }, [{ phone: phone(4), text: 'Hello' }]);
		expect(call.result[0]).toMatchObject({ success: false, errorCode: 'INSUFFICIENT_CREDITS' });
		expect(call.result[0].fix).toMatch(/Top up credits/);
		expect(emu.control.messages()).toHaveLength(0);
	});

	it('a message ID that does not exist names the messageId argument', async () => {
		const [call] = await callTool({ parameters: { resource: 'sms', operation: 'getMessage', messageId: fromAI('messageId', 'From a send') } }, [
			{ messageId: 'msg_does_not_exist' },
		]);
		expect(call.result[0]).toMatchObject({ success: false, errorCode: 'NOT_FOUND', field: 'messageId' });
	});

	it('as a node of the execution (n8n’s Agent V3 engine runs tool calls that way): the refusal is the output, not a failure', async () => {
		const [call] = await callTool({ parameters: SMS_SEND }, [{ phone: '+1 555 0100', text: 'Hello' }]);
		expect(call.result[0]).toMatchObject({ success: false, field: 'phone' });
		// The same node type run directly in an ExecuteContext (no SupplyDataContext).
		const { executeNode } = await import('../helpers/n8n');
		const { registerNodeType } = await import('../helpers/n8n');
		registerNodeType('svcMessagingTool', types[`${PACKAGE}.svcMessagingTool`]);
		const [out] = await executeNode(
			{
				type: `${PACKAGE}.svcMessagingTool`,
				parameters: { ...SMS_SEND, phoneNumber: '={{ $json.phone }}', message: '={{ $json.text }}' },
				credentials: apiKeyCredentials(emu.url),
			},
			[{ phone: '0712', text: 'Hello', toolCallId: 'call_1' }],
		);
		expect(out).toEqual([{ json: expect.objectContaining({ success: false, field: 'Phone Number' }), pairedItem: { item: 0 } }]);
		expect(sent(emu)).toHaveLength(0);
	});
});


describe('SVC Messaging Tool: Send and Wait for Delivery', () => {
	const sendAndWait = (extra: IDataObject = {}) => ({
		...SMS_SEND,
		operation: 'sendAndWaitForDelivery',
		waitMode: 'polling',
		timeout: 30,
		options: { pollInterval: 1 },
		...extra,
	});

	it('polling: the answer holds the final status, "Not Delivered" included (a tool answers with one list)', async () => {
		// The emulator fails numbers ending 999 (DESTINATION_NOT_REACHABLE).
		const [delivered, failed] = await callTool({ parameters: sendAndWait() }, [
			{ phone: phone(200), text: 'Code 1234' },
			{ phone: '+254722000999', text: 'Code 5678' },
		]);
		expect(delivered.result).toEqual([expect.objectContaining({ accepted: true, phoneNumber: phone(200), status: 'DELIVERED' })]);
		expect(failed.result).toEqual([expect.objectContaining({ accepted: true, phoneNumber: '+254722000999', status: 'FAILED' })]);
	});

	it('counts against the cap like Send', async () => {
		const results = await callTool({ parameters: sendAndWait({ maxMessagesPerExecution: 1 }) }, [
			{ phone: phone(201), text: 'a' },
			{ phone: phone(202), text: 'b' },
		]);
		expect(results.map((r) => r.result[0].status ?? r.result[0].errorCode)).toEqual(['DELIVERED', 'MESSAGE_CAP_REACHED']);
		expect(emu.control.messages()).toHaveLength(1);
	});

	it('"Delivery Report (Webhook)" cannot pause a tool call: refused before sending', async () => {
		const [call] = await callTool({ parameters: sendAndWait({ waitMode: 'webhook' }) }, [{ phone: phone(203), text: 'c' }]);
		expect(call.result).toEqual([
			expect.objectContaining({
				success: false,
				errorCode: 'INVALID_INPUT',
				field: 'Wait Using',
				errorMessage: '"Wait Using" must be Polling when SVC Messaging runs as a tool: a tool call cannot pause for delivery reports',
			}),
		]);
		expect(sent(emu)).toHaveLength(0);
	});
});
