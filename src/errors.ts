/**
 * Typed errors for every expected failure. Each carries the exit code docs/exit-codes.md assigns,
 * one clear line, and a hint of what to do next. src/main.ts is
 * the only place that turns them into output and an exit code.
 */

export const ExitCode = {
  ok: 0,
  internal: 1,
  usage: 2,
  /** `core test`: a conversation failed (docs/exit-codes.md). */
  testFailed: 3,
  http4xx: 4,
  http5xx: 5,
  network: 6,
  /** SIGHUP (a closed terminal, a dropped ssh session): 128 + 1, as the shell reports it. */
  hangup: 129,
  /** Interrupted by Ctrl-C (SIGINT) or SIGTERM. */
  interrupted: 130,
  /** Standard output or error closed while the command ran (`core ... | head -1`): 128 + SIGPIPE. */
  brokenPipe: 141,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** One problem found in a payload or a config file: where it is and what is wrong. */
export interface Problem {
  /** The field's path in the payload, written as `quickReplies[0].text`; empty for the whole value. */
  path: string;
  message: string;
}

/**
 * The most problems listed (docs/security.md, "Hostile input"): past it, a list holds the first ones
 * and one more entry that counts the rest, `… and 79,900 more`. A payload of 80,000 unknown fields is
 * answered in one short message, not a 1.8 MB one (in a 400 body, on stderr and in a log line alike).
 */
export const MAX_LISTED_PROBLEMS = 100;

const MORE = /^\u2026 and ([\d,]+) more$/;

/** The entry that stands for `n` problems left out of a list. */
export function moreProblems(n: number, path = ''): Problem {
  return { path, message: `… and ${String(n).replace(/\B(?=(\d{3})+$)/g, ',')} more` };
}

/** How many problems a list stands for: its entries, each one that counts others as that many. */
export function countProblems(problems: readonly Problem[]): number {
  let total = 0;
  for (const problem of problems) {
    const more = MORE.exec(problem.message);
    total += more ? Number(more[1]!.replace(/,/g, '')) : 1;
  }
  return total;
}

/** A list of problems as it is shown: at most MAX_LISTED_PROBLEMS of them, then one entry counting the rest. */
export function listedProblems(problems: readonly Problem[]): Problem[] {
  // A list within the bound, or one already made so (its first ones and its count), is shown as it is.
  const capped = problems.length === MAX_LISTED_PROBLEMS + 1 && MORE.test(problems.at(-1)!.message);
  if (problems.length <= MAX_LISTED_PROBLEMS || capped) return [...problems];
  const listed: Problem[] = [];
  let rest = 0;
  for (const problem of problems) {
    const more = MORE.exec(problem.message);
    if (more) rest += Number(more[1]!.replace(/,/g, ''));
    else if (listed.length < MAX_LISTED_PROBLEMS) listed.push(problem);
    else rest += 1;
  }
  return rest > 0 ? [...listed, moreProblems(rest)] : listed;
}

export interface CoreErrorOptions {
  hint?: string;
  cause?: unknown;
}

export class CoreError extends Error {
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  /** A short machine-readable code for `--json` output, such as `EUSAGE` or `ECONNREFUSED`. */
  readonly code: string;

  constructor(message: string, exitCode: ExitCode, code: string, options: CoreErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.code = code;
    this.hint = options.hint;
  }
}

/** Invalid usage: bad flags or arguments. Nothing was sent. */
export class UsageError extends CoreError {
  constructor(message: string, options?: CoreErrorOptions) {
    super(message, ExitCode.usage, 'EUSAGE', options);
  }
}

/** Invalid or incomplete configuration. Nothing was sent. */
export class ConfigError extends CoreError {
  readonly problems: Problem[];
  constructor(message: string, options: CoreErrorOptions & { problems?: Problem[] } = {}) {
    super(message, ExitCode.usage, 'ECONFIG', options);
    this.problems = listedProblems(options.problems ?? []);
  }
}

/** A payload (or input file) that breaks the API's rules. Nothing was sent. */
export class PayloadError extends CoreError {
  readonly problems: Problem[];
  constructor(message: string, problems: Problem[], options?: CoreErrorOptions) {
    super(message, ExitCode.usage, 'EPAYLOAD', options);
    this.problems = listedProblems(problems);
  }
}

/** No usable answer: connection, TLS or DNS failure, or a timeout. */
export class NetworkError extends CoreError {
  /** How many attempts ended this way (the HTTP client sets it after its retries). */
  attempts = 1;
  constructor(message: string, code: string, options?: CoreErrorOptions) {
    super(message, ExitCode.network, code, options);
  }
}

/** The user pressed Ctrl-C. */
export class InterruptedError extends CoreError {
  constructor(message = 'cancelled, nothing sent', options?: CoreErrorOptions) {
    super(message, ExitCode.interrupted, 'EINTERRUPTED', options);
  }
}

/** The exit code for an HTTP status, as the table of docs/exit-codes.md says. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status >= 200 && status < 300) return ExitCode.ok;
  if (status >= 500) return ExitCode.http5xx;
  if (status >= 400) return ExitCode.http4xx;
  // 1xx/3xx final answers are not success either; treat them as client-side surprises.
  return ExitCode.http4xx;
}
