import type { DeliveryInFlight, EventFields, NamedIdentifiers } from '../events.js';
import type { TenantView } from '../model.js';

/**
 * A refused API request is tied to the conversation its body names (docs/sandbox.md, "Events"),
 * whatever the refusal, so the customer's side sees it at once. The identifiers are read from the
 * body as sent, before (or without) any check of it: a bot that sends its questionId as a string of
 * digits still gets its refusal tied. Nothing else of the body is kept (never a token or a secret).
 */

export type { NamedIdentifiers } from '../events.js';
export const noIdentifiers: NamedIdentifiers = Object.freeze({
  questionId: null,
  questionIndex: null,
  sessionId: null,
  coreClientId: null,
  clientId: null,
});

/** The longest identifier string kept in a record: a sessionId or clientId longer than this is cut there. */
export const maxNamedLength = 256;

const whole = /^-?\d{1,19}$/;

function integer(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'string' && whole.test(value)) return BigInt(value);
  return null;
}

function text(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  return value.slice(0, maxNamedLength);
}

/** The identifiers a request body names; all null for a body that is not a JSON object. */
export function namedIdentifiers(body: unknown): NamedIdentifiers {
  if (typeof body !== 'object' || body === null) return noIdentifiers;
  const fields = body as Record<string, unknown>;
  return {
    questionId: integer(fields.questionId),
    questionIndex: integer(fields.questionIndex),
    sessionId: text(fields.sessionId),
    coreClientId: integer(fields.coreClientId),
    clientId: text(fields.clientId),
  };
}

/**
 * The conversation a request is tied to: the thread of the question it names by questionId, else
 * the thread it names by sessionId, else the most recent thread of the client it names by
 * coreClientId, else by clientId; null when the tenant keeps none of them.
 */
export function tiedSession(view: TenantView, named: NamedIdentifiers): string | null {
  if (named.questionId !== null) {
    const question = view.questions.get(named.questionId);
    if (question) return question.thread.sessionId;
  }
  if (named.sessionId !== null && view.threads.has(named.sessionId)) return named.sessionId;
  const byCore = named.coreClientId === null ? undefined : view.clients.get(named.coreClientId);
  if (byCore?.latest) return byCore.latest.sessionId;
  const byExternal = named.clientId === null ? undefined : view.clientsByExternalId.get(named.clientId);
  return byExternal?.latest?.sessionId ?? null;
}

/** A refused API request, as the server saw it; its body is read for the identifiers it names. */
export interface RefusedRequest {
  method: string;
  path: string;
  status: number;
  requestId: string;
  error: string | null;
  body: unknown;
  /** The request's User-Agent, as userAgentOf (src/sandbox/exchange.ts) keeps it. */
  userAgent: string | null;
}

/**
 * The event of a refused API request: tied to the conversation its body names (scope
 * "conversation"), else tenant-wide ("tenant"); `view` is the sandbox-wide log (name "") for a
 * request that named no tenant served here ("sandbox").
 */
export function refusedRequest(view: TenantView, request: RefusedRequest): EventFields<'api.request'> {
  const named = namedIdentifiers(request.body);
  const sessionId = view.name === '' ? null : tiedSession(view, named);
  const scope = sessionId !== null ? 'conversation' : view.name === '' ? 'sandbox' : 'tenant';
  const { method, path, status, requestId, error, userAgent } = request;
  return { type: 'api.request', sessionId, scope, method, path, status, requestId, error, named, userAgent, during: [] };
}

/** A refusal as a rule returns it: an api.request, or a bot answer or greeting with a status of 400 or more. */
type RefusalFields = EventFields<'api.request'> | EventFields<'bot.answer'> | EventFields<'greeting'>;

/**
 * A refusal its body ties to no conversation, tied by time (docs/sandbox.md, "Refusals during a
 * delivery"): `inFlight` are the tenant's deliveries with an attempt sent to the bot and not yet
 * answered. With exactly one, the refusal belongs to that exchange: it takes its conversation's
 * sessionId (an api.request the scope "delivery"), so the page, `core customer say` and `core test`
 * treat it as a refusal of that conversation. With several, it stays tied to none and names them all
 * in `during`. Anything else (a success, a refusal tied by its body, none in flight) is returned as it is.
 */
export function duringDelivery<F extends RefusalFields>(fields: F, inFlight: readonly DeliveryInFlight[]): F {
  if (fields.sessionId !== null || fields.status < 400 || inFlight.length === 0) return fields;
  const during = inFlight.map(({ sessionId, questionId, deliveryId }) => ({ sessionId, questionId, deliveryId }));
  if (during.length > 1) return { ...fields, during };
  const sessionId = during[0]!.sessionId;
  return fields.type === 'api.request' ? { ...fields, during, sessionId, scope: 'delivery' } : { ...fields, during, sessionId };
}
