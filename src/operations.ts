/**
 * The API's operations (docs/api.md, "Endpoints"), one descriptor each. The sender
 * (src/send/session.ts), the sandbox's API routes (src/sandbox/api.ts) and the OpenAPI generator
 * (scripts/docs/openapi.ts) read them from here instead of keeping lists of their own.
 *
 * A pure module: no imports, so any part of the program can read it without loading anything.
 */

/** Which credential a request carries (docs/api.md, "Authentication"). */
export type Credential = 'bot' | 'integrator';

/**
 * When a failed request may be repeated (docs/security.md, "Retries"): only when a repeat cannot
 * deliver twice.
 * - `always`: repeating it sets the same state again (the reason update).
 * - `with-answer-id`: when the payload carries an answerId, which the service delivers once
 *   (docs/api.md, chatbot rule 6).
 * - `opt-in`: only when the user asks for it (`--retry`): a repeat may deliver twice (the greeting).
 * - `never`: not repeated.
 */
export type RetryRule = 'always' | 'with-answer-id' | 'opt-in' | 'never';

/** The payload schemas of src/payload/, by the name `core schema` gives them. */
export type PayloadKind = 'reply' | 'greet' | 'reason';

export interface Operation {
  /** A short name for code and file names. */
  readonly id: string;
  /** What one request is called in messages: "the reply is invalid". */
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path below the base URL, starting with /api/v1. */
  readonly path: string;
  readonly credential: Credential;
  readonly retry: RetryRule;
  /** The schema that checks the request body; none for a request core does not know. */
  readonly payload: PayloadKind | null;
}

export const operations = {
  /** POST /api/v1/chatbot: a bot answer (docs/api.md, "POST /api/v1/chatbot"). */
  reply: {
    id: 'reply',
    name: 'reply',
    method: 'POST',
    path: '/api/v1/chatbot',
    credential: 'bot',
    retry: 'with-answer-id',
    payload: 'reply',
  },
  /** POST /api/v1/chatbot/greet: the bot's first, proactive greeting. */
  greet: {
    id: 'greet',
    name: 'greeting',
    method: 'POST',
    path: '/api/v1/chatbot/greet',
    credential: 'bot',
    retry: 'opt-in',
    payload: 'greet',
  },
  /** PUT /api/v1/inactivity/reasons: update an existing inactivity reason; needs INTEGRATOR. */
  reason: {
    id: 'reason',
    name: 'reason update',
    method: 'PUT',
    path: '/api/v1/inactivity/reasons',
    credential: 'integrator',
    retry: 'always',
    payload: 'reason',
  },
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof operations;

/** Every operation of the API, in the order docs/api.md lists them. */
export const OPERATIONS: readonly Operation[] = Object.values(operations);

/**
 * Whether one request of `operation` may be repeated after a failure.
 * `answerId`: the payload's answerId, if any; `optIn`: the user asked for retries (`--retry`).
 */
export function mayRetry(operation: Pick<Operation, 'retry'>, request: { answerId?: unknown; optIn?: boolean }): boolean {
  switch (operation.retry) {
    case 'always':
      return true;
    case 'with-answer-id':
      return typeof request.answerId === 'string' && request.answerId !== '';
    case 'opt-in':
      return request.optIn === true;
    case 'never':
      return false;
  }
}
