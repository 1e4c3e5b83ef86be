import type { StateFileInfo } from './state-file.js';
import { version } from '../version.js';
import { count, readJsonObject, readPaging, type Answer, type Exchange, type Handler } from './exchange.js';
import type { DuplicateMode } from './options.js';
import type { SandboxState } from './state.js';
import type { WebhookSender } from './webhook.js';

/**
 * The sandbox's own inspection endpoints (docs/sandbox.md, "Inspection and reset"): GET /_sandbox/messages,
 * /_sandbox/reasons and /_sandbox/info, and POST /_sandbox/reset. No token: they are a local test
 * tool's own controls, behind the Host check and, for the reset, the JSON-only rule (routes.ts).
 */

export interface InspectDeps {
  state: SandboxState;
  duplicates: DuplicateMode;
  maxEvents: number;
  /** The secret webhooks are signed with: a test value, printed on stdout too (core doctor compares it). */
  webhookSecret: string;
  /** The bot's webhook as /_sandbox/info shows it; null without --bot-url. */
  bot: { url: string; timeoutMs: number; retries: number; sender: WebhookSender } | null;
  /** The state file and what the start read from it; null for a sandbox in memory. */
  stateFile: StateFileInfo | null;
}

/** What GET /_sandbox/info answers (the page reads it, src/sandbox/page/api.js). */
export interface SandboxInfo {
  version: string;
  tenants: string[];
  duplicates: DuplicateMode;
  maxEvents: number;
  lastSeq: number;
  /** The secret webhooks are signed with (a test value; core doctor compares it with the bot's). */
  webhookSecret: string;
  bot: { url: string; timeoutMs: number; retries: number; inFlight: number; queued: number } | null;
  /** The state file (`--state`): its path, whether the start restored events from it and how many it read; null in memory. */
  state: StateFileInfo | null;
}

/** Why a tenant not served is refused (404), naming the tenants served. */
export const unknownTenantMessage = (state: SandboxState, tenant: string): string =>
  `no tenant '${tenant}' (tenants: ${state.tenantNames.join(', ')})`;

export const unknownTenant = (state: SandboxState, tenant: string): Answer => ({
  status: 404,
  error: unknownTenantMessage(state, tenant),
  what: 'unknown tenant',
});

/** A GET of one tenant (?tenant=) or all. */
const inspect =
  (state: SandboxState, run: (tenant: string | undefined, ex: Exchange) => Omit<Answer, 'status'> | Answer): Handler =>
  (ex) => {
    const tenant = ex.query.get('tenant') ?? undefined;
    if (tenant !== undefined && !state.hasTenant(tenant)) return unknownTenant(state, tenant);
    return { status: 200, ...run(tenant, ex) };
  };

/** GET /_sandbox/messages: every kept bot answer and greeting, a page at a time. */
function messages(state: SandboxState): Handler {
  return (ex) => {
    const tenant = ex.query.get('tenant') ?? undefined;
    if (tenant !== undefined && !state.hasTenant(tenant)) return unknownTenant(state, tenant);
    const paged = readPaging(ex.query);
    if (!paged.ok) return paged.answer;
    const result = state.messagePage(tenant, paged.after, paged.limit);
    return {
      status: 200,
      json: { messages: result.items, next: result.next },
      what: `listed ${count(result.items.length, 'message')}`,
    };
  };
}

/** POST /_sandbox/reset: one tenant (?tenant=) or all back to their seed. */
function reset(state: SandboxState): Handler {
  return async (ex) => {
    const read = await readJsonObject(ex);
    if (!read.ok) return read.answer;
    const tenant = ex.query.get('tenant') ?? undefined;
    if (tenant !== undefined && !state.hasTenant(tenant)) return unknownTenant(state, tenant);
    const done = state.reset(tenant);
    return { status: 200, json: { reset: done }, what: `reset ${done.join(', ')}` };
  };
}

export function inspectHandlers(deps: InspectDeps): Record<'messages' | 'reasons' | 'reset' | 'info', Handler> {
  const { state, bot } = deps;
  return {
    messages: messages(state),
    reasons: inspect(state, (tenant) => {
      const reasons = state.reasons(tenant);
      return { json: { reasons }, what: `listed ${count(reasons.length, 'reason')}` };
    }),
    reset: reset(state),
    info: inspect(state, () => ({
      json: {
        version: version(),
        tenants: state.tenantNames,
        duplicates: deps.duplicates,
        maxEvents: deps.maxEvents,
        lastSeq: state.lastSeq,
        webhookSecret: deps.webhookSecret,
        bot: bot === null ? null : { url: bot.url, timeoutMs: bot.timeoutMs, retries: bot.retries, ...bot.sender.load },
        state: deps.stateFile,
      } satisfies SandboxInfo,
      what: 'info',
    })),
  };
}
