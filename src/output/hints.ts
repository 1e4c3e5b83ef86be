import type { RequestResult } from './result.js';

/**
 * What to do next after a request failed, by status (docs/exit-codes.md, "Hints"): one line under the
 * failure, on stderr. The API shows the meaning of only two statuses (the reason update's 404 and 409,
 * docs/api.md, reason rules 1 and 2); the others name the likely causes and where to look, without
 * claiming to know the service's reason.
 */

export interface HintContext {
  /** The operation's id (src/operations.ts): `reply`, `greet`, `reason`, or another for `core api`. */
  operation: string;
  /** Whether the request could be repeated at all; a greeting is not, without --retry. */
  retryable: boolean;
  /** The profile's `retries`. */
  retries: number;
}

/** The operations `core schema` prints the rules of (src/operations.ts, PayloadKind). */
const SCHEMAS = new Set(['reply', 'greet', 'reason']);

/**
 * The hint under a failed request, or undefined when there is none to give: a success, a request
 * not sent (skipped, refused by validation), or no answer (the network error says what happened).
 * Every HTTP status that is not a success gets one (the contract, "Everyday use": every HTTP
 * failure ends with a hint of what to do next): the statuses below each have their own, any other
 * 4xx the general one, and any status no branch knows (a 1xx, which is never the end of a request)
 * the last.
 */
export function failureHint(result: RequestResult, context: HintContext): string | undefined {
  if (result.ok || result.skipped || result.validationErrors) return undefined;
  const status = result.status;
  if (status === null) return undefined;
  const attempts = result.attempts ?? 1;
  const repeated = attempts > 1 ? `it was sent ${attempts} times` : context.retryable ? 'it was sent once' : 'it was not repeated';
  const reason = context.operation === 'reason';
  switch (status) {
    case 400:
    case 422:
      // Bad Request and Unprocessable Content: the request arrived and was read; its content broke a rule.
      return `the service refused what the request holds (HTTP ${status}): its message says which field; ${
        SCHEMAS.has(context.operation)
          ? `check the payload against the rules core schema ${context.operation} prints`
          : 'check the body against the API (docs/api.md): core api does not check it'
      }`;
    case 401:
      return `the service did not accept the ${reason ? 'integrator token (else the token)' : 'token'}: check it and where it came from with core config show, and that it has not expired`;
    case 403:
      return reason
        ? 'the token was accepted but may not do this: updating reasons needs the INTEGRATOR permission (set integratorToken or CORE_INTEGRATOR_TOKEN), and the tenant must be right (X-Tenant-Name)'
        : 'the token was accepted but may not do this: check the tenant (X-Tenant-Name, core config show) and the permissions of the token';
    case 404:
      return reason
        ? 'no inactivity reason has this code: the update changes existing reasons only; check the code and the tenant'
        : 'the service knows no such target: check the base URL (with any path prefix), the identifiers (questionId, sessionId with questionIndex) and the tenant';
    case 405:
    case 410:
      // Method Not Allowed and Gone: the address or the method is not (or no longer) the service's.
      return `the service refused this method or endpoint (HTTP ${status}): check the base URL (with any path prefix; core config show) and that this version of core (core --version) speaks the service's API`;
    case 407:
      // A proxy that takes plain http as absolute-URI requests answers for itself (an https tunnel's
      // refusal is EPROXY, with no status).
      return `a proxy asked for credentials (HTTP 407): give them in the proxy URL (http://user:password@proxy:3128) of the profile's proxy or HTTPS_PROXY / HTTP_PROXY; core config show says which proxy is used`;
    case 408:
      return `the service stopped waiting for the request (HTTP 408): a slow network or proxy; ${repeated}: try again`;
    case 409:
      return conflictHint(result, context);
    case 413:
      return 'the request is larger than the service takes: shorten the texts, or send fewer quick replies, attachments or list items';
    case 415:
      return 'the service did not take the body as JSON: core sends Content-Type: application/json, so check that no proxy or header in the profile changes it';
    case 429:
      return rateLimitHint(result, context, repeated);
    case 431:
      return "the request's headers are larger than the service takes (HTTP 431): check the profile's headers (core config show)";
    default:
      return otherStatusHint(status, result, context, repeated);
  }
}

/** 409: the active reasons' limit, a thread with agents, or a second answer (strict mode). */
function conflictHint(result: RequestResult, context: HintContext): string {
  const message = (result.error as { message?: unknown } | null)?.message;
  // The sandbox's words for an answer into a thread (or to a question) with agents (docs/api.md,
  // gap 5); a service that says so gets the same hint.
  const withAgents = typeof message === 'string' && /\bwith agents\b|\bpassed to agents\b/i.test(message);
  return context.operation === 'reason'
    ? 'too many inactivity reasons would be active: make another inactive first (--inactive), or send this one with --inactive'
    : withAgents
      ? 'the thread (or the question) is with agents, so a bot message is refused: release the thread to the bot first (in core sandbox: "Give back to the bot" on the page, or POST /_sandbox/conversations/SESSION/release), then send again'
      : context.operation === 'reply'
        ? 'the question may already have a bot answer and the service rejects a second one (strict mode): answer a new question, or address the reply by another way'
        : 'the service refused the request as conflicting with its state';
}

/** 429: how long the service asked to wait, or how the run waited between attempts. */
function rateLimitHint(result: RequestResult, context: HintContext, repeated: string): string {
  const attempts = result.attempts ?? 1;
  const reason = context.operation === 'reason';
  if (result.retryAfterMs !== undefined && attempts === 1 && context.retryable)
    return `the service limits the rate of requests and asked to wait ${Math.ceil(result.retryAfterMs / 1000)} s (Retry-After), longer than core waits, so it was not repeated: try again after that${reason ? ', or lower --concurrency' : ''}`;
  // How it waited between attempts: as the last answer's Retry-After asked or, with none, with a
  // backoff of the whole run (docs/security.md, "Rate limits").
  const waited =
    attempts === 1
      ? ''
      : result.retryAfterMs !== undefined
        ? ', waiting as Retry-After asked'
        : ', waiting longer each time, as the service sent no Retry-After';
  return `the service limits the rate of requests; ${repeated}${waited}: try again later${reason ? ', or lower --concurrency' : ''}`;
}

/** A status without a hint of its own: a 5xx (with or without Retry-After), a redirect, another 4xx, anything else. */
function otherStatusHint(status: number, result: RequestResult, context: HintContext, repeated: string): string {
  const attempts = result.attempts ?? 1;
  if (status >= 500 && result.retryAfterMs !== undefined && context.retryable) {
    // What stopped the send was the service's own request to wait, which retries do not count:
    // raising them would change nothing.
    const seconds = Math.ceil(result.retryAfterMs / 1000);
    const asked = `the service is unavailable (HTTP ${status}) and asked to wait ${seconds} s (Retry-After)`;
    return attempts > 1
      ? `${asked}; it was sent ${attempts} times, each after the wait it asked for: try again later`
      : `${asked}, longer than core waits, so it was not repeated: try again after that`;
  }
  if (status >= 500) {
    const more = context.retryable
      ? `; raise retries in the profile (now ${context.retries}) or try again later`
      : context.operation === 'greet'
        ? '; a greeting is repeated only with --retry, as a repeat could greet twice'
        : '; try again later';
    return `the service failed (HTTP ${status}); ${repeated}${more}`;
  }
  if (status >= 300 && status < 400)
    return 'set the base URL to the address the service points to (core config show says where it comes from)';
  if (status >= 400 && status < 500)
    return `the service refused the request (HTTP ${status}): its message may say why; check the base URL and the tenant (core config show), and that this version of core (core --version) speaks the service's API`;
  return `the service answered HTTP ${status}, which core does not expect as the end of a request: check the base URL (core config show), and whether a proxy or gateway answered instead of the service`;
}
