import * as z from 'zod/mini';
import type { Problem } from '../errors.js';
import { parseProxyUrl } from '../proxy-settings.js';
import { parseDuration } from './duration.js';
import { isRecord } from '../payload/json.js';
import { MASK, MIN_MASKED_LENGTH } from '../mask.js';
import { checkToken } from './token.js';
import { suggest } from '../text/suggest.js';
import { webhookSecretProblem } from '../sandbox/signature.js';

/**
 * The config file's schema (docs/configuration.md, "Keys"). It is strict: an unknown key is an
 * error, reported with its path and, where one is close, the key that was probably meant. Every
 * problem in a file is reported at once (`validateConfig`).
 *
 * Messages never quote a token's value, nor a header's value (headers may carry credentials).
 */

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// RFC 9110 "token": the characters a header field name may hold.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers that `headers` may not set: the API's own, and those the HTTP layer computes. */
const RESERVED_HEADERS = new Set(['x-tenant-name', 'content-type', 'content-length', 'host', 'transfer-encoding', 'connection']);
// Control characters (CR and LF above all) would break a request header or smuggle another one.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

const TOKEN_FORMS = 'a string, {env: NAME} or {command: "..."}';

/**
 * What an HTTP header value may hold, as node:http checks it before it sends a request: tab, 0x20 to
 * 0x7E and 0x80 to 0xFF (RFC 9110's field-vchar, SP, HTAB and obs-text). A line break would end the
 * header and could start another; node:http throws ERR_INVALID_CHAR for anything else, which would
 * otherwise surface as a failed request (exit 6) after the settings were accepted. A regular
 * expression rather than a refinement, so that the JSON Schema carries it to editors as a pattern.
 */
const HEADER_VALUE_CHARACTERS = '\\t\\u0020-\\u007e\\u0080-\\u00ff';
const HEADER_VALUE = new RegExp(`^[${HEADER_VALUE_CHARACTERS}]*$`);
const NOT_IN_HEADER_VALUE = new RegExp(`[^${HEADER_VALUE_CHARACTERS}]`, 'u');

/** The words for a header value's rule, in messages and hints. */
export const HEADER_VALUE_RULE = 'tab, printable ASCII and Latin-1 (U+0080 to U+00FF)';

/**
 * Why `value` cannot be sent as an HTTP header value, or undefined when it can: the first character
 * outside the rule, by its code point. `quote: false` leaves out the character itself, for a value
 * that may be a credential (a profile's header).
 */
export function headerValueProblem(value: string, { quote = true }: { quote?: boolean } = {}): string | undefined {
  if (/[\r\n]/.test(value)) return 'holds a line break';
  const found = NOT_IN_HEADER_VALUE.exec(value);
  if (found === null) return undefined;
  const point = found[0].codePointAt(0)!;
  const code = `U+${point.toString(16).toUpperCase().padStart(4, '0')}`;
  if (point < 0x20 || point === 0x7f) return `holds a control character (${code})`;
  return quote ? `holds ${JSON.stringify(found[0])} (${code})` : `holds ${code}`;
}

/**
 * Why a tenant cannot be used, or undefined when it can: it is sent as X-Tenant-Name (docs/api.md),
 * so it follows the header value rule. The tenant is no secret, so the message quotes it.
 */
export function tenantProblem(value: string): string | undefined {
  const problem = headerValueProblem(value);
  return problem === undefined ? undefined : `${JSON.stringify(value)} ${problem}, which the X-Tenant-Name header cannot carry`;
}

/** The hint of every refused tenant. */
export const TENANT_HINT = `the tenant is sent as the X-Tenant-Name header, which carries ${HEADER_VALUE_RULE} only, with no line break: use the tenant name the service gave you`;

/**
 * A URL that did not parse, quoted with whatever stands before its last `@` masked: a user name and
 * password there are secrets (docs/security.md, "Secrets"), and the parser did not find them to say.
 */
function withoutUserinfo(value: string): string {
  const at = value.lastIndexOf('@');
  if (at === -1) return value;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? '';
  return `${scheme}${MASK}${value.slice(at)}`;
}

/** Why a base URL is unusable, or undefined when it is fine. Exported for the flag and env checks. */
export function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(withoutUserinfo(value))} is not an absolute URL (such as https://chat.example.com)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must be an http or https URL, not ${url.protocol.slice(0, -1)}`;
  }
  // Credentials in the URL would be printed by `config show` and sent to proxies; tokens have their own keys.
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password; use token';
  if (url.search !== '' || url.hash !== '')
    return `${JSON.stringify(`${url.origin}${url.pathname}`)} with a query or fragment is not a base URL`;
  return undefined;
}

/** Why a proxy URL is unusable, or undefined when it is fine. Never quotes the value: it may hold a password. */
export function proxyProblem(value: string): string | undefined {
  if (CONTROL.test(value)) return 'must not hold a line break or control character';
  const parsed = parseProxyUrl(value);
  return 'problem' in parsed ? parsed.problem : undefined;
}

/** Why a duration is unusable, or undefined when it is fine. */
export function durationProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return 'must be milliseconds or a duration such as 30s';
  try {
    parseDuration(value);
    return undefined;
  } catch (error) {
    return `${(error as Error).message}; use milliseconds or a duration such as 500ms, 30s, 2m, 1m30s`;
  }
}

const nonEmpty = (what: string) => z.string({ error: `must be ${what}` }).check(z.minLength(1, { error: `must be ${what}, not empty` }));

// The whole rule is checkToken's (src/config/token.ts); the length is written here too so that the
// JSON Schema carries it to editors.
const tokenString = z.string().check(
  z.minLength(MIN_MASKED_LENGTH),
  z.refine((value) => 'token' in checkToken(value)),
);

/** A token: a literal string, `{env: NAME}` or `{command: "..."}`. */
export const secretSpecSchema = z.union(
  [
    tokenString,
    z.strictObject({ env: z.string().check(z.regex(ENV_NAME)) }),
    z.strictObject({ command: z.string().check(z.minLength(1)) }),
  ],
  // validateConfig replaces this with a precise message made from the raw value (tokenProblems).
  { error: `must be ${TOKEN_FORMS}` },
);

/**
 * The platform's webhook signing secret (`core bridge` verifies deliveries with it): a literal
 * `whsec_...` string, `{env: NAME}` or `{command: "..."}`; a secret like a token, never printed.
 */
export const webhookSecretSpecSchema = z.union(
  [
    z
      .string()
      .check(
        z.refine((value) => webhookSecretProblem(value) === undefined, { error: (issue) => webhookSecretProblem(String(issue.input)) }),
      ),
    z.strictObject({ env: z.string().check(z.regex(ENV_NAME)) }),
    z.strictObject({ command: z.string().check(z.minLength(1)) }),
  ],
  { error: 'must be a whsec_... secret, {env: NAME} or {command: "..."}' },
);

const baseUrlSchema = z
  .string({ error: 'must be a URL string such as https://chat.example.com' })
  .check(z.refine((value) => baseUrlProblem(value) === undefined, { error: (issue) => baseUrlProblem(String(issue.input)) }));

const timeoutSchema = z
  .union([z.number(), z.string()], { error: 'must be milliseconds or a duration such as 30s' })
  .check(z.refine((value) => durationProblem(value) === undefined, { error: (issue) => durationProblem(issue.input) }));

const proxySchema = z
  .string({ error: 'must be a proxy URL string such as http://proxy.example.com:3128' })
  .check(z.refine((value) => proxyProblem(value) === undefined, { error: (issue) => proxyProblem(String(issue.input)) }));

const caFileSchema = nonEmpty('the path of a PEM file holding CA certificates');

const retriesSchema = z
  .int({ error: (issue) => `must be a whole number from 0 to 10, not ${describe(issue.input)}` })
  .check(
    z.gte(0, { error: (issue) => `${describe(issue.input)} is below the minimum 0` }),
    z.lte(10, { error: (issue) => `${describe(issue.input)} is above the limit 10` }),
  );

const positiveInt = z
  .int({ error: (issue) => `must be a whole number of 1 or more, not ${describe(issue.input)}` })
  .check(z.gte(1, { error: (issue) => `${describe(issue.input)} is below the minimum 1` }));

const limitsSchema = z.strictObject(
  { maxQuickReplies: z.optional(positiveInt), maxQuickReplyLength: z.optional(positiveInt) },
  { error: 'must be a mapping such as {maxQuickReplies: 10, maxQuickReplyLength: 40}' },
);

const headersSchema = z.record(
  z.string().check(
    z.regex(HEADER_NAME, { error: 'is not a valid header name (letters, digits and -)' }),
    // The API's own headers come from the settings, so the precedence of flags, environment and
    // profile holds for them; a profile may replace Authorization (another credential format).
    z.refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), {
      error: (issue) =>
        `${String(issue.input)} is set by core itself (the tenant from tenant / --tenant / CORE_TENANT; the body is JSON), not by headers`,
    }),
  ),
  z.string({ error: 'a header value must be a string (quote numbers)' }).check(
    z.regex(HEADER_VALUE, {
      // Never the value itself: a header may carry a credential.
      error: (issue) =>
        `a header value must hold only ${HEADER_VALUE_RULE}: this one ${headerValueProblem(String(issue.input), { quote: false })}`,
    }),
  ),
  { error: 'must be a mapping of header names to values, such as {X-Extra: value}' },
);

export const profileSchema = z.strictObject(
  {
    baseUrl: z.optional(baseUrlSchema),
    tenant: z.optional(
      nonEmpty('the tenant name (a string)').check(z.regex(HEADER_VALUE, { error: (issue) => tenantProblem(String(issue.input)) })),
    ),
    token: z.optional(secretSpecSchema),
    integratorToken: z.optional(secretSpecSchema),
    webhookSecret: z.optional(webhookSecretSpecSchema),
    headers: z.optional(headersSchema),
    timeout: z.optional(timeoutSchema),
    retries: z.optional(retriesSchema),
    limits: z.optional(limitsSchema),
    proxy: z.optional(proxySchema),
    caFile: z.optional(caFileSchema),
  },
  { error: 'must be a mapping of settings (baseUrl, tenant, token, ...)' },
);

/** The whole config file. `$schema` lets an editor point at a JSON Schema of this file. */
export const configSchema = z.strictObject(
  {
    $schema: z.optional(z.string({ error: 'must be a string (the URL or path of a JSON Schema)' })),
    defaultProfile: z.optional(nonEmpty('the name of a profile')),
    profiles: z.optional(z.record(z.string(), profileSchema, { error: 'must be a mapping of profile names to their settings' })),
  },
  { error: 'must be a mapping with profiles (and optionally defaultProfile)' },
);

export type ConfigFile = z.infer<typeof configSchema>;
export type ProfileConfig = z.infer<typeof profileSchema>;

const TOP_KEYS = ['$schema', 'defaultProfile', 'profiles'];
const PROFILE_KEYS = [
  'baseUrl',
  'tenant',
  'token',
  'integratorToken',
  'webhookSecret',
  'headers',
  'timeout',
  'retries',
  'limits',
  'proxy',
  'caFile',
];
const LIMIT_KEYS = ['maxQuickReplies', 'maxQuickReplyLength'];
const TOKEN_KEYS = ['env', 'command'];

/**
 * Validates a loaded config file. Returns the typed config, or every problem found, each naming the
 * key's path. An empty file is a valid, empty config.
 */
export function validateConfig(raw: unknown): { config: ConfigFile; problems: [] } | { config: undefined; problems: Problem[] } {
  if (raw === undefined) return { config: {}, problems: [] };
  const result = configSchema.safeParse(raw);
  const problems: Problem[] = result.success ? [] : result.error.issues.flatMap((issue) => issueProblems(issue, raw));
  problems.push(...defaultProfileProblems(raw));
  if (problems.length === 0 && result.success) return { config: result.data, problems: [] };
  return { config: undefined, problems: sortByDocument(dedupe(problems), raw) };
}

type Segment = string | number;
type Issue = z.core.$ZodIssue;

function issueProblems(issue: Issue, raw: unknown): Problem[] {
  const at = issue.path as Segment[];
  // A token matched none of its forms, or zod chose the nearest form and reported inside it: either
  // way the message is made from the raw value, which knows what the user was aiming at.
  if (isTokenPath(at)) {
    const tokenPath = at.slice(0, 3);
    return tokenProblems(tokenPath, valueAt(raw, tokenPath));
  }
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({ path: formatPath([...at, key]), message: unknownKeyMessage(at, key) }));
    case 'invalid_union':
      return [{ path: formatPath(at), message: issue.message }];
    case 'invalid_key':
      return [{ path: formatPath(at), message: issue.issues[0]?.message ?? issue.message }];
    default:
      return [{ path: formatPath(at), message: issue.message }];
  }
}

function isTokenPath(at: Segment[]): boolean {
  return at.length >= 3 && at[0] === 'profiles' && (at[2] === 'token' || at[2] === 'integratorToken');
}

/** Precise problems for a token value that matched none of its three forms. Never quotes the value. */
function tokenProblems(at: Segment[], value: unknown): Problem[] {
  const path = formatPath(at);
  if (value === null || value === undefined) return [{ path, message: `is empty; use ${TOKEN_FORMS}` }];
  if (typeof value === 'string') {
    if (value === '') return [{ path, message: `must not be empty; use ${TOKEN_FORMS}` }];
    const checked = checkToken(value);
    return [{ path, message: 'problem' in checked ? checked.problem : `must be ${TOKEN_FORMS}` }];
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    return [{ path, message: `must be ${TOKEN_FORMS}; a literal token must be quoted` }];
  }
  if (Array.isArray(value) || typeof value !== 'object') return [{ path, message: `must be ${TOKEN_FORMS}` }];
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const problems: Problem[] = [];
  for (const key of keys.filter((k) => !TOKEN_KEYS.includes(k))) {
    const guess = suggest(key, TOKEN_KEYS);
    problems.push({
      path: formatPath([...at, key]),
      message: guess ? `unknown key; did you mean "${guess}"?` : `unknown key; a token is ${TOKEN_FORMS}`,
    });
  }
  if ('env' in record && 'command' in record) {
    problems.push({ path, message: 'give either env or command, not both' });
  }
  if ('env' in record && (typeof record.env !== 'string' || !ENV_NAME.test(record.env))) {
    problems.push({
      path: formatPath([...at, 'env']),
      message: 'must be the name of an environment variable (letters, digits and _, not starting with a digit)',
    });
  }
  if ('command' in record && (typeof record.command !== 'string' || record.command.trim() === '')) {
    problems.push({ path: formatPath([...at, 'command']), message: 'must be a shell command that prints the token' });
  }
  if (problems.length === 0) problems.push({ path, message: `must be ${TOKEN_FORMS}` });
  return problems;
}

function unknownKeyMessage(at: Segment[], key: string): string {
  const known = knownKeys(at);
  const guess = suggest(key, known);
  if (guess) return `unknown key; did you mean "${guess}"?`;
  if (at.length === 0 && PROFILE_KEYS.includes(key)) {
    return 'unknown key; profile settings go under profiles.<name>, such as profiles.staging.' + key;
  }
  return `unknown key; expected one of ${known.join(', ')}`;
}

function knownKeys(at: Segment[]): string[] {
  if (at.length === 0) return TOP_KEYS;
  if (at.length === 2 && at[0] === 'profiles') return PROFILE_KEYS;
  if (at.length === 3 && at[2] === 'limits') return LIMIT_KEYS;
  return [];
}

function defaultProfileProblems(raw: unknown): Problem[] {
  if (!isRecord(raw) || typeof raw.defaultProfile !== 'string' || raw.defaultProfile === '') return [];
  const profiles = isRecord(raw.profiles) ? Object.keys(raw.profiles) : [];
  if (profiles.includes(raw.defaultProfile)) return [];
  const name = JSON.stringify(raw.defaultProfile);
  if (profiles.length === 0) return [{ path: 'defaultProfile', message: `names profile ${name}, but no profiles are defined` }];
  const guess = suggest(raw.defaultProfile, profiles);
  return [
    {
      path: 'defaultProfile',
      message: `names profile ${name}, which does not exist; ${guess ? `did you mean "${guess}"? ` : ''}profiles: ${profiles.join(', ')}`,
    },
  ];
}

/** "Did you mean": one rule for the config file, profiles and payloads (src/text/suggest.ts). */
export { suggest };

/** `profiles.staging.timeout`; keys that are not plain words are quoted: `profiles["my team"].tenant`. */
export function formatPath(path: readonly Segment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

function valueAt(raw: unknown, path: readonly Segment[]): unknown {
  let value = raw;
  for (const segment of path) {
    if (!isRecord(value) && !Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** A short description of a number or other scalar for messages (never used for token or header values). */
function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null) return 'empty';
  return Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'a mapping' : typeof value;
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Orders problems as their keys appear in the file, so the list reads top to bottom. */
function sortByDocument(problems: Problem[], raw: unknown): Problem[] {
  const rank = (path: string): number[] => {
    const ranks: number[] = [];
    let value = raw;
    for (const segment of parsePath(path)) {
      if (!isRecord(value)) break;
      const index = Object.keys(value).indexOf(segment);
      ranks.push(index === -1 ? Number.MAX_SAFE_INTEGER : index);
      value = value[segment];
    }
    return ranks;
  };
  const ranked = problems.map((problem, order) => ({ problem, order, rank: rank(problem.path) }));
  ranked.sort((a, b) => {
    for (let i = 0; i < Math.min(a.rank.length, b.rank.length); i += 1) {
      if (a.rank[i] !== b.rank[i]) return a.rank[i]! - b.rank[i]!;
    }
    return a.rank.length - b.rank.length || a.order - b.order;
  });
  return ranked.map((r) => r.problem);
}

function parsePath(path: string): string[] {
  const segments: string[] = [];
  const pattern = /([A-Za-z_$][\w$-]*)|\[("(?:[^"\\]|\\.)*"|\d+)\]/g;
  for (const match of path.matchAll(pattern)) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(match[2].startsWith('"') ? (JSON.parse(match[2]) as string) : match[2]);
  }
  return segments;
}
