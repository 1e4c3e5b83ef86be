import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PayloadError, UsageError, type Problem } from '../errors.js';
import { parseJson } from '../payload/json.js';
import { sandboxDefaults, sandboxOptionProblems, type DuplicateMode, type SandboxOptions } from '../sandbox/options.js';
import { defaultReasons, prepareReasons } from '../sandbox/seed.js';
import { prepareAgents } from '../sandbox/agents-seed.js';
import { validateAgentsFile } from '../payload/agents.js';
import type { Reason } from '../payload/index.js';
import { decode, parseText } from '../input/files.js';
import { SCHEMA_KEY } from '../input/fields.js';
import { parseDuration } from '../config/duration.js';
import type { Env } from '../io.js';

/** The flags of `core sandbox` as typed, before checking. */
export interface SandboxFlags {
  port?: string;
  host?: string;
  tenants?: string[];
  token?: string;
  integratorToken?: string;
  duplicates?: string;
  reasons?: string;
  agents?: string;
  maxActiveReasons?: string;
  latency?: string;
  fail?: string;
  maxEvents?: string;
  allowHosts?: string[];
  maxConnections?: string;
  webhookConcurrency?: string;
  botUrl?: string;
  webhookSecret?: string;
  /** --new-webhook-secret: make a new kept secret (core sandbox only). */
  newWebhookSecret?: boolean;
  webhookTimeout?: string;
  webhookRetries?: string;
  /** --large-ids: every identifier above 2^53. */
  largeIds?: boolean;
  open?: boolean;
  /** --state FILE: the state file, relative to the working directory. */
  state?: string;
  /** --seed FILE: a seed applied to a sandbox that starts empty. */
  seed?: string;
}

/**
 * The sandbox's options for `runSandbox`: everything but the log and the random source, which run
 * supplies; and whether to open the page in a browser (--open).
 */
export type SandboxRunOptions = Omit<SandboxOptions, 'log' | 'random'> & { open?: boolean; newWebhookSecret?: boolean; seedFile?: string };

// Which flag sets each option, so a problem found by the sandbox's own checks names the flag.
const flagOf: Record<string, string> = {
  host: '--host',
  port: '--port',
  tenants: '--tenant',
  token: '--token',
  integratorToken: '--integrator-token',
  duplicates: '--duplicates',
  maxActiveReasons: '--max-active-reasons',
  latencyMs: '--latency',
  'fail.status': '--fail',
  'fail.rate': '--fail',
  maxEvents: '--max-events',
  botUrl: '--bot-url',
  webhookSecret: '--webhook-secret',
  webhookTimeoutMs: '--webhook-timeout',
  webhookRetries: '--webhook-retries',
  allowHosts: '--allow-host',
  maxConnections: '--max-connections',
  webhookConcurrency: '--webhook-concurrency',
  state: '--state',
};

/** The environment variable that sets the webhook secret when --webhook-secret is not given. */
export const WEBHOOK_SECRET_VARIABLE = 'CORE_SANDBOX_WEBHOOK_SECRET';

/**
 * Turns the flags into sandbox options. Numbers must be written as plain decimals; their bounds
 * come from the sandbox's own checks (src/sandbox/options.ts), so they are stated once. A bad
 * flag is a UsageError naming it; a reasons file that breaks the reason schema is a PayloadError
 * listing every problem with its path in the file.
 */
export async function parseSandboxFlags(flags: SandboxFlags, cwd: string, env: Env = {}): Promise<SandboxRunOptions> {
  const options: SandboxRunOptions = {};
  if (flags.open === true) options.open = true;
  if (flags.host !== undefined) options.host = flags.host;
  if (flags.port !== undefined) options.port = wholeNumber('--port', flags.port);
  if (flags.tenants !== undefined) options.tenants = flags.tenants;
  if (flags.token !== undefined) options.token = flags.token;
  if (flags.integratorToken !== undefined) options.integratorToken = flags.integratorToken;
  if (flags.duplicates !== undefined) options.duplicates = flags.duplicates.toLowerCase() as DuplicateMode;
  if (flags.maxActiveReasons !== undefined) options.maxActiveReasons = wholeNumber('--max-active-reasons', flags.maxActiveReasons);
  if (flags.latency !== undefined) options.latencyMs = wholeNumber('--latency', flags.latency.replace(/ms$/i, ''));
  if (flags.fail !== undefined) options.fail = parseFail(flags.fail);
  if (flags.maxEvents !== undefined) options.maxEvents = wholeNumber('--max-events', flags.maxEvents);
  if (flags.allowHosts !== undefined) options.allowHosts = flags.allowHosts;
  if (flags.maxConnections !== undefined) options.maxConnections = wholeNumber('--max-connections', flags.maxConnections);
  if (flags.webhookConcurrency !== undefined) {
    options.webhookConcurrency = wholeNumber('--webhook-concurrency', flags.webhookConcurrency);
  }
  if (flags.botUrl !== undefined) options.botUrl = flags.botUrl;
  if (flags.largeIds === true) options.largeIds = true;
  if (flags.state !== undefined) options.state = flags.state.trim() === '' ? flags.state : resolve(cwd, flags.state);
  if (flags.webhookTimeout !== undefined) options.webhookTimeoutMs = duration('--webhook-timeout', flags.webhookTimeout);
  if (flags.webhookRetries !== undefined) options.webhookRetries = wholeNumber('--webhook-retries', flags.webhookRetries);
  const secretFromEnv = env[WEBHOOK_SECRET_VARIABLE];
  if (flags.webhookSecret !== undefined) options.webhookSecret = flags.webhookSecret;
  else if (secretFromEnv !== undefined && secretFromEnv !== '') options.webhookSecret = secretFromEnv;
  if (flags.newWebhookSecret === true) options.newWebhookSecret = true;
  if (flags.newWebhookSecret === true && options.webhookSecret !== undefined) {
    const named = flags.webhookSecret !== undefined ? '--webhook-secret' : WEBHOOK_SECRET_VARIABLE;
    throw new UsageError(`--new-webhook-secret makes a new kept secret, but ${named} names the secret to sign with`, {
      hint:
        flags.webhookSecret !== undefined ? 'give one of the two' : `unset ${WEBHOOK_SECRET_VARIABLE} to make and use a new kept secret`,
    });
  }

  const problems = sandboxOptionProblems(options);
  if (problems.length > 0) {
    // A secret from the environment is named by its variable, so the user knows where to look.
    const name = (path: string) =>
      path === 'webhookSecret' && flags.webhookSecret === undefined ? WEBHOOK_SECRET_VARIABLE : (flagOf[path] ?? path);
    throw new UsageError(problems.map((p) => `${name(p.path)}: ${p.message}`).join('; '), {
      hint: 'see core sandbox --help',
    });
  }

  const maxActiveReasons = options.maxActiveReasons ?? sandboxDefaults.maxActiveReasons;
  if (flags.reasons !== undefined) {
    options.reasons = await readReasons(flags.reasons, cwd, maxActiveReasons);
  } else {
    // The built-in seed must fit the limit too: say so as a usage error naming the flag, rather than
    // starting with more active reasons than the limit allows.
    const seeded = defaultReasons.filter((reason) => (reason as { active?: boolean }).active !== false) as { code: string }[];
    if (seeded.length > maxActiveReasons) {
      throw new UsageError(
        `--max-active-reasons: ${maxActiveReasons} is below the ${seeded.length} active reasons of the built-in seed ` +
          `(${seeded.map((reason) => reason.code).join(', ')})`,
        {
          hint: `use --max-active-reasons ${seeded.length} or more, or give --reasons FILE with at most ${maxActiveReasons} active reasons`,
        },
      );
    }
  }
  if (flags.agents !== undefined) {
    const seeded = prepareReasons(options.reasons ?? defaultReasons, maxActiveReasons);
    options.agents = await readAgents(flags.agents, cwd, seeded.ok ? seeded.reasons : []);
  }
  if (flags.seed !== undefined) {
    const { readSeedFile } = await import('../input/seed-read.js');
    options.seed = await readSeedFile(flags.seed, cwd, '--seed');
    options.seedFile = flags.seed;
  }
  return options;
}

/**
 * The agents file of --agents (YAML or JSON, `core schema agents`): checked with its schema and
 * against the reasons the tenants start with (an agent starting away names an active one).
 */
async function readAgents(file: string, cwd: string, reasons: Reason[]): Promise<unknown[]> {
  const path = resolve(cwd, file);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--agents: cannot read ${file}${code ? ` (${code})` : ''}`, { cause: error });
  }
  const name = `--agents: ${file}`;
  const data = await parseText(decode(bytes, name), name, 'auto');
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !Array.isArray((data as { agents?: unknown }).agents)) {
    throw new UsageError(`--agents: ${file} must hold an object with a list of agents`, {
      hint: 'write agents: [{id: 101, name: Ann, skills: [12]}] (see core schema agents)',
    });
  }
  const { [SCHEMA_KEY]: _schema, ...rest } = data as Record<string, unknown>;
  const validated = validateAgentsFile(rest);
  const agents = (rest as { agents: unknown[] }).agents;
  const prepared = validated.ok ? prepareAgents(agents, reasons) : null;
  const problems: Problem[] = validated.ok
    ? prepared!.ok
      ? []
      : prepared!.problems.map((p) => ({ ...p, path: `agents${p.path}` }))
    : validated.problems;
  if (problems.length > 0) {
    throw new PayloadError(`--agents: ${file} holds ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}`, problems, {
      hint: 'fix the agents in the file; core schema agents prints its JSON Schema, docs/sandbox.md "Agents" explains it',
    });
  }
  return agents;
}

function duration(flag: string, text: string): number {
  try {
    return parseDuration(text);
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`, { hint: 'use a duration such as 10s, 2500ms or 1m', cause: error });
  }
}

function wholeNumber(flag: string, text: string): number {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) throw new UsageError(`${flag}: '${text}' is not a whole number`, { hint: 'see core sandbox --help' });
  return Number(trimmed);
}

/** `STATUS:RATE`, the rate a share from 0 to 1 (`0.25`) or a percentage (`25%`); `STATUS` alone fails every request. */
function parseFail(text: string): { status: number; rate: number } {
  // Trimmed first: with white space allowed at the end and around an optional '%', the pattern
  // backtracked over every split of a long run of spaces (quadratic; src/text.ts).
  const match = /^(\d+)\s*(?::\s*(\d+(?:\.\d*)?|\.\d+)\s*(%?))?$/.exec(text.trim());
  if (match === null) {
    throw new UsageError(`--fail: '${text}' is not STATUS:RATE`, {
      hint: 'for example --fail 503:0.2 answers 503 to a fifth of API requests',
    });
  }
  const status = Number(match[1]);
  const rate = match[2] === undefined ? 1 : Number(match[2]) / (match[3] === '%' ? 100 : 1);
  return { status, rate };
}

async function readReasons(file: string, cwd: string, maxActiveReasons: number): Promise<unknown[]> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--reasons: cannot read ${file}${code ? ` (${code})` : ''}`, { cause: error });
  }
  let data: unknown;
  try {
    data = parseJson(text);
  } catch (error) {
    throw new UsageError(`--reasons: ${file} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!Array.isArray(data)) {
    throw new UsageError(`--reasons: ${file} must hold a JSON array of inactivity reasons`, {
      hint: 'write [{"code": "LUNCH", "reasons": [{"locale": "en", "name": "Lunch"}]}]',
    });
  }
  const prepared = prepareReasons(data, maxActiveReasons);
  if (!prepared.ok) {
    const problems: Problem[] = prepared.problems;
    throw new PayloadError(`--reasons: ${file} holds ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}`, problems, {
      hint: 'fix the reasons in the file; see docs/sandbox.md',
    });
  }
  return data;
}
