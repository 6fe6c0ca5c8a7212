import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/**
 * Node version 2 changes defaults and forms. n8n saves only the parameters that differ from their
 * defaults, so a field whose default or shape changes exists twice, one copy per version
 * (`@version` in `displayOptions`), and version 1 workflows keep reading what they were saved with.
 */
export const NODE_VERSIONS = [1, 2];
export const LATEST_VERSION = 2;

function forVersions(versions: number[], properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...property.displayOptions?.show, '@version': versions },
		},
	}));
}

/** Fields of version 1 only (as saved before version 2 existed). */
export const onlyV1 = (...properties: INodeProperties[]): INodeProperties[] => forVersions([1], properties);

/** Fields of version 2 only. */
export const onlyV2 = (...properties: INodeProperties[]): INodeProperties[] => forVersions([2], properties);

/** Whether item reading follows version 2's form (e.g. Campaign → Create's Scheduled Time out of Options). */
export function isV2(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	return ctx.getNode().typeVersion >= 2;
}

/** One field as version 1 has it and, changed as given, as version 2 has it. */
export function changedInV2(property: INodeProperties, v2: Partial<INodeProperties>): INodeProperties[] {
	return [...onlyV1(property), ...onlyV2({ ...property, ...v2 })];
}
