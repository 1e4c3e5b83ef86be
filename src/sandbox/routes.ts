import { refuseApi } from './api.js';
import type { Answer, Exchange, Handler } from './exchange.js';
import { foreignHost, type AllowedHosts } from './host.js';
import { mediaType } from './http.js';
import type { SandboxState } from './state.js';

/**
 * The routing table of the sandbox, and the rules every request meets before its handler: the Host
 * check, an unknown path (404) or method (405), and the JSON-only rule of requests that change the
 * sandbox's state (docs/sandbox.md, "The Host check and the JSON-only rule"). A request to the API's
 * side refused here is recorded like the API's other refusals (api.ts).
 */

/** The sandbox's own endpoints: the page and everything under /_sandbox. */
export const ownPath = (path: string) => path === '/' || path === '/_sandbox' || path.startsWith('/_sandbox/');

/** The API's side: what a bot sends (src/operations.ts paths), and any other path under /api/. */
const apiPath = (path: string) => path === '/api' || path.startsWith('/api/');

/** The Host values the sandbox answers, and whether the API's paths are checked too (bound to loopback). */
export interface HostRule {
  hosts: AllowedHosts;
  checkEveryPath: boolean;
}

export interface RouteTable {
  /** Routes by exact path: [path, { method: handler }]. */
  exact: Map<string, Record<string, Handler>>;
  /** Routes with a part of the path as a parameter: [pattern, { method: handler }]. */
  patterns: [RegExp, Record<string, Handler>][];
}

export interface RouteHandlers {
  /** The API's operations, by the paths of their descriptors (api.ts). */
  api: [string, Record<string, Handler>][];
  inspect: Record<'messages' | 'reasons' | 'reset' | 'info', Handler>;
  customer: Record<'list' | 'start' | 'show' | 'message' | 'release' | 'test' | 'redeliver', Handler>;
  probes: Record<'probe' | 'arm' | 'showFault' | 'label', Handler>;
  page: Record<'index' | 'file', Handler>;
  agents: Record<'list' | 'status' | 'message', Handler>;
  /** Seeds and snapshots (fixtures.ts). */
  fixtures: Record<'seed' | 'save' | 'list' | 'restore', Handler>;
  /** GET /_sandbox/events (stream.ts). */
  events: Handler;
  /** Routes of a sandbox in bridge mode (src/bridge/): POST /webhook. */
  extra?: [string, Record<string, Handler>][];
}

export function routeTable(handlers: RouteHandlers): RouteTable {
  const { inspect, customer, probes, page, agents, fixtures } = handlers;
  const exact = new Map<string, Record<string, Handler>>([
    ...handlers.api,
    ['/_sandbox/messages', { GET: inspect.messages }],
    ['/_sandbox/reasons', { GET: inspect.reasons }],
    ['/_sandbox/reset', { POST: inspect.reset }],
    ['/_sandbox/info', { GET: inspect.info }],
    ['/_sandbox/conversations', { GET: customer.list, POST: customer.start }],
    ['/_sandbox/probes', { POST: probes.probe }],
    ['/_sandbox/probes/faults', { POST: probes.arm }],
    ['/_sandbox/probes/checks', { POST: probes.label }],
    ['/', { GET: page.index }],
    ['/_sandbox/events', { GET: handlers.events }],
    ['/_sandbox/agents', { GET: agents.list }],
    ['/_sandbox/seed', { POST: fixtures.seed }],
    ['/_sandbox/snapshots', { GET: fixtures.list, POST: fixtures.save }],
    ...(handlers.extra ?? []),
  ]);
  const patterns: [RegExp, Record<string, Handler>][] = [
    [/^\/_sandbox\/conversations\/([^/]+)$/, { GET: customer.show }],
    [/^\/_sandbox\/conversations\/([^/]+)\/messages$/, { POST: customer.message }],
    [/^\/_sandbox\/conversations\/([^/]+)\/release$/, { POST: customer.release }],
    [/^\/_sandbox\/conversations\/([^/]+)\/test$/, { GET: customer.test }],
    [/^\/_sandbox\/conversations\/([^/]+)\/agent-messages$/, { POST: agents.message }],
    [/^\/_sandbox\/agents\/([^/]+)\/status$/, { POST: agents.status }],
    [/^\/_sandbox\/snapshots\/([^/]+)\/restore$/, { POST: fixtures.restore }],
    [/^\/_sandbox\/deliveries\/([^/]+)\/redeliver$/, { POST: customer.redeliver }],
    [/^\/_sandbox\/probes\/faults\/([^/]+)$/, { GET: probes.showFault }],
    [/^\/_sandbox\/page\/([^/]+)$/, { GET: page.file }],
  ];
  return { exact, patterns };
}

/** The methods of the route of `ex.path`, with the parts a pattern captured put in `ex.params`. */
function findRoute(table: RouteTable, ex: Exchange): Record<string, Handler> | undefined {
  const exact = table.exact.get(ex.path);
  if (exact) return exact;
  for (const [pattern, methods] of table.patterns) {
    const match = pattern.exec(ex.path);
    if (match) {
      ex.params = match.slice(1).map((part) => safeDecode(part));
      return methods;
    }
  }
  return undefined;
}

/** Every request that changes the sandbox's state is JSON: a refusal of one that is not, or undefined. */
function notJson(ex: Exchange): Answer | undefined {
  // A plain HTML form on another site (application/x-www-form-urlencoded, multipart/form-data,
  // text/plain) cannot send it.
  if (!ownPath(ex.path) || ex.method === 'GET' || ex.method === 'HEAD') return undefined;
  const type = mediaType(ex.req.headers['content-type']);
  if (type === 'application/json') return undefined;
  return {
    status: 415,
    error:
      type === undefined
        ? `missing Content-Type header: ${ex.method} ${ex.path} takes Content-Type: application/json`
        : `Content-Type must be application/json, not '${type}'`,
    what: 'unsupported content type',
  };
}

/** The handler of a request, or the answer that refuses it before any handler. */
function dispatch(table: RouteTable, ex: Exchange, hostRule: HostRule): Handler | Answer {
  const methods = findRoute(table, ex);
  if (methods === undefined) return { status: 404, error: `no such path: ${ex.path}`, what: 'unknown path' };
  const handler = Object.hasOwn(methods, ex.method) ? methods[ex.method] : undefined;
  if (handler === undefined) {
    const allow = Object.keys(methods).join(', ');
    return {
      status: 405,
      error: `${ex.method} is not allowed on ${ex.path}; use ${allow}`,
      headers: { Allow: allow },
      what: 'method not allowed',
    };
  }
  return notJson(ex) ?? handler;
}

/**
 * Routes one request. A refusal of a request to the API's side (an unknown path, a method no
 * operation takes) is recorded like any refused API request, so a bot posting to a wrong URL sees it
 * in its conversation.
 */
export function route(table: RouteTable, state: SandboxState, hostRule: HostRule, ex: Exchange): Answer | Promise<Answer> {
  // The Host check comes first: a page on another site reaching the port through a DNS name it
  // controls (DNS rebinding) learns nothing, not even which paths exist. It covers the sandbox's own
  // endpoints always, and the API's paths too when the sandbox is bound to loopback: there the
  // default token is public, and only this machine (a browser on it included) can reach the port.
  // Such a refusal is not recorded: a page on another site could otherwise write into the event log.
  if (hostRule.checkEveryPath || ownPath(ex.path)) {
    const foreign = foreignHost(ex.req.headers.host, hostRule.hosts);
    if (foreign) return foreign;
  }
  const found = dispatch(table, ex, hostRule);
  if (typeof found === 'function') return found(ex);
  return apiPath(ex.path) ? refuseApi(state, ex, found) : found;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
