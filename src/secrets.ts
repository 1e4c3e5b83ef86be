import type { Settings } from './config/index.js';
import { checkToken, TOKEN_HINT } from './config/token.js';
import type { Context } from './context.js';
import { ConfigError } from './errors.js';
import { isShownRequestHeader } from './mask.js';

/**
 * Which header values may be printed is `isShownRequestHeader`'s to say (src/mask.ts): those of a
 * short list of headers that never carry a credential. Every other value is masked where a header is
 * printed, and registered here as a secret, so that no echo of it is printed either.
 */
export { isShownRequestHeader, maskedHeaderValue, SHOWN_HEADER_NAMES } from './mask.js';

/**
 * Response headers that carry credentials, masked by name in --verbose (an answer's other headers,
 * X-Request-Id, Retry-After, are what --verbose is for); a response header that echoes a secret is
 * masked by value besides.
 */
const SENSITIVE_RESPONSE_HEADER = /auth|cookie|token|secret|password|passwd|api-?key|key|signature|session|credential|jwt|private|bearer/i;

export function isSensitiveResponseHeader(name: string): boolean {
  return SENSITIVE_RESPONSE_HEADER.test(name);
}

/** Whether the profile's headers carry their own Authorization header, which then replaces the token. */
export function headersCarryAuthorization(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
}

/**
 * Registers the value of every masked profile header as a secret: the whole value and each of its
 * words that are not letters only (`Integrator 6f1c…` registers `6f1c…`, not `Integrator`), so that
 * no output can print them, not an error body that echoes them, nor a debug trace. A value or word too short to be told apart from ordinary text
 * is left to the masking by field (src/mask.ts).
 */
export function registerHeaderSecrets(headers: Record<string, string>, ctx: Context): void {
  for (const [name, value] of Object.entries(headers)) {
    if (isShownRequestHeader(name)) continue;
    ctx.addSecret(value);
    for (const word of value.split(/[\s,;]+/)) {
      const bare = word.replace(/^["']|["']$/g, '');
      // A word of letters only (`Integrator`, `Bearer`) may be an ordinary word of the output: the
      // whole value covers it.
      if (/^[A-Za-z]+$/.test(bare)) continue;
      ctx.addSecret(bare);
      // key=value pairs (Digest, signatures): the value alone too.
      const equals = bare.indexOf('=');
      if (equals > 0) ctx.addSecret(bare.slice(equals + 1).replace(/^["']|["']$/g, ''));
    }
  }
}

/**
 * Registers the token values known without running a command (a literal, an environment variable's
 * value) and the profile's header values: for --dry-run and --curl, which resolve no token but may
 * show a payload that quotes one. A token read from `{env: NAME}` is checked as a send would check
 * it: exit 2 when it is unusable.
 */
export function registerKnownSecrets(settings: Pick<Settings, 'token' | 'integratorToken' | 'headers' | 'profile'>, ctx: Context): void {
  for (const [key, resolved] of [
    ['token', settings.token],
    ['integratorToken', settings.integratorToken],
  ] as const) {
    const spec = resolved?.value;
    if (typeof spec === 'string') ctx.addSecret(spec);
    else if (spec && 'env' in spec) {
      const value = ctx.env[spec.env];
      if (!value) continue;
      const checked = checkToken(value);
      if ('problem' in checked) {
        // Worded as a send that resolves the token words it (src/config/secret.ts).
        const fromProfile = settings.profile !== null && resolved!.source.startsWith('profile ');
        const what = `${key}${fromProfile ? ` of profile "${settings.profile!.value}"` : ''}`;
        throw new ConfigError(`${what}: the value of environment variable ${spec.env} ${checked.problem}; nothing was sent`, {
          hint: TOKEN_HINT,
        });
      }
      ctx.addSecret(checked.token);
    }
  }
  registerHeaderSecrets(settings.headers.value, ctx);
}
