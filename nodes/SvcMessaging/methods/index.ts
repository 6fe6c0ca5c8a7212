export * as listSearch from './listSearch';
export { chatTemplateListSearch, resourceMapping } from './chatTemplates';
export { svcMessagingApiTest } from './credentialTest';
