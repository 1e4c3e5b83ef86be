// @ts-check
// The page talks to the sandbox only through its own JSON endpoints (docs/sandbox.md, "The
// customer's side"), so the Host check and the JSON-only rule protect every action it takes: every
// request that changes state is a POST with Content-Type: application/json.

import { parseJson, stringifyJson } from './json.js';

/**
 * What the sandbox's endpoints answer, as the page reads them (json.js): the types the sandbox writes
 * them with, identifiers number or BigInt.
 *
 * @typedef {import('../events.js').PageEvent} PageEvent
 * @typedef {import('../model.js').PageConversation} PageConversation
 * @typedef {import('../model.js').PageReasonRecord} PageReasonRecord
 * @typedef {import('../events.js').JsonRead<import('../inspect.js').SandboxInfo, number | bigint>} SandboxInfo
 * @typedef {{ tenant: string, sessionId: string, coreClientId: number | bigint, clientId: string | null, channel: string }} Started
 * @typedef {{ text: string } | { press: string } | { pick: string }} CustomerMessage
 */

/** A refused request: the status and the message of the sandbox's Error body. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   */
  constructor(status, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** @param {Response} response */
async function errorOf(response) {
  const text = await response.text();
  try {
    const body = parseJson(text);
    if (typeof body?.message === 'string') return new ApiError(response.status, body.message);
  } catch {
    // Not the Error body: the status says enough.
  }
  return new ApiError(response.status, `${response.status} ${response.statusText}`.trim());
}

/**
 * @param {string} path
 * @returns {Promise<any>}
 */
async function getJson(path) {
  const response = await fetch(path, { headers: { Accept: 'application/json' }, cache: 'no-store' });
  if (!response.ok) throw await errorOf(response);
  return parseJson(await response.text());
}

/**
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
async function postJson(path, body = {}) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: stringifyJson(body),
  });
  if (!response.ok) throw await errorOf(response);
  return parseJson(await response.text());
}

/** @param {string} sessionId */
const session = (sessionId) => `/_sandbox/conversations/${encodeURIComponent(sessionId)}`;

/**
 * Every page of a listing, following `next`.
 *
 * @template T
 * @param {string} path
 * @param {string} key
 * @returns {Promise<{ page: any, items: T[] }>}
 */
async function allPages(path, key) {
  /** @type {T[]} */
  const items = [];
  let after = 0;
  for (;;) {
    const separator = path.includes('?') ? '&' : '?';
    const page = await getJson(`${path}${separator}after=${after}&limit=1000`);
    items.push(...page[key]);
    if (page.next === null || page.next === undefined) return { page, items };
    after = page.next;
  }
}

export const api = {
  /** @returns {Promise<SandboxInfo>} */
  info: () => getJson('/_sandbox/info'),
  /** @returns {Promise<PageReasonRecord[]>} */
  reasons: () => getJson('/_sandbox/reasons').then((body) => body.reasons),
  /** @returns {Promise<PageConversation[]>} */
  conversations: () =>
    allPages('/_sandbox/conversations', 'conversations').then((result) => /** @type {PageConversation[]} */ (result.items)),
  /**
   * A conversation's summary and all its kept events.
   *
   * @param {string} sessionId
   * @returns {Promise<{ conversation: PageConversation, events: PageEvent[] }>}
   */
  conversation: async (sessionId) => {
    /** @type {{ page: { conversation: PageConversation }, items: PageEvent[] }} */
    const { page, items } = await allPages(session(sessionId), 'events');
    return { conversation: page.conversation, events: items };
  },
  /**
   * @param {{ channel: string, tenant?: string, clientId?: string, coreClientId?: bigint }} request
   * @returns {Promise<Started>}
   */
  start: (request) => postJson('/_sandbox/conversations', request),
  /**
   * @param {string} sessionId
   * @param {CustomerMessage} message
   */
  send: (sessionId, message) => postJson(`${session(sessionId)}/messages`, message),
  /** @param {string} sessionId */
  release: (sessionId) => postJson(`${session(sessionId)}/release`),
  /** @param {string} deliveryId */
  redeliver: (deliveryId) => postJson(`/_sandbox/deliveries/${encodeURIComponent(deliveryId)}/redeliver`),
  /**
   * The conversation as a `core test` file (YAML): its text and the file name to save it under.
   *
   * @param {string} sessionId
   */
  testFile: async (sessionId) => {
    const response = await fetch(`${session(sessionId)}/test`, { headers: { Accept: 'application/yaml' }, cache: 'no-store' });
    if (!response.ok) throw await errorOf(response);
    const disposition = /filename="?([\w.-]+)"?/.exec(response.headers.get('Content-Disposition') ?? '');
    return { text: await response.text(), name: disposition?.[1] ?? `${sessionId}.yaml` };
  },
};

/**
 * The event stream (GET /_sandbox/events) from `after` on: `onEvent` for each event in order,
 * `onState` with 'live', 'reconnecting'. The browser reconnects by itself, sending Last-Event-ID, so
 * no event is lost or seen twice across a reconnection.
 */
/**
 * @param {number} after
 * @param {(event: PageEvent) => void} onEvent
 * @param {(state: string) => void} onState
 */
export function openEvents(after, onEvent, onState) {
  const source = new EventSource(`/_sandbox/events?after=${after}`);
  source.onopen = () => onState('live');
  source.onerror = () => onState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
  source.onmessage = (message) => {
    /** @type {PageEvent} */
    let event;
    try {
      event = parseJson(message.data);
    } catch {
      return;
    }
    onEvent(event);
  };
  return source;
}
