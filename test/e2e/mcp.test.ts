import { createServer } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startProcess, stopProcesses } from '../helpers/processes.js';
import { baseEnv, binPath, ensureBuilt, repoRoot } from '../helpers/run.js';

/**
 * `core mcp` driven as a coding agent drives it: the official SDK's client spawns the built core as
 * a stdio child process and calls its tools. A session starts a sandbox against the example bot,
 * speaks as the customer, reads the answer, runs check-bot, and finds a broken bot's refusal.
 */

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

beforeAll(() => ensureBuilt());
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await stopProcesses();
});

interface TextResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
}

async function connect(): Promise<{
  client: Client;
  call: (name: string, args?: Record<string, unknown>) => Promise<TextResult & { text: string }>;
}> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--', binPath, 'mcp'],
    env: baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: SECRET }) as Record<string, string>,
    cwd: repoRoot,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'core-test', version: '1.0.0' });
  await client.connect(transport);
  closers.push(() => client.close());
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as TextResult;
    return { ...result, text: result.content.map((part) => part.text ?? '').join('\n') };
  };
  return { client, call };
}

/** A bot that answers every webhook with a reply the API refuses (a code it does not have). */
async function brokenBot(sandboxUrl: () => string): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.writeHead(200).end();
      const coreClientId = /"coreClientId":(\d+)/.exec(body)?.[1] ?? '0';
      void fetch(`${sandboxUrl()}/api/v1/chatbot`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': 'sandbox' },
        body: `{"coreClientId":${coreClientId},"code":"DONE","text":"All done"}`,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/webhook`;
}

describe('core mcp', () => {
  it('lists its tools, each with an input schema, and the guides as resources', async () => {
    const { client } = await connect();
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(
      [
        'check_bot',
        'conversation_read',
        'conversations_list',
        'customer_press',
        'customer_say',
        'greet_send',
        'payload_schema',
        'payload_validate',
        'reason_update',
        'reply_send',
        'run_tests',
        'sandbox_start',
        'sandbox_stop',
        'webhook_redeliver',
      ].sort(),
    );
    for (const tool of tools.tools) expect(tool.inputSchema.type).toBe('object');
    const resources = await client.listResources();
    expect(resources.resources.map((resource) => resource.uri)).toContain('core://docs/sandbox.md');
    const guide = await client.readResource({ uri: 'core://docs/mcp.md' });
    expect((guide.contents[0] as { text: string }).text).toMatch(/^# /);
  });

  it("starts a sandbox against the example bot, says a message, reads the answer, runs check-bot, then finds a broken bot's refusal", async () => {
    const [sandboxPort, botPort] = [await freePort(), await freePort()];
    const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
    const bot = startProcess(
      process.execPath,
      [join(repoRoot, 'docs', 'examples', 'bot', 'bot.mjs')],
      {
        ...baseEnv(),
        CORE_BASE_URL: sandboxUrl,
        CORE_TENANT: 'sandbox',
        CORE_TOKEN: 'sandbox-token',
        CORE_WEBHOOK_SECRET: SECRET,
        PORT: String(botPort),
      },
      /bot listening on/,
    );
    await bot.started;
    const { call } = await connect();

    const started = await call('sandbox_start', { botUrl: `http://127.0.0.1:${botPort}/webhook`, port: sandboxPort });
    expect(started.isError, started.text).toBeFalsy();
    expect(started.text).toContain(`"CORE_BASE_URL": "${sandboxUrl}"`);
    expect(started.text).toContain(`"CORE_WEBHOOK_SECRET": "${SECRET}"`);

    const said = await call('customer_say', { text: 'Where is my order?' });
    expect(said.isError, said.text).toBeFalsy();
    const exchange = JSON.parse(said.text) as { sessionId: string; answers: Array<{ delivered: boolean; body: { text?: string } }> };
    expect(exchange.answers.length).toBeGreaterThan(0);
    expect(exchange.answers[0]!.delivered).toBe(true);

    const read = await call('conversation_read', { session: exchange.sessionId });
    expect(read.isError, read.text).toBeFalsy();
    const events = (JSON.parse(read.text) as { events: Array<{ type: string }> }).events.map((event) => event.type);
    expect(events).toEqual(expect.arrayContaining(['conversation.started', 'customer.message', 'webhook.attempt', 'bot.answer']));

    const listed = await call('conversations_list');
    expect(listed.text).toContain(exchange.sessionId);

    const checked = await call('check_bot', { timeout: '5s' });
    expect(checked.isError, checked.text).toBeFalsy();
    const report = JSON.parse(checked.text) as { checks: Array<{ id: string; status: string }> };
    expect(report.checks.filter((check) => check.status !== 'pass')).toEqual([]);

    // Another bot, one that breaks a rule of the API: its refusal comes back with the exchange.
    expect((await call('sandbox_stop')).text).toBe('sandbox stopped');
    const broken = await brokenBot(() => sandboxUrl);
    const restarted = await call('sandbox_start', { botUrl: broken, port: sandboxPort });
    expect(restarted.isError, restarted.text).toBeFalsy();
    const refused = await call('customer_say', { text: 'Hello?', wait: '5s' });
    expect(refused.isError, refused.text).toBeFalsy();
    const document = JSON.parse(refused.text.replace(/\n\(exit \d+\)$/, '')) as { refused: Array<{ status: number; problems?: unknown }> };
    expect(document.refused.length).toBeGreaterThan(0);
    expect(document.refused[0]!.status).toBe(400);
    expect(JSON.stringify(document.refused[0])).toMatch(/code/);
    // No answer reached the customer: the exit code of core customer say says so, beside the JSON.
    expect(refused.text).toMatch(/\n\(exit [46]\)$/);
  });

  it('answers a tool that needs a sandbox, with none running, by an error that says what to do', async () => {
    const { call } = await connect();
    const result = await call('customer_say', { text: 'Hi' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/no sandbox is running: start one with the sandbox_start tool/);
  });

  it("validates a payload with core's own rules, and reports each problem with its path as a tool error", async () => {
    const { call } = await connect();
    const valid = await call('payload_validate', {
      kind: 'reply',
      payload: { coreClientId: 1, answerId: '4a3a5d1e-8a3b-4f41-9d1e-6f7f5d1e2c3b', code: 'SUCCESS', text: 'Hello' },
    });
    expect(valid.isError, valid.text).toBeFalsy();
    const invalid = await call('payload_validate', { kind: 'reply', payload: { coreClientId: 1, code: 'DONE', text: 'Hello' } });
    expect(invalid.isError).toBe(true);
    expect(invalid.text).toMatch(/code/);
    expect(invalid.text).toMatch(/\(exit 2\)$/);
    expect(invalid.text).not.toMatch(/^\s+at /m);
  });

  it('refuses to send without confirm: true', async () => {
    const { call } = await connect();
    const result = await call('reply_send', { payload: { coreClientId: 1, code: 'SUCCESS', text: 'Hello' } }).catch((error: Error) => ({
      isError: true,
      content: [],
      text: error.message,
    }));
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/confirm/);
  });

  it('prints a payload schema', async () => {
    const { call } = await connect();
    const schema = await call('payload_schema', { kind: 'reply' });
    expect(schema.isError).toBeFalsy();
    expect(JSON.parse(schema.text)).toMatchObject({ $schema: expect.any(String) });
  });
});
