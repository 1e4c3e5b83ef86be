import { operations, type Credential, type OperationId } from '../operations.js';
import { parseJson } from '../payload/json.js';
import { greet, reply, updateReason, type OperationDeps, type OperationHandler } from './api-operations.js';
import { userAgentOf, type Answer, type Exchange, type Handler } from './exchange.js';
import { mediaType, readBody, readCredential } from './http.js';
import { maxBodyBytes, percent, type FaultOptions } from './options.js';
import type { SandboxState } from './state.js';

/**
 * The API's side (docs/api.md, "Endpoints"): the checks every operation makes before its body is read
 * (an injected fault, the declared size, the token, the tenant, the Content-Type), the reading of the
 * body, and the record of every request that did not record an event of its own. The operations
 * themselves are in api-operations.ts; their routes come from the descriptors of src/operations.ts.
 */

/** Which token an operation needs (docs/api.md, "Authentication"): the descriptor's credential. */
type Role = Credential;

export interface ApiDeps extends OperationDeps {
  botToken: string;
  integratorToken: string;
  /**
   * A bridge's say in each answer (src/bridge/outbound.ts): the request, once checked and recorded
   * here, sent on to the real platform, whose answer replaces the sandbox's.
   */
  forward?: ((ex: Exchange, answer: Answer) => Promise<Answer>) | undefined;
  /** Injected failures (--fail), decided by `random` before the request is read. */
  fail: FaultOptions | undefined;
  random: () => number;
}

/** An injected failure of --fail, or undefined. It leaves the state untouched: it is decided before the request is read. */
function injectedFault(fail: FaultOptions | undefined, random: () => number): Answer | undefined {
  if (fail === undefined || !(random() < fail.rate)) return undefined;
  const headers: Record<string, string> = fail.status === 429 || fail.status === 503 ? { 'Retry-After': '1' } : {};
  return {
    status: fail.status,
    error: `injected fault: the sandbox answers ${fail.status} to ${percent(fail.rate)} of API requests (--fail)`,
    headers,
    what: `injected fault ${fail.status}`,
  };
}

/** The refusal of a request whose Authorization does not carry the token `role` needs, or undefined. */
function authorize(deps: Pick<ApiDeps, 'botToken' | 'integratorToken'>, ex: Exchange, role: Role): Answer | undefined {
  const credential = readCredential(ex.req.headers.authorization);
  const challenge = { 'WWW-Authenticate': 'Bearer realm="core sandbox"' };
  if (credential.kind === 'missing') {
    return {
      status: 401,
      error: 'missing Authorization header: send Authorization: Bearer <token>',
      headers: challenge,
      what: 'unauthorized: no token',
    };
  }
  if (credential.kind === 'malformed') {
    return {
      status: 401,
      error: 'the Authorization header must be Bearer <token>',
      headers: challenge,
      what: 'unauthorized: not a bearer token',
    };
  }
  const { botToken, integratorToken } = deps;
  const [wanted, other] = role === 'bot' ? [botToken, integratorToken] : [integratorToken, botToken];
  if (credential.token === wanted) return undefined;
  // A known token of the other role is authenticated but lacks the permission: 403, not 401.
  if (credential.token === other) return forbidden[role];
  return { status: 401, error: 'invalid bearer token', headers: challenge, what: 'unauthorized: wrong token' };
}

/** The refusal of the other role's token, by the role the operation needs. */
const forbidden: Record<Role, Answer> = {
  bot: {
    status: 403,
    error: 'bot operations need the bot token, not the integrator token',
    what: 'forbidden: integrator token on a bot operation',
  },
  integrator: {
    status: 403,
    error: 'updating an inactivity reason needs the INTEGRATOR permission: send the integrator token',
    what: 'forbidden: bot token on an integrator operation',
  },
};

const tooLarge = (): Answer => ({
  status: 413,
  error: `request body larger than ${maxBodyBytes} bytes`,
  what: 'body too large, connection closed',
  close: true,
});

/** The refusal of a request that names no tenant served here, or not as JSON, or undefined. */
function tenantAndType(state: SandboxState, ex: Exchange): Answer | undefined {
  if (ex.tenant === undefined || ex.tenant === '') {
    return { status: 400, error: 'missing X-Tenant-Name header: name the tenant', what: 'no tenant' };
  }
  if (!state.hasTenant(ex.tenant)) {
    return {
      status: 403,
      error: `tenant '${ex.tenant}' is not served here (tenants: ${state.tenantNames.join(', ')})`,
      what: 'unknown tenant',
    };
  }
  const type = mediaType(ex.req.headers['content-type']);
  if (type !== 'application/json') {
    return {
      status: 415,
      error:
        type === undefined
          ? 'missing Content-Type header: send the body as Content-Type: application/json'
          : `Content-Type must be application/json, not '${type}'`,
      what: 'unsupported content type',
    };
  }
  return undefined;
}

/** The checks made before the body is read: an injected fault, a declared size, the token, the tenant, the Content-Type. */
function checkBeforeBody(deps: ApiDeps, ex: Exchange, role: Role): Answer | undefined {
  const injected = injectedFault(deps.fail, deps.random);
  if (injected) return injected;
  // No Content-Length reads as NaN, which is over no limit (Node refuses a value that is not digits).
  if (Number(ex.req.headers['content-length']) > maxBodyBytes) return tooLarge();
  return authorize(deps, ex, role) ?? tenantAndType(deps.state, ex);
}

/** Reads and parses the body into ex.body; false when it is larger than the limit. A body that is not JSON leaves ex.body unset. */
async function readApiBody(ex: Exchange): Promise<{ ok: true } | { ok: false; answer: Answer }> {
  const read = await readBody(ex.req, maxBodyBytes);
  if (!read.ok) return { ok: false, answer: tooLarge() };
  ex.bodyBytes = read.bytes.length;
  ex.rawBody = read.bytes;
  try {
    // A number whose written digits are lost to an integer (1.9999999999999999 reads as 2) is kept as
    // written, so that an identifier written so is refused, not taken for another (payload/inexact.ts).
    ex.body = parseJson(new TextDecoder('utf-8', { fatal: true }).decode(read.bytes), { inexact: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, answer: { status: 400, error: `the request body is not valid JSON: ${reason}`, what: 'invalid: not JSON' } };
  }
  return { ok: true };
}

/** Records a refused API request as an api.request event, tied to the conversation its body names (rules/tying.ts). */
function recordRefusal(state: SandboxState, ex: Exchange, answer: Answer): void {
  state.apiRequest(ex.tenant, {
    method: ex.method,
    path: ex.path,
    status: answer.status,
    requestId: ex.requestId,
    error: answer.error ?? null,
    body: ex.body,
    userAgent: userAgentOf(ex),
  });
}

/**
 * A request to the API's side that no operation takes (an unknown path, another method, a foreign
 * Host): recorded like any refused API request, its body read for the identifiers it names (a bot
 * posting its answer to a wrong URL sees the refusal in its conversation).
 */
export async function refuseApi(state: SandboxState, ex: Exchange, answer: Answer): Promise<Answer> {
  const read = await readApiBody(ex);
  recordRefusal(state, ex, answer);
  return !read.ok && read.answer.close ? { ...answer, close: true } : answer;
}

async function checkAndHandle(deps: ApiDeps, ex: Exchange, role: Role, operation: OperationHandler): Promise<Answer> {
  const refused = checkBeforeBody(deps, ex, role);
  if (refused) {
    // The refusal stands whatever the body holds; the body is read only for the identifiers it
    // names, so the refusal is tied to its conversation (docs/sandbox.md, "Events"). A body past
    // the limit (declared or read) is not read further, and the connection is closed after the answer.
    const read = await readApiBody(ex);
    return !read.ok && read.answer.close ? { ...refused, close: true } : refused;
  }
  const read = await readApiBody(ex);
  if (!read.ok) return read.answer;
  ex.passedChecks = true;
  return operation(deps, ex, ex.tenant as string, ex.body);
}

/**
 * An API operation behind the common checks. A request of a served tenant that did not record an
 * event of its own (refused by a check, or invalid) is recorded as api.request, so the page can show
 * every request the bot made and its status.
 */
const api =
  (deps: ApiDeps, role: Role, operation: OperationHandler): Handler =>
  async (ex) => {
    const answer = await checkAndHandle(deps, ex, role, operation);
    if (!answer.recorded) recordRefusal(deps.state, ex, answer);
    return deps.forward === undefined ? answer : deps.forward(ex, answer);
  };

const handlers: Record<OperationId, OperationHandler> = { reply, greet, reason: updateReason };

/**
 * The API's routes: [path, { method: handler }], from the operation descriptors (src/operations.ts):
 * path, method and the credential each needs.
 */
export function apiRoutes(deps: ApiDeps): [string, Record<string, Handler>][] {
  return (Object.keys(handlers) as OperationId[]).map((id) => {
    const operation = operations[id];
    return [operation.path, { [operation.method]: api(deps, operation.credential, handlers[id]) }];
  });
}
