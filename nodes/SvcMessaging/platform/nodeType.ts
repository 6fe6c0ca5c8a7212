import { EDITION } from './edition';

/** A node type's full name as workflows and n8n's AI builder name it (`<package>.<name>`), in either edition. */
export const nodeTypeOf = (name: string): string => `${EDITION.packageName}.${name}`;
