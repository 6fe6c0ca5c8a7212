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

/** n8n's UX guideline: a placeholder shows an example and starts with "e.g."; "Add …" and "Select …" are prompts. */
function needsExample(placeholder: unknown): placeholder is string {
	return typeof placeholder === 'string' && placeholder !== '' && !/^(e\.g\.|Add |Select )/.test(placeholder);
}

type WithPlaceholders = { placeholder?: unknown; options?: unknown; values?: unknown; modes?: unknown };

function hasBarePlaceholder(field: WithPlaceholders): boolean {
	const children = [field.options, field.values, field.modes].flatMap((c) => (Array.isArray(c) ? c : []));
	return needsExample(field.placeholder) || children.some((c) => typeof c === 'object' && c !== null && hasBarePlaceholder(c as WithPlaceholders));
}

function withExamples<T extends WithPlaceholders>(field: T): T {
	const copy: T = { ...field };
	// An expression shown as an example is read as text: no leading '='.
	if (needsExample(field.placeholder)) copy.placeholder = `e.g. ${field.placeholder.replace(/^=/, '')}`;
	for (const key of ['options', 'values', 'modes'] as const) {
		const children = field[key];
		if (Array.isArray(children)) {
			(copy as WithPlaceholders)[key] = children.map((c: unknown) => (typeof c === 'object' && c !== null ? withExamples(c as WithPlaceholders) : c));
		}
	}
	return copy;
}

/**
 * Version 2's placeholders all start with "e.g.": a field whose placeholder (or an option's) does
 * not exists as it was for version 1 and with the example for version 2.
 */
export function examplePlaceholdersInV2(properties: INodeProperties[]): INodeProperties[] {
	return properties.flatMap((property) => {
		if (!hasBarePlaceholder(property)) return [property];
		const versions = property.displayOptions?.show?.['@version'] as number[] | undefined;
		if (versions && !versions.includes(2)) return [property];
		if (versions) return [withExamples(property)];
		return [...onlyV1(property), ...onlyV2(withExamples(property))];
	});
}

/**
 * A display condition true for every node version, for a credential that must have a `show`
 * naming no parameter (see the node's `credentials`).
 */
export const ALL_VERSIONS = { '@version': NODE_VERSIONS };
