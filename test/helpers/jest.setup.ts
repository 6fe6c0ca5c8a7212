import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

// n8n-core reads these when it loads: keep its settings file out of ~/.n8n and its logger quiet.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'svc-n8n-'));
process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS = 'true';
process.env.N8N_LOG_LEVEL = 'silent';
