process.env.N8N_LOG_LEVEL = 'silent';
import { mkdtempSync } from 'fs'; import { tmpdir } from 'os'; import { join } from 'path';
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'svc-n8n-'));
import { startEmulator } from '../test/emulator';
import { executeNode, shutdownN8nCore } from '../test/helpers/n8n';

async function main() {
  const emu = await startEmulator({ timeScale: 1000 });
  emu.control.addAccount({ email: 'b@x', password: 'pw', credits: 10_000_000, apiKeys: [{ key: 'svc_test_bench_free', tier: 'free' }, { key: 'svc_test_bench_biz', tier: 'business' }] } as any);
  const n = Number(process.argv[2] ?? 10000);
  const plan = process.argv[3] ?? 'business';
  const key = plan === 'free' ? 'svc_test_bench_free' : 'svc_test_bench_biz';
  const items = Array.from({ length: n }, (_, i) => ({ phone: `+2547${String(10000000 + i).slice(-8)}`, name: `N${i}` }));
  const params = { resource: 'sms', operation: 'sendBulk', recipientsSource: 'items', phoneNumber: '={{ $json.phone }}', variablesSource: 'none', message: 'Hello', senderId: { __rl: true, mode: 'list', value: '' }, options: {} };
  for (let r = 0; r < 2; r++) {
  const t0 = Date.now(); const c0 = process.cpuUsage();
  const out = await executeNode({ parameters: params, credentials: { svcMessagingApi: { baseUrl: emu.url, apiKey: key, plan } } }, items);
  const c = process.cpuUsage(c0);
  console.log(n, 'out', out[0].length, out[0][0].json, 'wall', Date.now() - t0, 'cpu', (c.user + c.system) / 1000);
  }
  await emu.close(); await shutdownN8nCore();
}
main();
