import type { Settings } from './config/index.js';
import type { Context } from './context.js';

/**
 * Header names that carry credentials: the tool's own Authorization, and whatever a profile adds
 * (an API gateway's key, a cookie, a session). One rule for every place that prints or masks headers:
 * --dry-run, --verbose, --curl, config show and the reason update's credentials.
 */
const SENSITIVE_HEADER = /auth|cookie|token|secret|password|passwd|api-?key|signature|session/i;

export function isSensitiveHeader(name: string): boolean {
  return SENSITIVE_HEADER.test(name);
}

/** Whether the profile's headers carry their own Authorization header, which then replaces the token. */
export function headersCarryAuthorization(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
}

/**
 * Registers the values of credential-like headers as secrets, with and without their scheme word,
 * so that no output can print them: not an error body that echoes them, nor a debug trace.
 */
export function registerHeaderSecrets(headers: Record<string, string>, ctx: Context): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!isSensitiveHeader(name)) continue;
    ctx.addSecret(value);
    const credential = /^\S+\s+(.+)$/.exec(value)?.[1];
    if (credential) ctx.addSecret(credential);
  }
}

/**
 * Registers the token values known without running a command (a literal, an environment variable's
 * value) and credential-like headers: for --dry-run and --curl, which resolve no token but may show a
 * payload that quotes one.
 */
export function registerKnownSecrets(settings: Pick<Settings, 'token' | 'integratorToken' | 'headers'>, ctx: Context): void {
  for (const spec of [settings.token?.value, settings.integratorToken?.value]) {
    if (typeof spec === 'string') ctx.addSecret(spec);
    else if (spec && 'env' in spec) {
      const value = ctx.env[spec.env];
      if (value) ctx.addSecret(value);
    }
  }
  registerHeaderSecrets(settings.headers.value, ctx);
}
