/**
 * The shortcuts that keep Send Bulk's own CPU time low give exactly what the slow paths
 * give: reading `={{ $json.field }}` from the item equals n8n's expression engine, and the
 * E.164 fast check of a phone number equals libphonenumber's parse.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/mobile';
import type { IExecuteFunctions, INodeType } from 'n8n-workflow';

import { SvcMessaging } from '../../nodes/SvcMessaging/SvcMessaging.node';
import { fieldPath, perItemParameter } from '../../nodes/SvcMessaging/actions/parameters';
import { normalizePhoneNumber, SUPPORTED_COUNTRIES } from '../../nodes/SvcMessaging/rules/phone';
import { executeNode, registerNodeType } from '../helpers/n8n';

describe('perItemParameter', () => {
	const expressions: Record<string, unknown> = {
		p1: '={{ $json.phone }}',
		p2: '={{$json.phone}}',
		p3: '={{ $json["phone"] }}',
		p4: "={{ $json['first name'] }}",
		p5: '={{ $json.a.b }}',
		p6: '={{ $json.missing }}',
		p7: '={{ $json.num }}',
		p8: '={{ $json.nul }}',
		p9: '={{ $json.obj }}',
		p10: '={{ $json.bool }}',
		p11: '={{ $json.arr }}',
		p12: '={{ $json.a.missing.x }}',
		p13: '={{ $json.phone }} ',
		p14: '= {{ $json.phone }}',
		p15: '={{ $json.phone.length }}',
		p16: '={{ $json.toString }}',
		p17: '={{ $json.nul.x }}',
		p18: '={{ $json.phone + 1 }}',
		p19: 'plain text',
		p20: { variable: [{ name: 'first', value: '={{ $json["first name"] }}' }, { name: 'n', value: '={{ $json.num }}' }] },
		p21: { variable: [{ name: 'first', value: '={{ $json.a }}' }] },
		p22: '={{ $json.empty }}',
	};
	const names = Object.keys(expressions);

	const probe: INodeType = {
		description: new SvcMessaging().description,
		async execute(this: IExecuteFunctions) {
			const items = this.getInputData();
			const json = names.map((name) => {
				const read = perItemParameter<unknown>(this, name, '');
				return items.map((_, i) => {
					let slow: unknown;
					try {
						slow = this.getNodeParameter(name, i, '');
					} catch (error) {
						slow = `error: ${(error as Error).message}`;
					}
					return { name, fast: read(i), slow };
				});
			});
			return [[{ json: { results: json.flat() } }]];
		},
	};
	registerNodeType('limiterProbe', probe);

	it("gives what n8n's expression engine gives, for every item", async () => {
		const items = [
			{ phone: '+254712345678', 'first name': 'Amina', a: { b: 7 }, num: 254712345678, nul: null, obj: { x: 1 }, bool: true, arr: [1, '2'], empty: '' },
			{ phone: 254712345679, a: 'not an object', num: 0 },
			{},
		];
		const [[out]] = await executeNode({ type: 'n8n-nodes-svc-messaging.limiterProbe', parameters: { resource: 'sms', operation: 'send', ...expressions } }, items);
		const results = out.json.results as Array<{ name: string; fast: unknown; slow: unknown }>;
		expect(results).toHaveLength(names.length * items.length);
		for (const { name, fast, slow } of results) expect({ name, value: fast }).toEqual({ name, value: slow });
	});

	it('takes the shortcut only for a single item field', () => {
		expect(fieldPath('={{ $json.phone }}')).toEqual(['phone']);
		expect(fieldPath('={{ $json.customer["mobile phone"].e164 }}')).toEqual(['customer', 'mobile phone', 'e164']);
		for (const other of ['={{ $json.phone.trim() }}', '={{ $json }}', '=+{{ $json.phone }}', '={{ $("Sheet").item.json.phone }}', '={{ $json[0] }}']) {
			expect(fieldPath(other)).toBeUndefined();
		}
	});
});

describe('normalizePhoneNumber', () => {
	/** What the node did before the fast check: libphonenumber's parse of every number. */
	function reference(input: string, check: 'mobile' | 'format') {
		const compact = input.trim().replace(/[\s().-]/g, '').replace(/^00/, '+');
		const parsed = parsePhoneNumberFromString(compact);
		if (check === 'format') {
			const e164 = parsed?.number ?? compact;
			return /^\+[1-9]\d{6,14}$/.test(e164) ? { ok: true, e164, country: parsed?.country } : { ok: false };
		}
		if (!parsed?.country || !SUPPORTED_COUNTRIES[parsed.country] || !parsed.isValid()) return { ok: false };
		return { ok: true, e164: parsed.number, country: parsed.country };
	}

	it("agrees with libphonenumber's parse on valid and invalid E.164 numbers of every supported country", () => {
		let seed = 42;
		const random = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
		const supported = ['254', '234', '256', '255', '250', '233'];
		const others = ['1', '44', '27', '2547'];
		const mismatches: unknown[] = [];
		let valid = 0;
		for (let n = 0; n < 20_000; n++) {
			// Half of them shaped like a mobile number of a supported country (so that many are valid).
			const mobileLike = n % 2 === 0;
			const code = mobileLike ? supported[random(6)] : [...supported, ...others][random(10)];
			const length = mobileLike ? (code === '234' ? 10 : 9) : 5 + random(11);
			let digits = String('78952601'[random(8)]);
			while (digits.length < length) digits += random(10);
			const input = `+${code}${digits}`;
			for (const check of ['mobile', 'format'] as const) {
				const fast = normalizePhoneNumber(input, undefined, check);
				const slow = reference(input, check);
				const same = fast.ok === slow.ok && (!fast.ok || (fast.e164 === slow.e164 && fast.country === slow.country));
				if (!same) mismatches.push({ input, check, fast, slow });
				if (fast.ok && check === 'mobile') valid++;
			}
		}
		expect(mismatches).toEqual([]);
		expect(valid).toBeGreaterThan(1_000);
	});
});
