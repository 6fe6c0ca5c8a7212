/**
 * Real-n8n harness shared by the end-to-end, editor and queue suites, `npm run demo` and `npm run dev`,
 * one concern per file in harness/:
 * - target.ts: which n8n (N8N_E2E_TARGET), its install under .n8n-e2e/, n8n's environment
 * - processes.ts: ports, HTTP, child processes (always killed)
 * - pack.ts: `npm pack`, and the package put into n8n's nodes folder (copied + linked, or the tarball)
 * - workflows.ts: credentials, workflows and executions as n8n stores them
 * - client.ts: a running n8n over HTTP (owner, REST, public API, runs, webhooks)
 * - n8n.ts: one n8n process (`n8n start`, a queue worker or webhook process) and its CLI
 * - emulatorClient.ts, stack.ts: the emulator's control surface; emulator process + n8n together
 * Imported from their own files (not re-exported here): registry.ts and npmProxy.ts (a local npm
 * registry), managedPackages.ts (N8N_COMMUNITY_PACKAGES from it), cloudEdition.ts (the Cloud build's
 * names and credentials), restartRetry.ts (SIGKILL mid-send, restart, Retry, counted per number).
 *
 * It loads the package the way a user installs it (package.json + built dist/ in
 * `<user folder>/.n8n/nodes/node_modules/n8n-nodes-svc-messaging`; with E2E_INSTALL=pack from the
 * `npm pack` tarball), imports credentials under a fixed encryption key, starts ONE `n8n start`, sets
 * up the owner and a public-API key through REST. Facts it relies on: ../../../shared/notes/real-n8n.md.
 */
export * from './harness/client';
export * from './harness/emulatorClient';
export * from './harness/n8n';
export * from './harness/pack';
export * from './harness/processes';
export * from './harness/stack';
export * from './harness/target';
export * from './harness/workflows';
export { FatalWaitError, waitFor } from '../helpers/waitFor';
