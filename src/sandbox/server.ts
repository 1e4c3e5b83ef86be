import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Problem } from '../errors.js';
import { operations, type Credential, type OperationId } from '../operations.js';
import { validateGreeting, validateReason, validateReply } from '../payload/index.js';
import { parseJson, stringifyJson } from '../payload/json.js';
import { baseUrl, errorBody, formatProblems, mediaType, readBody, readCredential, splitTarget } from './http.js';
import { maxBodyBytes, percent, sandboxDefaults, sandboxOptionProblems, type DuplicateMode, type SandboxOptions } from './options.js';
import { defaultReasons, prepareReasons } from './seed.js';
import { SandboxState, type MessageRecord, type ReasonRecord } from './state.js';

/**
 * A local implementation of the API's three operations (docs/api.md, "Endpoints") on node:http,
 * stateful and inspectable. Where the API does not show a behaviour (statuses for bad
 * credentials or invalid input, the strict-duplicate status, tenant errors) the choice made here
 * is the sandbox's own and is listed in docs/sandbox.md.
 */

export type { DuplicateMode, SandboxOptions, FaultOptions } from './options.js';
export type { MessageRecord, ReasonRecord } from './state.js';

export interface Sandbox {
  /** The base URL to send requests to, such as http://127.0.0.1:43121 (no trailing slash). */
  readonly url: string;
  /** The address bound. */
  readonly host: string;
  readonly port: number;
  readonly tenants: readonly string[];
  readonly duplicates: DuplicateMode;
  /** What GET /_sandbox/messages returns: every recorded answer and greeting, of one tenant or all. */
  messages(tenant?: string): MessageRecord[];
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

/** What one request is answered with, decided before anything is written. */
interface Answer {
  status: number;
  /** The message of the Error body; every error answer has one. */
  error?: string;
  /** A JSON body of a successful inspection answer (API successes have no body). */
  json?: unknown;
  headers?: Record<string, string>;
  /** What happened, for the log line. */
  what: string;
  /** Close the connection after answering, without reading the rest of the request. */
  close?: boolean;
}

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  method: string;
  path: string;
  query: URLSearchParams;
  /** The X-Tenant-Name header, or the ?tenant= of an inspection request. */
  tenant: string | undefined;
}

type Handler = (ex: Exchange) => Answer | Promise<Answer>;

/** Which token an operation needs (docs/api.md, "Authentication"): the descriptor's credential. */
type Role = Credential;

/** An API operation: once the request has passed the common checks, handles its parsed body. */
type OperationHandler = (ex: Exchange, tenant: string, body: unknown) => Answer;

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
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

  const state = new SandboxState({ tenants, seedReasons: seed.reasons, duplicates, maxActiveReasons });
  // Aborted by close(): cuts every latency wait short so in-flight requests are answered at once.
  const closing = new AbortController();

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

  const invalid = (problems: Problem[]): Answer => {
    const message = formatProblems(problems);
    return { status: 400, error: message, what: `invalid: ${message}` };
  };

  const api =
    (role: Role, operation: OperationHandler): Handler =>
    async (ex) => {
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
      const read = await readBody(ex.req, maxBodyBytes);
      if (!read.ok) return tooLarge();
      let body: unknown;
      try {
        body = parseJson(new TextDecoder('utf-8', { fatal: true }).decode(read.bytes));
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { status: 400, error: `the request body is not valid JSON: ${reason}`, what: 'invalid: not JSON' };
      }
      return operation(ex, ex.tenant, body);
    };

  // ---- the three operations -------------------------------------------------------------------

  const withWarnings = (what: string, warnings: Problem[]) =>
    warnings.length === 0 ? what : `${what}; warnings: ${formatProblems(warnings)}`;

  const reply: OperationHandler = (ex, tenant, body) => {
    const checked = validateReply(body, limits ? { limits } : {});
    if (!checked.ok) return invalid(checked.problems);
    const { outcome, record, answered } = state.reply(tenant, checked.value, { requestId: ex.requestId, body, warnings: checked.warnings });
    const id = `answerId=${record.answerId ?? '(none)'}`;
    const addressed = `addressedBy=${record.addressedBy.join(',') || '(none)'}`;
    switch (outcome) {
      case 'delivered': {
        const note = record.questionAlreadyAnswered ? ' (question already answered; soft mode delivers it)' : '';
        return { status: 200, what: withWarnings(`delivered ${id} ${addressed}${note}`, checked.warnings) };
      }
      case 'duplicate-answer-id':
        // Chatbot rule 6: a repeated answerId is accepted but not delivered again.
        return { status: 200, what: `duplicate answerId, not delivered ${id}` };
      case 'rejected-strict-duplicate':
        // Chatbot rule 7, strict mode; the API does not show the status (docs/api.md, gap 9), 409 is the sandbox's choice.
        return {
          status: 409,
          error:
            `the question (${answered.join('; ')}) already has a bot answer; ` +
            'in strict duplicate mode a second answer is rejected and not delivered',
          what: `rejected (strict duplicate), not delivered ${id} ${addressed}`,
        };
    }
  };

  const greet: OperationHandler = (ex, tenant, body) => {
    const result = validateGreeting(body, limits ? { limits } : {});
    if (!result.ok) return invalid(result.problems);
    const record = state.greeting(tenant, result.value, { requestId: ex.requestId, body, warnings: result.warnings });
    const [by] = record.addressedBy;
    // Greet rule 3: with both identifiers, clientId takes priority; the log says so.
    const both = by === 'clientId' && result.value.coreClientId != null;
    const note = both ? ' (coreClientId also given; clientId takes priority)' : '';
    return { status: 200, what: withWarnings(`greeting delivered addressedBy=${by ?? '(none)'}${note}`, result.warnings) };
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
      what: withWarnings(`reason updated code=${update.record.code} active=${String(update.record.reason.active)}`, result.warnings),
    };
  };

  // ---- inspection (no auth: a local test tool's own controls) -----------------------------------

  const inspect =
    (run: (tenant: string | undefined) => Omit<Answer, 'status'>): Handler =>
    (ex) => {
      const tenant = ex.query.get('tenant') ?? undefined;
      if (tenant !== undefined && !state.hasTenant(tenant)) {
        return { status: 404, error: `no tenant '${tenant}' (tenants: ${state.tenantNames.join(', ')})`, what: 'unknown tenant' };
      }
      return { status: 200, ...run(tenant) };
    };

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
        GET: inspect((tenant) => {
          const messages = state.messages(tenant);
          return { json: { messages }, what: `listed ${count(messages.length, 'message')}` };
        }),
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
        POST: inspect((tenant) => {
          const reset = state.reset(tenant);
          return { json: { reset }, what: `reset ${reset.join(', ')}` };
        }),
      },
    ],
  ]);

  const route = (ex: Exchange): Answer | Promise<Answer> => {
    const methods = routes.get(ex.path);
    if (methods === undefined) return { status: 404, error: `no such path: ${ex.path}`, what: 'unknown path' };
    const handler = methods[ex.method];
    if (handler === undefined) {
      const allow = Object.keys(methods).join(', ');
      return {
        status: 405,
        error: `${ex.method} is not allowed on ${ex.path}; use ${allow}`,
        headers: { Allow: allow },
        what: 'method not allowed',
      };
    }
    return handler(ex);
  };

  // ---- answering --------------------------------------------------------------------------------

  const send = async (ex: Exchange, answer: Answer): Promise<void> => {
    if (latencyMs > 0) {
      // The delay comes after the request was handled, as with a slow network: a client that
      // times out and retries meets the state its first attempt already changed.
      await sleep(latencyMs, undefined, { signal: closing.signal }).catch(() => {});
    }
    const line = `${ex.method} ${ex.path} tenant=${ex.tenant || '-'} ${answer.status} ${ex.requestId} ${answer.what}`;
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

  const server = createServer((req, res) => {
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
      tenant: path.startsWith('/_sandbox/') ? (query.get('tenant') ?? undefined) : Array.isArray(header) ? header[0] : header,
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
        answer = { status: 500, error: `internal sandbox error: ${message}`, what: `internal error: ${message}` };
      }
      await send(ex, answer).catch((error: unknown) => {
        log(
          `${method} ${path} tenant=${ex.tenant || '-'} - ${ex.requestId} could not answer: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    })();
  });

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
  let closed: Promise<void> | undefined;
  return {
    url: baseUrl(address.address, address.port),
    host: address.address,
    port: address.port,
    tenants,
    duplicates,
    messages: (tenant) => state.messages(tenant),
    reasons: (tenant) => state.reasons(tenant),
    reset: (tenant) => state.reset(tenant),
    close: () => {
      closed ??= new Promise<void>((resolve, reject) => {
        closing.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
        // A client still sending a body would hold the server open; a second is enough to finish.
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      });
      return closed;
    },
  };
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
