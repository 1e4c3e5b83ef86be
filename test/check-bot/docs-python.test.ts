import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { freePort, startProcess, stopProcesses } from '../helpers/processes.js';
import { baseEnv, repoRoot, runInProcess } from '../helpers/run.js';
import { withTool } from '../helpers/tools.js';

/**
 * docs/check-bot.md, "Passing every check in Python": the code shown there, with only a standard
 * library HTTP server around it, passes every check. The code is read from the page, so the page
 * cannot drift from what passes.
 */

afterEach(() => stopProcesses());

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** The handler the page describes in its closing comment, around the page's own functions. */
const SERVER = `
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        raw_body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {name.lower(): value for name, value in self.headers.items()}
        problem = verify(headers, raw_body)
        if problem:
            self.send_response(401)
            self.end_headers()
            self.wfile.write(problem.encode())
            return
        sent = answer(headers["webhook-id"], json.loads(raw_body))
        self.send_response(200 if sent else 503)
        self.end_headers()

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler)
print("bot listening", flush=True)
server.serve_forever()
`;

withTool('python3').it('the Python bot of docs/check-bot.md passes every check', async () => {
  const page = readFileSync(join(repoRoot, 'docs', 'check-bot.md'), 'utf8');
  const code = /## Passing every check in Python[^\n]*\n[\s\S]*?```python\n([\s\S]*?)```/.exec(page)?.[1];
  expect(code, 'the Python block of docs/check-bot.md').toBeDefined();
  const file = join(mkdtempSync(join(tmpdir(), 'python-bot-')), 'bot.py');
  writeFileSync(file, `${code}\n${SERVER}`);
  const [sandboxPort, botPort] = [await freePort(), await freePort()];
  const env = baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: SECRET });
  const bot = startProcess(
    'python3',
    [file],
    {
      ...env,
      CORE_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
      CORE_TENANT: 'sandbox',
      CORE_TOKEN: 'sandbox-token',
      CORE_WEBHOOK_SECRET: SECRET,
      PORT: String(botPort),
    },
    /bot listening/,
  );
  await bot.started;
  const result = await runInProcess(
    [
      'check-bot',
      '--bot-url',
      `http://127.0.0.1:${botPort}/webhook`,
      '--port',
      String(sandboxPort),
      '--timeout',
      '10s',
      '--reporter',
      'json',
    ],
    { env },
  );
  const report = JSON.parse(result.stdout) as { checks: { id: string; status: string; message: string }[] };
  expect(report.checks.filter((check) => check.status !== 'pass')).toEqual([]);
  expect(report.checks).toHaveLength(13);
  expect(result.code).toBe(0);
});
