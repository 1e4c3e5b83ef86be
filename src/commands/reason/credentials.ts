import { requireSettings, resolveSettingsToken, type Settings } from '../../config/index.js';
import type { Context } from '../../context.js';
import { registerHeaderSecrets, registerKnownSecrets } from '../../secrets.js';
import type { PreparedRequest, RequestSettings } from '../../send/request.js';

/**
 * The credential of PUT /api/v1/inactivity/reasons. The API asks for the INTEGRATOR permission
 * and does not show the credential's format (docs/api.md, "Authentication" and gap 6), so:
 * - the profile's integratorToken (env CORE_INTEGRATOR_TOKEN), else its token (CORE_TOKEN), is sent
 *   as `Authorization: Bearer ...`, as for the bot operations (docs/configuration.md, "Keys");
 * - an Authorization header in the profile's `headers` replaces that header (prepareRequest lays the
 *   profile's headers last), and then no token is needed at all.
 */
export interface ReasonCredentials {
  request: RequestSettings;
  tokenVariable: PreparedRequest['tokenVariable'];
}

/** Whether the profile's headers carry their own Authorization header. */
export function headersCarryAuthorization(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
}

function tokenVariableOf(settings: Settings): PreparedRequest['tokenVariable'] {
  return settings.integratorToken ? 'CORE_INTEGRATOR_TOKEN' : 'CORE_TOKEN';
}

/** For sending: every value must be there; the token is resolved (its command run) and registered as a secret. */
export async function resolveCredentials(settings: Settings, ctx: Context): Promise<ReasonCredentials> {
  const headers = settings.headers.value;
  const byHeader = headersCarryAuthorization(headers);
  requireSettings(settings, byHeader ? ['baseUrl', 'tenant'] : ['baseUrl', 'tenant', 'integratorToken']);
  registerHeaderSecrets(headers, ctx);
  let token: string | null = null;
  if (!byHeader) {
    // The integrator token, else the token; a token command runs beside the config file.
    token = await resolveSettingsToken(settings, 'integratorToken', { env: ctx.env, cwd: ctx.cwd, signal: ctx.signal });
    ctx.addSecret(token);
  }
  return {
    request: { baseUrl: settings.baseUrl!.value, tenant: settings.tenant!.value, token, headers },
    tokenVariable: tokenVariableOf(settings),
  };
}

/**
 * For --dry-run and --curl: nothing is sent, so nothing is required. Missing values show as
 * placeholders with one warning, and a token command is not run just to be masked.
 */
export function placeholderCredentials(settings: Settings, ctx: Context): ReasonCredentials {
  const headers = settings.headers.value;
  const byHeader = headersCarryAuthorization(headers);
  registerKnownSecrets(settings, ctx);
  const missing: string[] = [];
  if (settings.baseUrl === null) missing.push('baseUrl');
  if (settings.tenant === null) missing.push('tenant');
  const hasToken = settings.integratorToken !== null || settings.token !== null;
  if (!byHeader && !hasToken) missing.push('token');
  if (missing.length > 0) ctx.warn(`not configured: ${missing.join(', ')} (a real send would stop here)`);
  return {
    request: {
      baseUrl: settings.baseUrl?.value ?? '<base-url>',
      tenant: settings.tenant?.value ?? '<tenant>',
      token: byHeader || !hasToken ? null : 'placeholder',
      headers,
    },
    tokenVariable: tokenVariableOf(settings),
  };
}
