import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { version } from '../../version.js';

/**
 * `core mcp` (docs/mcp.md): a Model Context Protocol server over stdio, on the official SDK.
 *
 * Each tool runs core itself, as a child process of the same core (`node -- <this bin> ...`), with
 * `--json`: the agent gets the same validation (the zod schemas of src/payload/), the same JSON
 * documents, messages, hints and exit codes, and the same masking of secrets as a user in a shell,
 * with no second copy of any rule. A failed run is a tool error (`isError`) carrying core's message
 * and hint from stderr. The sandbox the tools start is a `core sandbox --json` child that lives as
 * long as the session (or until `sandbox_stop`); the tools that act as the customer, read
 * conversations or run checks and tests go to it.
 */

/** The guides served as resources, as the package ships them (docs/*.md). */
const GUIDES = ['mcp', 'sandbox', 'testing-bots', 'check-bot', 'payloads', 'api', 'exit-codes', 'json-output'] as const;

/** The payload kinds `core schema` prints. */
const SCHEMA_KINDS = ['reply', 'greet', 'reason', 'message', 'seed', 'agents'] as const;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

interface RunningSandbox {
  child: ChildProcess;
  values: Record<string, string>;
  exited: Promise<void>;
}

/** What the tools of one session share: the context core mcp runs in, its binary, and the sandbox it started. */
interface Session {
  ctx: Context;
  bin: string;
  sandbox: RunningSandbox | undefined;
}

export async function runMcp(ctx: Context): Promise<number> {
  const [{ McpServer }, { StdioServerTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const session: Session = { ctx, bin: process.argv[1]!, sandbox: undefined };
  const server = new McpServer({ name: 'core', version: version() }, { instructions: INSTRUCTIONS });
  registerSandboxTools(server, session);
  registerCustomerTools(server, session);
  registerConversationTools(server, session);
  registerCheckTools(server, session);
  registerPayloadTools(server, session);
  registerGuides(server, session.bin);

  const transport = new StdioServerTransport(ctx.streams.stdin, ctx.streams.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    ctx.streams.stdin.once('end', () => resolve());
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  ctx.err(`core mcp: serving over stdio (core ${version()})\n`);
  await closed;
  await stopSandbox(session);
  await server.close();
  return ExitCode.ok;
}

/** The environment of a child core: the session's, pointed at the sandbox while one runs. */
const childEnv = (session: Session): NodeJS.ProcessEnv => ({ ...session.ctx.env, ...(session.sandbox?.values ?? {}), NO_COLOR: '1' });

/** Runs core with `args` (and `input` on stdin) and returns what it printed. */
const runCore = (session: Session, args: string[], input?: string): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--', session.bin, ...args], {
      cwd: session.ctx.cwd,
      env: childEnv(session),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });

/** A run as a tool's result: stdout, and core's error (message and hint) as a tool error unless `code` is one of `results`. */
function answer(ran: Ran, results: readonly number[] = [ExitCode.ok]): ToolResult {
  if (results.includes(ran.code)) {
    const text = ran.stdout.trim() === '' ? ran.stderr.trim() : ran.stdout;
    return { content: [{ type: 'text', text: `${text}${ran.code === 0 ? '' : `\n(exit ${ran.code})`}` }] };
  }
  const said = ran.stderr.trim();
  return {
    isError: true,
    content: [{ type: 'text', text: `${said === '' ? ran.stdout.trim() : said}\n(exit ${ran.code})` }],
  };
}

const failure = (text: string): ToolResult => ({ isError: true, content: [{ type: 'text', text }] });
const needsSandbox = (session: Session) =>
  session.sandbox === undefined ? failure('no sandbox is running: start one with the sandbox_start tool') : undefined;

/** A request to the running sandbox's own endpoints, answered with the body as the sandbox wrote it. */
async function sandboxRequest(session: Session, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ToolResult> {
  const missing = needsSandbox(session);
  if (missing) return missing;
  const { requestJson } = await import('../../platform/http.js');
  const result = await requestJson(
    { baseUrl: session.sandbox!.values.CORE_BASE_URL!, timeoutMs: 30_000, signal: session.ctx.signal },
    method,
    path,
    body,
  );
  if (result.status >= 400) return failure(`the sandbox answered ${result.status}: ${result.text}`);
  return { content: [{ type: 'text', text: result.text }] };
}

async function stopSandbox(session: Session): Promise<boolean> {
  const running = session.sandbox;
  if (running === undefined) return false;
  session.sandbox = undefined;
  running.child.kill('SIGTERM');
  await running.exited;
  return true;
}

/** Starts `core sandbox --json` for the session and answers with its CORE_* values. */
async function startSandbox(
  session: Session,
  { botUrl, port, duplicates }: { botUrl?: string; port?: number; duplicates?: 'strict' | 'soft' },
): Promise<ToolResult> {
  if (session.sandbox !== undefined)
    return failure(`a sandbox is already running at ${session.sandbox.values.CORE_BASE_URL}: stop it with sandbox_stop first`);
  const args = ['sandbox', '--json', '--port', String(port ?? 0)];
  if (botUrl !== undefined) args.push('--bot-url', botUrl);
  if (duplicates !== undefined) args.push('--duplicates', duplicates);
  const child = spawn(process.execPath, ['--', session.bin, ...args], {
    cwd: session.ctx.cwd,
    env: childEnv(session),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // The first line is the CORE_* values; the event lines after it are read and passed over (the
  // conversation tools read the sandbox's state), so the pipe never fills.
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string | undefined>((resolve) => {
    lines.once('line', resolve);
    void exited.then(() => resolve(undefined));
  });
  if (first === undefined) return failure(stderr.trim() === '' ? 'the sandbox did not start' : stderr.trim());
  const values = JSON.parse(first) as Record<string, string>;
  session.sandbox = { child, values, exited };
  const bot = botUrl === undefined ? 'no bot connected: customer messages are recorded, no webhook is sent' : `webhooks go to ${botUrl}`;
  return { content: [{ type: 'text', text: `${JSON.stringify(values, null, 2)}\n${bot}` }] };
}

/** sandbox_start and sandbox_stop: the session's one sandbox. */
function registerSandboxTools(server: McpServer, session: Session): void {
  server.registerTool(
    'sandbox_start',
    {
      title: 'Start a sandbox',
      description:
        "Start a local sandbox of the platform (core sandbox) for this session, delivering a signed MESSAGE webhook for each customer message to the bot at botUrl. Returns the sandbox's CORE_* values (its base URL, tenant, test token and the webhook secret the bot verifies with: test values, not secrets). One sandbox at a time; it stops with the session.",
      inputSchema: {
        botUrl: z
          .string()
          .url()
          .optional()
          .describe('where the bot listens for the MESSAGE webhook, such as http://127.0.0.1:3000/webhook'),
        port: z.number().int().min(0).max(65535).optional().describe('port to listen on (default: a free one)'),
        duplicates: z
          .enum(['strict', 'soft'])
          .optional()
          .describe('a second answer to an answered question: rejected (strict) or delivered (soft)'),
      },
    },
    async (input) => startSandbox(session, input),
  );

  server.registerTool(
    'sandbox_stop',
    { title: 'Stop the sandbox', description: "Stop the session's sandbox; its conversations are gone.", inputSchema: {} },
    async () => ({ content: [{ type: 'text', text: (await stopSandbox(session)) ? 'sandbox stopped' : 'no sandbox was running' }] }),
  );
}

/** A length of time as core's --wait and --timeout take it (10s, 500ms, 2m). */
const durationField = () =>
  z
    .string()
    .regex(/^\d+(ms|s|m)?$/)
    .optional();

/** customer_say and customer_press: the customer's side of a conversation with the sandbox's bot. */
function registerCustomerTools(server: McpServer, session: Session): void {
  const waitField = durationField().describe("how long to wait for the bot's answers, such as 10s (default 10s)");
  server.registerTool(
    'customer_say',
    {
      title: 'Say something as the customer',
      description:
        "Send a customer message to the sandbox (core customer say --json) and wait for the bot's answers: the JSON has the sessionId, the question, the webhook attempts, the answers and the bot's requests the sandbox refused. Without session it starts a new conversation.",
      inputSchema: {
        text: z.string().min(1).describe('what the customer says'),
        session: z.string().min(1).optional().describe('the sessionId of a conversation to go on with, or "last"'),
        channel: z.enum(['WEB', 'IM', 'EMAIL', 'web', 'im', 'email']).optional().describe('the channel of a new conversation'),
        wait: waitField,
      },
    },
    async ({ text, session: sessionId, channel, wait }) => {
      const missing = needsSandbox(session);
      if (missing) return missing;
      const args = [
        'customer',
        'say',
        '--json',
        ...(sessionId ? ['--session', sessionId] : []),
        ...(channel ? ['--channel', channel] : []),
      ];
      if (wait !== undefined) args.push('--wait', wait);
      // Exit 6 (no answer in time) and 4 (the sandbox refused the bot) are results the JSON describes.
      return answer(await runCore(session, [...args, '--', text]), [ExitCode.ok, 4, 6]);
    },
  );

  server.registerTool(
    'customer_press',
    {
      title: 'Press a button as the customer',
      description:
        "Press a quick-reply button or pick a list item of the bot's last message (by its text, title or identifier), then wait for the answers as customer_say does.",
      inputSchema: { label: z.string().min(1), session: z.string().min(1).describe('the sessionId, or "last"'), wait: waitField },
    },
    async ({ label, session: sessionId, wait }) => {
      const missing = needsSandbox(session);
      if (missing) return missing;
      const args = ['customer', 'press', '--json', '--session', sessionId, ...(wait === undefined ? [] : ['--wait', wait])];
      return answer(await runCore(session, [...args, '--', label]), [ExitCode.ok, 4, 6]);
    },
  );
}

/** conversations_list, conversation_read and webhook_redeliver: the sandbox's own endpoints. */
function registerConversationTools(server: McpServer, session: Session): void {
  server.registerTool(
    'conversations_list',
    { title: 'List conversations', description: "The sandbox's conversations (GET /_sandbox/conversations).", inputSchema: {} },
    async () => sandboxRequest(session, 'GET', '/_sandbox/conversations'),
  );

  server.registerTool(
    'conversation_read',
    {
      title: 'Read a conversation',
      description:
        'One conversation with its state and every event in order: customer messages, bot answers (delivered or not, and why), webhook attempts with status and latency, refused requests (GET /_sandbox/conversations/{sessionId}).',
      inputSchema: { session: z.string().min(1) },
    },
    async ({ session: sessionId }) => sandboxRequest(session, 'GET', `/_sandbox/conversations/${encodeURIComponent(sessionId)}`),
  );

  server.registerTool(
    'webhook_redeliver',
    {
      title: 'Redeliver a webhook',
      description:
        'Deliver a MESSAGE webhook to the bot again, as the platform redelivers (POST /_sandbox/deliveries/{deliveryId}/redeliver).',
      inputSchema: { deliveryId: z.string().min(1) },
    },
    async ({ deliveryId }) => sandboxRequest(session, 'POST', `/_sandbox/deliveries/${encodeURIComponent(deliveryId)}/redeliver`, {}),
  );
}

/** check_bot and run_tests: core check-bot and core test against the session's sandbox and its bot. */
function registerCheckTools(server: McpServer, session: Session): void {
  server.registerTool(
    'check_bot',
    {
      title: 'Grade the bot',
      description:
        "Run core check-bot against the session's sandbox and its bot: the webhook's contract (signatures, timestamps, replays, retries, addressing, ids), as a JSON report with each check's status, what happened and the fix.",
      inputSchema: {
        only: z.array(z.string().min(1)).optional().describe('run only these checks (an id, or the part before its dot)'),
        timeout: durationField().describe('how long an answer may take (default 10s)'),
      },
    },
    async ({ only, timeout }) => {
      const missing = needsSandbox(session);
      if (missing) return missing;
      const args = ['check-bot', '--sandbox', session.sandbox!.values.CORE_BASE_URL!, '--reporter', 'json'];
      if (timeout !== undefined) args.push('--timeout', timeout);
      if (only !== undefined && only.length > 0) args.push('--only', ...only);
      // Exit 3 is a check that failed: the report says which.
      return answer(await runCore(session, args), [ExitCode.ok, 3]);
    },
  );

  server.registerTool(
    'run_tests',
    {
      title: 'Run conversation tests',
      description:
        "Run core test on conversation files (YAML or JSON, docs/testing-bots.md) against the session's sandbox and its bot, and return the JSON report.",
      inputSchema: {
        files: z.array(z.string().min(1)).min(1).describe('test files, relative to the folder core mcp runs in'),
        repeat: z.number().int().min(1).max(100_000).optional(),
        timeout: durationField().describe('how long each step waits (default 10s)'),
      },
    },
    async ({ files, repeat, timeout }) => {
      const missing = needsSandbox(session);
      if (missing) return missing;
      const args = ['test', '--sandbox', session.sandbox!.values.CORE_BASE_URL!, '--reporter', 'json'];
      if (repeat !== undefined) args.push('--repeat', String(repeat));
      if (timeout !== undefined) args.push('--timeout', timeout);
      return answer(await runCore(session, [...args, '--', ...files]), [ExitCode.ok, 3]);
    },
  );
}

/** payload_schema, payload_validate and the tools that send (reply_send, greet_send, reason_update). */
function registerPayloadTools(server: McpServer, session: Session): void {
  server.registerTool(
    'payload_schema',
    {
      title: 'Print a JSON Schema',
      description:
        'The JSON Schema of a payload: the bot answer (reply), the greeting (greet), an inactivity reason, or the MESSAGE webhook.',
      inputSchema: { kind: z.enum(SCHEMA_KINDS) },
    },
    async ({ kind }) => answer(await runCore(session, ['schema', kind])),
  );

  const payloadField = z.record(z.string(), z.unknown()).describe('the JSON body, as the API takes it (docs/payloads.md)');
  server.registerTool(
    'payload_validate',
    {
      title: 'Validate a payload',
      description:
        'Check a bot answer (reply) or greeting (greet) against every rule of the API, sending nothing (core reply|greet --dry-run): the request that would be sent, or each problem with its path and limit.',
      inputSchema: { kind: z.enum(['reply', 'greet']), payload: payloadField },
    },
    async ({ kind, payload }) => answer(await runCore(session, [kind, '--file', '-', '--dry-run', '--json'], JSON.stringify(payload))),
  );

  const confirmField = z.literal(true).describe('must be true: this sends a real request');
  const sendTool = (name: string, title: string, args: string[], what: string) =>
    server.registerTool(
      name,
      {
        title,
        description: `${what} Sent to the session's sandbox while one runs, else to the service your core configuration names. Only with confirm: true.`,
        inputSchema: { payload: payloadField, confirm: confirmField },
      },
      async ({ payload }) => answer(await runCore(session, [...args, '--file', '-', '--json'], JSON.stringify(payload))),
    );
  sendTool('reply_send', 'Send a bot answer', ['reply'], 'Send a bot answer (POST /api/v1/chatbot) with core reply.');
  sendTool('greet_send', 'Send a greeting', ['greet'], 'Send a greeting (POST /api/v1/chatbot/greet) with core greet.');
  sendTool(
    'reason_update',
    'Update inactivity reasons',
    ['reason', 'update'],
    'Update inactivity reasons (PUT /api/v1/inactivity/reasons) with core reason update.',
  );
}

/** The guides as resources (core://docs/NAME.md), read from the docs/ folder the package ships beside its bin. */
function registerGuides(server: McpServer, bin: string): void {
  const docs = join(dirname(bin), '..', 'docs');
  for (const guide of GUIDES) {
    const uri = `core://docs/${guide}.md`;
    server.registerResource(guide, uri, { title: `docs/${guide}.md`, mimeType: 'text/markdown' }, async () => ({
      contents: [{ uri, mimeType: 'text/markdown', text: await readFile(join(docs, `${guide}.md`), 'utf8') }],
    }));
  }
}

const INSTRUCTIONS =
  "core develops and tests chatbots of a customer-messaging platform. Typical session: sandbox_start with the bot's " +
  'webhook URL (give the bot the returned CORE_WEBHOOK_SECRET, CORE_BASE_URL and CORE_TOKEN), customer_say to play ' +
  'the customer, conversation_read to see what happened (refused requests say why), check_bot to grade the webhook ' +
  'handling, run_tests for conversation tests. Payload rules: payload_schema and payload_validate. Sending tools need ' +
  'confirm: true. The guides are resources under core://docs/.';
