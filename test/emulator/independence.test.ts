import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

// The emulator stands in for the service: sharing code with the nodes would hide a bug on both sides.
describe('emulator independence', () => {
	it('imports nothing from nodes/ or credentials/', () => {
		const offending = readdirSync(__dirname)
			.filter((file) => file.endsWith('.ts'))
			.flatMap((file) =>
				[...readFileSync(join(__dirname, file), 'utf8').matchAll(/(?:from\s+|require\(|import\()\s*['"]([^'"]+)['"]/g)]
					.map((match) => match[1])
					.filter((source) => /(^|\/)(nodes|credentials)(\/|$)/.test(source))
					.map((source) => `${file}: ${source}`),
			);
		expect(offending).toEqual([]);
	});
});
