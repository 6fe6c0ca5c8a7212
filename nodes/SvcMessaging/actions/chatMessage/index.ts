import type { INodeProperties } from 'n8n-workflow';

// Operations of this resource arrive in their own issue.
export const description: INodeProperties[] = [];
