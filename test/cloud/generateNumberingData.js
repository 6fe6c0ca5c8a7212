/** The cloud jest project's global setup: cloud/platform/numberingData.json, as the Cloud build writes it. */
const { join } = require('path');

module.exports = async () => {
	const { writeNumberingData } = await import('../../cloud/numbering-data.mjs');
	writeNumberingData(join(__dirname, '..', '..', 'cloud', 'platform', 'numberingData.json'));
};
