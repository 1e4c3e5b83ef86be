import type { Answer, Exchange } from '../sandbox/exchange.js';
import type { SandboxState } from '../sandbox/state.js';

/**
 * The bridge's outbound side (docs/bridge.md, "Outbound"): a bot's API request, once the sandbox has
 * checked it as it checks its own (the payload's rules, the answer against the question the bridge
 * delivered, rule 2, a repeated answerId) and recorded it, is sent on to the real platform with the
 * profile's tenant and token; the platform's status, headers and body go back to the bot as they
 * came, and are recorded as a bridge.forward event. A request the sandbox refused stays local
 * (--forward-invalid sends one refused for its payload or its rules anyway); one refused before its
 * body was read (the local token, the tenant, the Content-Type, the size) never leaves, whatever the
 * flags: the platform's token is only ever added to a request that carried the local one.
 */

/** What the platform answered, or why it could not be reached. */
export type PlatformAnswer =
  | {
      ok: true;
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: string;
      truncated: boolean;
      durationMs: number;
    }
  | { ok: false; error: string; durationMs: number };

/** Sends one request on to the platform: the command's (src/commands/bridge/), with the profile's settings. */
export type SendOn = (request: {
  method: string;
  path: string;
  body: Buffer;
  contentType: string;
  userAgent: string | undefined;
}) => Promise<PlatformAnswer>;

export interface OutboundDeps {
  state: SandboxState;
  tenant: string;
  send: SendOn;
  forwardInvalid: boolean;
}

/** The statuses of a refusal for what a request says (its payload, its rules), which --forward-invalid sends on. */
const RULE_REFUSALS = new Set([400, 404, 409, 422]);

/** Headers of the platform's answer that belong to one connection, or that the sandbox writes itself. */
const NOT_PASSED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'content-type', 'date']);

/** The kept part of the platform's body in the record. */
const KEPT_BODY_CHARS = 2048;

export function outbound(deps: OutboundDeps): (ex: Exchange, answer: Answer) => Promise<Answer> {
  const { state, tenant } = deps;
  return async (ex, answer) => {
    if (ex.passedChecks !== true || ex.rawBody === undefined || ex.tenant !== tenant) return answer;
    const passed = answer.status >= 200 && answer.status < 300;
    if (!passed && !(deps.forwardInvalid && RULE_REFUSALS.has(answer.status))) return answer;
    // Read before the platform answers: meanwhile other requests' events come after this one's.
    const sessionId = sessionOf(state, tenant, ex.requestId);
    const contentType = ex.req.headers['content-type'] ?? 'application/json';
    const userAgent = ex.req.headers['user-agent'];
    const platform = await deps.send({ method: ex.method, path: ex.path, body: ex.rawBody, contentType, userAgent });
    const common = {
      type: 'bridge.forward' as const,
      sessionId,
      requestId: ex.requestId,
      method: ex.method,
      path: ex.path,
      localStatus: answer.status,
      forcedInvalid: !passed,
      latencyMs: Math.round(platform.durationMs),
    };
    const marked = passed ? '' : ` (refused here with ${answer.status}, sent anyway: --forward-invalid)`;
    if (!platform.ok) {
      state.bridgeRecord(tenant, { ...common, status: null, error: platform.error, body: '', bodyTruncated: false });
      return {
        status: 502,
        error: `the platform could not be reached: ${platform.error}`,
        recorded: true,
        what: `sent on to the platform${marked}: not reached (${platform.error})`,
      };
    }
    state.bridgeRecord(tenant, {
      ...common,
      status: platform.status,
      error: null,
      body: platform.body.slice(0, KEPT_BODY_CHARS),
      bodyTruncated: platform.truncated || platform.body.length > KEPT_BODY_CHARS,
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(platform.headers)) {
      if (value === undefined || NOT_PASSED.has(name.toLowerCase())) continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const type = platform.headers['content-type'];
    const raw =
      platform.body === '' && type === undefined
        ? {}
        : { raw: { contentType: typeof type === 'string' ? type : 'application/octet-stream', text: platform.body } };
    return { status: platform.status, headers, ...raw, recorded: true, what: `sent on to the platform${marked}: ${platform.status}` };
  };
}

/** The thread the sandbox tied a request to (its answer's or its refusal's event), or null. */
function sessionOf(state: SandboxState, tenant: string, requestId: string): string | null {
  let found: string | null = null;
  for (const event of state.events({ tenant, after: Math.max(0, state.lastSeq - 16) })) {
    if ('requestId' in event && event.requestId === requestId) found = event.sessionId;
  }
  return found;
}
