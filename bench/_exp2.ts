process.env.N8N_LOG_LEVEL = 'silent';
import { mkdtempSync } from 'fs'; import { tmpdir } from 'os'; import { join } from 'path';
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'svc-n8n-'));
import { ExecuteContext } from 'n8n-core';
import { createRunExecutionData, Workflow, NodeHelpers } from 'n8n-workflow';
import { SvcMessaging } from '../nodes/SvcMessaging/SvcMessaging.node';
const nt = new SvcMessaging();
const nodeTypes: any = { getByName: () => nt, getByNameAndVersion: () => NodeHelpers.getVersionedNodeType(nt as any, 1), getKnownTypes: () => ({}) };
const exprs = ['={{ $json.phone }}', '={{$json.phone}}', '={{ $json["phone"] }}', "={{ $json['first name'] }}", '={{ $json.a.b }}', '={{ $json.missing }}', '={{ $json.num }}', '={{ $json.nul }}', '={{ $json.obj }}', '={{ $json.bool }}', '={{ $json.arr }}', '={{ $json.a.missing.x }}', '={{ $json.str }}', '={{ $json.date }}', '={{ $json.emptyStr }}', '={{ $json.phone }} ', '= {{ $json.phone }}'];
const items = [{ json: { phone: '+254712345678', 'first name': 'Amina', a: { b: 7 }, num: 254712345678, nul: null, obj: { x: 1 }, bool: true, arr: [1, '2'], str: 'x y', date: '2024-01-01T00:00:00Z', emptyStr: '' } }];
for (const e of exprs) {
  const node: any = { id: 'n', name: 'N', type: 'x.svcMessaging', typeVersion: 1, position: [0, 0], parameters: { resource: 'sms', operation: 'sendBulk', phoneNumber: e } };
  const wf = new Workflow({ id: 'w', name: 'w', nodes: [node], connections: {}, active: false, nodeTypes, settings: {} });
  const n = wf.getNode('N')!;
  const ctx = new ExecuteContext(wf, n, { variables: {} } as any, 'manual', createRunExecutionData(), 0, items as any, { main: [items as any] }, { node: n, data: { main: [items as any] }, source: null }, []);
  let v: any; try { v = ctx.getNodeParameter('phoneNumber', 0); } catch (err) { v = 'ERR ' + (err as Error).message; }
  console.log(JSON.stringify(e), '→', typeof v, JSON.stringify(v), v === items[0].json.obj, v === items[0].json.arr);
}
