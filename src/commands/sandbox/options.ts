import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PayloadError, UsageError, type Problem } from '../../errors.js';
import { parseJson } from '../../payload/json.js';
import { sandboxDefaults, sandboxOptionProblems, type DuplicateMode, type SandboxOptions } from '../../sandbox/options.js';
import { prepareReasons } from '../../sandbox/seed.js';

/** The flags of `core sandbox` as typed, before checking. */
export interface SandboxFlags {
  port?: string;
  host?: string;
  tenants?: string[];
  token?: string;
  integratorToken?: string;
  duplicates?: string;
  reasons?: string;
  maxActiveReasons?: string;
  latency?: string;
  fail?: string;
}

/** The sandbox's options for `runSandbox`: everything but the log and the random source, which run supplies. */
export type SandboxRunOptions = Omit<SandboxOptions, 'log' | 'random'>;

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
};

/**
 * Turns the flags into sandbox options. Numbers must be written as plain decimals; their bounds
 * come from the sandbox's own checks (src/sandbox/options.ts), so they are stated once. A bad
 * flag is a UsageError naming it; a reasons file that breaks the reason schema is a PayloadError
 * listing every problem with its path in the file.
 */
export async function parseSandboxFlags(flags: SandboxFlags, cwd: string): Promise<SandboxRunOptions> {
  const options: SandboxRunOptions = {};
  if (flags.host !== undefined) options.host = flags.host;
  if (flags.port !== undefined) options.port = wholeNumber('--port', flags.port);
  if (flags.tenants !== undefined) options.tenants = flags.tenants;
  if (flags.token !== undefined) options.token = flags.token;
  if (flags.integratorToken !== undefined) options.integratorToken = flags.integratorToken;
  if (flags.duplicates !== undefined) options.duplicates = flags.duplicates.toLowerCase() as DuplicateMode;
  if (flags.maxActiveReasons !== undefined) options.maxActiveReasons = wholeNumber('--max-active-reasons', flags.maxActiveReasons);
  if (flags.latency !== undefined) options.latencyMs = wholeNumber('--latency', flags.latency.replace(/ms$/i, ''));
  if (flags.fail !== undefined) options.fail = parseFail(flags.fail);

  const problems = sandboxOptionProblems(options);
  if (problems.length > 0) {
    throw new UsageError(problems.map((p) => `${flagOf[p.path] ?? p.path}: ${p.message}`).join('; '), {
      hint: 'see core sandbox --help',
    });
  }

  if (flags.reasons !== undefined) {
    options.reasons = await readReasons(flags.reasons, cwd, options.maxActiveReasons ?? sandboxDefaults.maxActiveReasons);
  }
  return options;
}

function wholeNumber(flag: string, text: string): number {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) throw new UsageError(`${flag}: '${text}' is not a whole number`, { hint: 'see core sandbox --help' });
  return Number(trimmed);
}

/** `STATUS:RATE`, the rate a share from 0 to 1 (`0.25`) or a percentage (`25%`); `STATUS` alone fails every request. */
function parseFail(text: string): { status: number; rate: number } {
  const match = /^\s*(\d+)\s*(?::\s*(\d+(?:\.\d*)?|\.\d+)\s*(%?)\s*)?$/.exec(text);
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
