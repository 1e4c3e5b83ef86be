import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Problem } from '../errors.js';
import { loadSafeHtmlRenderer } from '../markdown/safe-html.js';
import { operations, type Credential, type OperationId } from '../operations.js';
import { validateGreeting, validateReason, validateReply } from '../payload/index.js';
import { parseJson, stringifyJson } from '../payload/json.js';
import { version } from '../version.js';
import { customerHandlers, type DirectCustomer } from './customer.js';
import type { SandboxEvent } from './events.js';
import { count, invalid, readJsonObject, readPaging, type Answer, type Exchange, type Handler } from './exchange.js';
import {
  allowedHosts,
  allowHostProblem,
  baseUrl,
  capConnections,
  errorBody,
  formatProblems,
  hostAllowed,
  hostName,
  mediaType,
  readBody,
  readCredential,
  splitTarget,
  type AllowedHosts,
} from './http.js';
import {
  isLoopbackHost,
  maxBodyBytes,
  percent,
  sandboxDefaults,
  sandboxOptionProblems,
  type DuplicateMode,
  type SandboxOptions,
} from './options.js';
import { defaultReasons, prepareReasons } from './seed.js';
import { newWebhookSecret } from './signature.js';
import { SandboxState, type ConversationView, type MessageRecord, type ReasonRecord } from './state.js';
import { pageHandlers } from './page.js';
import { probeHandlers } from './probe.js';
import { eventStream } from './stream.js';
import { WebhookSender } from './webhook.js';

/**
 * A local implementation of the API's three operations (docs/api.md, "Endpoints") on node:http,
 * stateful and inspectable. Where the API does not show a behaviour (statuses for bad
 * credentials or invalid input, the strict-duplicate status, tenant errors) the choice made here
 * is the sandbox's own and is listed in docs/sandbox.md.
 */

export type { DuplicateMode, SandboxOptions, FaultOptions } from './options.js';
export type { MessageRecord, ReasonRecord, ConversationView } from './state.js';
export type { SandboxEvent } from './events.js';

export interface Sandbox {
  /** The base URL to send requests to, such as http://127.0.0.1:43121 (no trailing slash). */
  readonly url: string;
  /** The address bound. */
  readonly host: string;
  readonly port: number;
  readonly tenants: readonly string[];
  readonly duplicates: DuplicateMode;
  /** The MESSAGE webhook's address (--bot-url), or null when no bot is connected. */
  readonly botUrl: string | null;
  /** The Standard Webhooks secret the webhooks are signed with (`whsec_...`). */
  readonly webhookSecret: string;
  /** Every kept bot answer and greeting, of one tenant or all (what GET /_sandbox/messages pages through). */
  messages(tenant?: string): MessageRecord[];
  /** The kept events after `after` (default 0), of one tenant ("": the sandbox-wide ones), or all (those too), or of one thread. */
  events(filter?: { tenant?: string; sessionId?: string; after?: number }): SandboxEvent[];
  /** Tells `listener` of every event as it is recorded; returns the function that stops it. */
  subscribe(listener: (event: SandboxEvent) => void): () => void;
  /** The thread of a sessionId, as GET /_sandbox/conversations/{sessionId} shows it; undefined when not kept. */
  conversation(sessionId: string): ConversationView | undefined;
  /** How much one tenant holds ("" for the sandbox-wide log): events, their bytes, clients, threads, questions, answerIds, deliveries. */
  sizes(tenant: string): Record<'events' | 'bytes' | 'clients' | 'threads' | 'questions' | 'answerIds' | 'deliveries', number>;
  /** What GET /_sandbox/reasons returns. */
  reasons(tenant?: string): ReasonRecord[];
  /** What POST /_sandbox/reset does; returns the tenants reset. */
  reset(tenant?: string): string[];
  /** Stops listening, answers what is in flight at once (skipping any latency), and closes every connection. */
  close(): Promise<void>;
}

/** Thrown by startSandbox for options it cannot run with; `problems` names each option. */
export class SandboxOptionsError extends TypeError {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(`invalid sandbox options: ${formatProblems(problems)}`);
    this.name = 'SandboxOptionsError';
    this.problems = problems;
  }
}

/** Which token an operation needs (docs/api.md, "Authentication"): the descriptor's credential. */
type Role = Credential;

/** An API operation: once the request has passed the common checks, handles its parsed body. */
type OperationHandler = (ex: Exchange, tenant: string, body: unknown) => Answer;

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  // The public handle is the same as before: the direct customer is for this process's own client.
  const { customer: _direct, ...handle } = await startLocalSandbox(options);
  return handle;
}

/** A sandbox for a client in this same process: the handle, and the customer's side without HTTP (`core test`). */
export type LocalSandbox = Sandbox & { readonly customer: DirectCustomer };

export async function startLocalSandbox(options: SandboxOptions = {}): Promise<LocalSandbox> {
  const optionProblems = sandboxOptionProblems(options);
  const maxActiveReasons = options.maxActiveReasons ?? sandboxDefaults.maxActiveReasons;
  const seed = prepareReasons(options.reasons ?? defaultReasons, maxActiveReasons);
  if (!seed.ok) {
    for (const problem of seed.problems) optionProblems.push({ ...problem, path: `reasons${problem.path}` });
  }
  if (optionProblems.length > 0 || !seed.ok) throw new SandboxOptionsError(optionProblems);

  const host = options.host ?? sandboxDefaults.host;
  const tenants = [...(options.tenants ?? sandboxDefaults.tenants)];
  const botToken = options.token ?? sandboxDefaults.token;
  const integratorToken = options.integratorToken ?? botToken;
  const duplicates = options.duplicates ?? sandboxDefaults.duplicates;
  const latencyMs = options.latencyMs ?? sandboxDefaults.latencyMs;
  const fail = options.fail;
  const random = options.random ?? Math.random;
  const log = options.log ?? (() => {});
  const limits = options.limits;
  const botUrl = options.botUrl ?? null;
  const webhookSecret = options.webhookSecret ?? newWebhookSecret();
  const maxEvents = options.maxEvents ?? sandboxDefaults.maxEvents;
  // The page shows a reply's Markdown as safe HTML, written once as the answer is recorded: the
  // lexer is loaded here, so recording stays synchronous (src/sandbox/state.ts).
  const renderMarkdown = await loadSafeHtmlRenderer();

  const state = new SandboxState({
    tenants,
    seedReasons: seed.reasons,
    duplicates,
    maxActiveReasons,
    maxEvents,
    maxEventBytes: options.maxEventBytes ?? sandboxDefaults.maxEventBytes,
    botConnected: botUrl !== null,
  });
  const webhookTimeoutMs = options.webhookTimeoutMs ?? sandboxDefaults.webhookTimeoutMs;
  const webhookRetries = options.webhookRetries ?? sandboxDefaults.webhookRetries;
  const sender =
    botUrl === null
      ? null
      : new WebhookSender(
          {
            url: botUrl,
            secret: webhookSecret,
            timeoutMs: webhookTimeoutMs,
            retries: webhookRetries,
            backoffMs: options.webhookBackoffMs ?? sandboxDefaults.webhookBackoffMs,
            maxRetryAfterMs: options.maxRetryAfterMs ?? sandboxDefaults.maxRetryAfterMs,
            userAgent: `core-sandbox/${version()}`,
            maxConcurrent: options.webhookConcurrency ?? sandboxDefaults.webhookConcurrency,
            maxQueued: options.webhookQueue ?? sandboxDefaults.webhookQueue,
          },
          (delivery, attempt) => state.webhookAttempt(delivery, attempt),
          log,
        );
  // Aborted by close(): cuts every latency wait short so in-flight requests are answered at once.
  const closing = new AbortController();
  // The open event streams, ended by close().
  const streams = new Set<ServerResponse>();
  // Filled in once the server listens: the Host values the sandbox answers, and whether the API's
  // paths are checked too (bound to loopback).
  let hosts: AllowedHosts = { exact: new Set(), names: new Set() };
  let checkEveryPath = false;
  const allowHosts = options.allowHosts ?? [];

  // ---- common checks of the three API operations ----------------------------------------------

  const fault = (): Answer | undefined => {
    // Injected failures leave the state untouched: they are decided before the request is read.
    if (fail === undefined || !(random() < fail.rate)) return undefined;
    const headers: Record<string, string> = fail.status === 429 || fail.status === 503 ? { 'Retry-After': '1' } : {};
    return {
      status: fail.status,
      error: `injected fault: the sandbox answers ${fail.status} to ${percent(fail.rate)} of API requests (--fail)`,
      headers,
      what: `injected fault ${fail.status}`,
    };
  };

  const authorize = (ex: Exchange, role: Role): Answer | undefined => {
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
    const wanted = role === 'bot' ? botToken : integratorToken;
    if (credential.token === wanted) return undefined;
    // A known token of the other role is authenticated but lacks the permission: 403, not 401.
    if (role === 'integrator' && credential.token === botToken) {
      return {
        status: 403,
        error: 'updating an inactivity reason needs the INTEGRATOR permission: send the integrator token',
        what: 'forbidden: bot token on an integrator operation',
      };
    }
    if (role === 'bot' && credential.token === integratorToken) {
      return {
        status: 403,
        error: 'bot operations need the bot token, not the integrator token',
        what: 'forbidden: integrator token on a bot operation',
      };
    }
    return { status: 401, error: 'invalid bearer token', headers: challenge, what: 'unauthorized: wrong token' };
  };

  const tooLarge = (): Answer => ({
    status: 413,
    error: `request body larger than ${maxBodyBytes} bytes`,
    what: 'body too large, connection closed',
    close: true,
  });

  /** The checks made before the body is read: an injected fault, a declared size, the token, the tenant, the Content-Type. */
  const checkBeforeBody = (ex: Exchange, role: Role): Answer | undefined => {
    const injected = fault();
    if (injected) return injected;
    const declared = Number(ex.req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) return tooLarge();
    const denied = authorize(ex, role);
    if (denied) return denied;
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
  };

  /** Reads and parses the body into ex.body; false when it is larger than the limit. A body that is not JSON leaves ex.body unset. */
  const readApiBody = async (ex: Exchange): Promise<{ ok: true } | { ok: false; answer: Answer }> => {
    const read = await readBody(ex.req, maxBodyBytes);
    if (!read.ok) return { ok: false, answer: tooLarge() };
    ex.bodyBytes = read.bytes.length;
    try {
      ex.body = parseJson(new TextDecoder('utf-8', { fatal: true }).decode(read.bytes));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false, answer: { status: 400, error: `the request body is not valid JSON: ${reason}`, what: 'invalid: not JSON' } };
    }
    return { ok: true };
  };

  /**
   * A request to the API's side that no operation takes (an unknown path, another method): recorded
   * like any refused API request, its body read for the identifiers it names (a bot posting its answer
   * to a wrong URL sees the refusal in its conversation).
   */
  const refuseApi = async (ex: Exchange, answer: Answer): Promise<Answer> => {
    const read = await readApiBody(ex);
    state.apiRequest(ex.tenant, {
      method: ex.method,
      path: ex.path,
      status: answer.status,
      requestId: ex.requestId,
      error: answer.error ?? null,
      body: ex.body,
    });
    return !read.ok && read.answer.close ? { ...answer, close: true } : answer;
  };

  const checkAndHandle = async (ex: Exchange, role: Role, operation: OperationHandler): Promise<Answer> => {
    const refused = checkBeforeBody(ex, role);
    if (refused) {
      // The refusal stands whatever the body holds; the body is read only for the identifiers it
      // names, so the refusal is tied to its conversation (docs/sandbox.md, "Events"). A body past
      // the limit is not read further, and the connection is closed after the answer.
      if (refused.close) return refused;
      const read = await readApiBody(ex);
      return !read.ok && read.answer.close ? { ...refused, close: true } : refused;
    }
    const read = await readApiBody(ex);
    if (!read.ok) return read.answer;
    return operation(ex, ex.tenant as string, ex.body);
  };

  /**
   * An API operation behind the common checks. A request of a served tenant that did not record an
   * event of its own (refused by a check, or invalid) is recorded as api.request, so the page can show
   * every request the bot made and its status.
   */
  const api =
    (role: Role, operation: OperationHandler): Handler =>
    async (ex) => {
      const answer = await checkAndHandle(ex, role, operation);
      if (!answer.recorded) {
        state.apiRequest(ex.tenant, {
          method: ex.method,
          path: ex.path,
          status: answer.status,
          requestId: ex.requestId,
          error: answer.error ?? null,
          body: ex.body,
        });
      }
      return answer;
    };

  // ---- the three operations -------------------------------------------------------------------

  const withWarnings = (what: string, warnings: Problem[]) =>
    warnings.length === 0 ? what : `${what}; warnings: ${formatProblems(warnings)}`;

  const reply: OperationHandler = (ex, tenant, body) => {
    // A one-shot fault armed through POST /_sandbox/probes/faults answers before the answer is checked.
    const injected = probes.intercept(ex, tenant, body);
    if (injected) return injected;
    const checked = validateReply(body, limits ? { limits } : {});
    if (!checked.ok) return invalid(checked.problems);
    const { formattedText } = checked.value as { formattedText?: string | null };
    const outcome = state.reply(tenant, checked.value, {
      requestId: ex.requestId,
      body,
      bodyBytes: ex.bodyBytes,
      warnings: checked.warnings,
      formattedHtml: typeof formattedText === 'string' ? renderMarkdown(formattedText) : null,
    });
    const { event } = outcome;
    const id = `answerId=${event.answerId ?? '(none)'}`;
    const addressed = `addressedBy=${event.addressedBy.join(',') || '(none)'}`;
    const where = event.sessionId ? ` session=${event.sessionId}` : '';
    if (outcome.status === 200 && event.delivered) {
      const note = event.questionAlreadyAnswered ? ' (question already answered; soft mode delivers it)' : '';
      const thread = event.sessionId ? state.thread(event.sessionId) : undefined;
      const handover =
        thread?.owner === 'agents' && thread.handover?.seq !== undefined && thread.handover.seq > event.seq
          ? ` -> thread with agents (${thread.handover.code})`
          : '';
      return { status: 200, recorded: true, what: withWarnings(`delivered ${id} ${addressed}${where}${note}${handover}`, event.warnings) };
    }
    if (outcome.status === 200) {
      // Chatbot rule 6: a repeated answerId is accepted but not delivered again.
      return { status: 200, recorded: true, what: `duplicate answerId, not delivered ${id}` };
    }
    // The API shows none of these statuses (docs/api.md, gap 9): each is the sandbox's choice (docs/sandbox.md).
    const label =
      event.notDelivered === 'question already answered (strict mode)'
        ? 'rejected (strict duplicate)'
        : `refused (${event.notDelivered ?? 'not delivered'})`;
    return { status: outcome.status, error: outcome.error, recorded: true, what: `${label}, not delivered ${id} ${addressed}${where}` };
  };

  const greet: OperationHandler = (ex, tenant, body) => {
    const result = validateGreeting(body, limits ? { limits } : {});
    if (!result.ok) return invalid(result.problems);
    const event = state.greeting(tenant, result.value, {
      requestId: ex.requestId,
      body,
      bodyBytes: ex.bodyBytes,
      warnings: result.warnings,
    });
    const [by] = event.addressedBy;
    // Greet rule 3: with both identifiers, clientId takes priority; the log says so.
    const both = by === 'clientId' && result.value.coreClientId != null;
    const note = both ? ' (coreClientId also given; clientId takes priority)' : '';
    return {
      status: 200,
      recorded: true,
      what: withWarnings(`greeting delivered addressedBy=${by ?? '(none)'}${note} session=${event.sessionId ?? '-'}`, event.warnings),
    };
  };

  const updateReason: OperationHandler = (ex, tenant, body) => {
    const result = validateReason(body);
    if (!result.ok) return invalid(result.problems);
    const update = state.updateReason(tenant, result.value, { requestId: ex.requestId });
    if (!update.ok) {
      const what = update.status === 404 ? `reason not found code=${result.value.code}` : 'too many active reasons, not updated';
      return { status: update.status, error: update.message, what };
    }
    return {
      status: 200,
      recorded: true,
      what: withWarnings(`reason updated code=${update.record.code} active=${String(update.record.reason.active)}`, result.warnings),
    };
  };

  // ---- the sandbox's own endpoints (no token: a local test tool's own controls) ------------------

  const unknownTenant = (tenant: string): Answer => ({
    status: 404,
    error: `no tenant '${tenant}' (tenants: ${state.tenantNames.join(', ')})`,
    what: 'unknown tenant',
  });

  const inspect =
    (run: (tenant: string | undefined, ex: Exchange) => Omit<Answer, 'status'> | Answer): Handler =>
    (ex) => {
      const tenant = ex.query.get('tenant') ?? undefined;
      if (tenant !== undefined && !state.hasTenant(tenant)) return unknownTenant(tenant);
      return { status: 200, ...run(tenant, ex) };
    };

  const customer = customerHandlers({ state, sender, defaultTenant: tenants[0] ?? 'sandbox' });
  const probes = probeHandlers({ state, sender, secret: webhookSecret, url: botUrl });
  const page = pageHandlers();

  // The API's routes come from the operation descriptors (src/operations.ts): path, method and the
  // credential each needs.
  const handlers: Record<OperationId, OperationHandler> = { reply, greet, reason: updateReason };
  const apiRoutes = (Object.keys(handlers) as OperationId[]).map((id): [string, Record<string, Handler>] => {
    const operation = operations[id];
    return [operation.path, { [operation.method]: api(operation.credential, handlers[id]) }];
  });
  const routes = new Map<string, Record<string, Handler>>([
    ...apiRoutes,
    [
      '/_sandbox/messages',
      {
        GET: (ex) => {
          const tenant = ex.query.get('tenant') ?? undefined;
          if (tenant !== undefined && !state.hasTenant(tenant)) return unknownTenant(tenant);
          const paged = readPaging(ex.query);
          if (!paged.ok) return paged.answer;
          const result = state.messagePage(tenant, paged.after, paged.limit);
          return {
            status: 200,
            json: { messages: result.items, next: result.next },
            what: `listed ${count(result.items.length, 'message')}`,
          };
        },
      },
    ],
    [
      '/_sandbox/reasons',
      {
        GET: inspect((tenant) => {
          const reasons = state.reasons(tenant);
          return { json: { reasons }, what: `listed ${count(reasons.length, 'reason')}` };
        }),
      },
    ],
    [
      '/_sandbox/reset',
      {
        POST: async (ex) => {
          const read = await readJsonObject(ex);
          if (!read.ok) return read.answer;
          const tenant = ex.query.get('tenant') ?? undefined;
          if (tenant !== undefined && !state.hasTenant(tenant)) return unknownTenant(tenant);
          const reset = state.reset(tenant);
          return { status: 200, json: { reset }, what: `reset ${reset.join(', ')}` };
        },
      },
    ],
    [
      '/_sandbox/info',
      {
        GET: inspect(() => ({
          json: {
            version: version(),
            tenants: state.tenantNames,
            duplicates,
            maxEvents,
            lastSeq: state.lastSeq,
            bot:
              botUrl === null || sender === null
                ? null
                : { url: botUrl, timeoutMs: webhookTimeoutMs, retries: webhookRetries, ...sender.load },
          },
          what: 'info',
        })),
      },
    ],
    ['/_sandbox/conversations', { GET: customer.list, POST: customer.start }],
    ['/_sandbox/probes', { POST: probes.probe }],
    ['/_sandbox/probes/faults', { POST: probes.arm }],
    ['/', { GET: page.index }],
    [
      '/_sandbox/events',
      {
        GET: eventStream({
          state,
          open: streams,
          maxTotalBufferedBytes: options.maxStreamBufferedBytes ?? sandboxDefaults.maxStreamBufferedBytes,
          log,
        }),
      },
    ],
  ]);
  // Routes with a part of the path as a parameter: [pattern, methods].
  const patternRoutes: [RegExp, Record<string, Handler>][] = [
    [/^\/_sandbox\/conversations\/([^/]+)$/, { GET: customer.show }],
    [/^\/_sandbox\/conversations\/([^/]+)\/messages$/, { POST: customer.message }],
    [/^\/_sandbox\/conversations\/([^/]+)\/release$/, { POST: customer.release }],
    [/^\/_sandbox\/conversations\/([^/]+)\/test$/, { GET: customer.test }],
    [/^\/_sandbox\/deliveries\/([^/]+)\/redeliver$/, { POST: customer.redeliver }],
    [/^\/_sandbox\/probes\/faults\/([^/]+)$/, { GET: probes.showFault }],
    [/^\/_sandbox\/page\/([^/]+)$/, { GET: page.file }],
  ];

  const findRoute = (ex: Exchange): Record<string, Handler> | undefined => {
    const exact = routes.get(ex.path);
    if (exact) return exact;
    for (const [pattern, methods] of patternRoutes) {
      const match = pattern.exec(ex.path);
      if (match) {
        ex.params = match.slice(1).map((part) => safeDecode(part));
        return methods;
      }
    }
    return undefined;
  };

  const own = (path: string) => path === '/' || path === '/_sandbox' || path.startsWith('/_sandbox/');
  // The API's side: what a bot sends (src/operations.ts paths), and any other path under /api/.
  const apiSide = (path: string) => path === '/api' || path.startsWith('/api/');

  const route = (ex: Exchange): Answer | Promise<Answer> => {
    // The Host check comes first: a page on another site reaching the port through a DNS name it
    // controls (DNS rebinding) learns nothing, not even which paths exist. It covers the sandbox's own
    // endpoints always, and the API's paths too when the sandbox is bound to loopback: there the
    // default token is public, and only this machine (a browser on it included) can reach the port.
    if ((checkEveryPath || own(ex.path)) && !hostAllowed(ex.req.headers.host, hosts)) {
      const given = ex.req.headers.host;
      const name = given === undefined ? undefined : hostName(given);
      const option = name !== undefined && allowHostProblem(name) === undefined ? `--allow-host ${name}` : '--allow-host NAME';
      const accepted = [...hosts.exact, ...[...hosts.names].map((n) => `${n}:*`)].join(', ');
      // A bot's request refused here is recorded like its other refusals (a bot in a container that
      // names the host by another name sees why on the page and in core customer); the log is bounded,
      // and nothing of it is readable through the refused name.
      const foreign: Answer = {
        status: 403,
        error:
          given === undefined
            ? 'missing Host header: the sandbox answers only requests addressed to its own address'
            : `the Host '${given}' is not this sandbox's address (${accepted}): requests through another name are refused; ` +
              `if a bot reaches the sandbox by this name (a container, a tunnel), start it with ${option}`,
        what: 'refused: foreign Host',
      };
      return apiSide(ex.path) ? refuseApi(ex, foreign) : foreign;
    }
    const methods = findRoute(ex);
    if (methods === undefined) {
      const unknown: Answer = { status: 404, error: `no such path: ${ex.path}`, what: 'unknown path' };
      return apiSide(ex.path) ? refuseApi(ex, unknown) : unknown;
    }
    const handler = Object.hasOwn(methods, ex.method) ? methods[ex.method] : undefined;
    if (handler === undefined) {
      const allow = Object.keys(methods).join(', ');
      const notAllowed: Answer = {
        status: 405,
        error: `${ex.method} is not allowed on ${ex.path}; use ${allow}`,
        headers: { Allow: allow },
        what: 'method not allowed',
      };
      return apiSide(ex.path) ? refuseApi(ex, notAllowed) : notAllowed;
    }
    // Every request that changes the sandbox's state is JSON: a plain HTML form on another site
    // (application/x-www-form-urlencoded, multipart/form-data, text/plain) cannot send it.
    if (own(ex.path) && ex.method !== 'GET' && ex.method !== 'HEAD') {
      const type = mediaType(ex.req.headers['content-type']);
      if (type !== 'application/json') {
        return {
          status: 415,
          error:
            type === undefined
              ? `missing Content-Type header: ${ex.method} ${ex.path} takes Content-Type: application/json`
              : `Content-Type must be application/json, not '${type}'`,
          what: 'unsupported content type',
        };
      }
    }
    return handler(ex);
  };

  // ---- answering --------------------------------------------------------------------------------

  const send = async (ex: Exchange, answer: Answer): Promise<void> => {
    const tenant = answer.tenant ?? ex.tenant;
    const line = `${ex.method} ${ex.path} tenant=${tenant || '-'} ${answer.status} ${ex.requestId} ${answer.what}`;
    if (answer.streamed) {
      log(line);
      return;
    }
    if (latencyMs > 0) {
      // The delay comes after the request was handled, as with a slow network: a client that
      // times out and retries meets the state its first attempt already changed.
      await sleep(latencyMs, undefined, { signal: closing.signal }).catch(() => {});
    }
    if (ex.res.destroyed) {
      log(`${line} (client gone before the answer)`);
      return;
    }
    const headers: Record<string, string | number> = { 'X-Request-Id': ex.requestId, ...answer.headers };
    let payload = '';
    if (answer.error !== undefined) {
      payload = JSON.stringify(errorBody(ex.method, ex.path, answer.error));
      headers['Content-Type'] = 'application/json';
    } else if (answer.json !== undefined) {
      // stringifyJson keeps the identifiers (bigint) exact.
      payload = `${stringifyJson(answer.json, 2)}\n`;
      headers['Content-Type'] = 'application/json';
    } else if (answer.raw !== undefined) {
      payload = answer.raw.text;
      headers['Content-Type'] = answer.raw.contentType;
    }
    headers['Content-Length'] = Buffer.byteLength(payload);
    if (answer.close || closing.signal.aborted) headers.Connection = 'close';
    ex.res.writeHead(answer.status, headers);
    ex.res.end(payload);
    if (answer.close) {
      // Stop reading the oversized body: once the answer is flushed, drop the connection. The
      // short grace lets the client read the answer before the socket goes away.
      ex.res.once('finish', () => setTimeout(() => ex.req.socket.destroy(), 100).unref());
    }
    log(line);
  };

  // A client has headersTimeoutMs to send its headers and requestTimeoutMs for the whole request
  // (Node's defaults, 60 s and 300 s, let slow clients hold connections for minutes); Node checks them
  // every connectionsCheckingInterval, a fraction of the shorter one.
  const headersTimeout = options.headersTimeoutMs ?? sandboxDefaults.headersTimeoutMs;
  const requestTimeout = options.requestTimeoutMs ?? sandboxDefaults.requestTimeoutMs;
  const serverOptions = {
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
  const server = createServer(serverOptions, (req, res) => {
    const { path, query } = splitTarget(req.url);
    const method = req.method ?? 'GET';
    const header = req.headers['x-tenant-name'];
    const ex: Exchange = {
      req,
      res,
      requestId: randomUUID(),
      method,
      path,
      query,
      tenant: own(path) ? (query.get('tenant') ?? undefined) : Array.isArray(header) ? header[0] : header,
      params: [],
      bodyBytes: 0,
    };
    void (async () => {
      let answer: Answer;
      try {
        answer = await route(ex);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (req.destroyed && !req.complete) {
          log(`${method} ${path} tenant=${ex.tenant || '-'} - ${ex.requestId} client gone: ${message}`);
          return;
        }
        // The answer says no more than that: an exception's message may hold a path of this machine
        // (docs/security.md, "The sandbox"). The log line, on the user's own terminal, has it.
        answer = {
          status: 500,
          error: `internal sandbox error (request ${ex.requestId}; the sandbox's log has the details)`,
          what: `internal error: ${message}`,
        };
      }
      await send(ex, answer).catch((error: unknown) => {
        log(
          `${method} ${path} tenant=${ex.tenant || '-'} - ${ex.requestId} could not answer: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    })();
  });
  capConnections(server, options.maxConnections ?? sandboxDefaults.maxConnections, log);

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ host, port: options.port ?? sandboxDefaults.port });
  });

  // After start-up an error of the listening socket (too many open files, say) is logged, not thrown:
  // an unhandled 'error' event would end the process.
  server.on('error', (error) => log(`server error: ${error.message}`));

  const address = server.address() as AddressInfo;
  hosts = allowedHosts(address.address, host, address.port, isLoopbackHost, allowHosts);
  checkEveryPath = isLoopbackHost(address.address);
  let closed: Promise<void> | undefined;
  return {
    url: baseUrl(address.address, address.port),
    host: address.address,
    port: address.port,
    tenants,
    duplicates,
    botUrl,
    webhookSecret,
    messages: (tenant) => state.messages(tenant),
    events: (filter = {}) => [...state.events(filter)],
    subscribe: (listener) => state.subscribe(listener),
    conversation: (sessionId) => {
      const thread = state.thread(sessionId);
      return thread ? state.view(thread) : undefined;
    },
    sizes: (tenant) => state.sizesOf(tenant),
    reasons: (tenant) => state.reasons(tenant),
    reset: (tenant) => state.reset(tenant),
    customer: customer.direct,
    close: () => {
      closed ??= new Promise<void>((resolve, reject) => {
        closing.abort();
        sender?.close();
        for (const stream of streams) stream.end();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
        // A client still sending a body would hold the server open; a second is enough to finish.
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      });
      return closed;
    },
  };
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
