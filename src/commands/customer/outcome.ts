import { CoreError, ExitCode, exitCodeForStatus } from '../../errors.js';
import type { WaitResult } from '../../customer/wait.js';
import type { SandboxEvent } from '../../sandbox/events.js';
import { htmlSummary } from '../../output/result.js';
import type { SandboxAnswer } from '../../platform/connection.js';
import { formatDuration } from '../../text/duration.js';
import { describeRefusal } from './render.js';

/**
 * How an exchange of `core customer` ends when it does not end well: the sandbox refused the
 * customer's request (exit 4), the bot's answer did not come (exit 6), or the sandbox refused one of
 * the bot's requests (exit 6); each with its message and a hint of what to change.
 */

/**
 * The sandbox refused the customer's request: exit 4 (5 for a 5xx), its message as the sandbox wrote it. An answer
 * that is no refusal but not what a sandbox answers either (a 200 where 201 was due) is exit 4 too.
 */
export class SandboxRefusedError extends CoreError {
  constructor(
    readonly answer: SandboxAnswer,
    what: string,
    hint?: string,
  ) {
    const message = (answer.json as { message?: unknown } | undefined)?.message;
    const said = typeof message === 'string' ? message : bodyText(answer);
    super(
      answer.status < 400
        ? `the server answered ${answer.status} to ${what}, not as a core sandbox answers: ${said}`
        : `the sandbox refused ${what} (${answer.status}): ${said}`,
      answer.status >= 500 ? exitCodeForStatus(answer.status) : ExitCode.http4xx,
      'EREFUSED',
      hint ? { hint } : {},
    );
  }
}

/** A body that is not the sandbox's JSON: an HTML page (a proxy's) in one line, else its text cut to 2 KB. */
export function bodyText(answer: SandboxAnswer): string {
  return htmlSummary(answer.text) ?? (answer.text.slice(0, 2048) || '(no body)');
}

/** No answer from the bot in time, or none can come (exit 6). */
export class NoAnswerError extends CoreError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.network, 'ENOANSWER', hint ? { hint } : {});
  }
}

/** The sandbox refused one of the bot's API requests during the wait (exit 6, as no answer). */
export class BotRefusedError extends CoreError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.network, 'EBOTREFUSED', hint ? { hint } : {});
  }
}

/**
 * The error line of a wait ended by refusals: the one refusal, or how many (each is listed above it
 * on stderr, or in `refused` in JSON).
 */
export function refusedMessage(refused: SandboxEvent[], listed = 'listed above'): string {
  if (refused.length === 1) return `the sandbox refused the bot's ${describeRefusal(refused[0]!)}`;
  return `the sandbox refused ${refused.length} of the bot's requests (${listed})`;
}

/**
 * What the bot should change, from the first refusal's status: the sandbox's message says what was
 * wrong, the hint where the right value comes from. Never to wait longer: a refusal does not heal.
 */
export function refusedHint(refused: SandboxEvent[]): string | undefined {
  const first = refused[0];
  if (first === undefined) return undefined;
  switch ('status' in first ? first.status : null) {
    case 401:
      return "the bot must send Authorization: Bearer with the sandbox's token (CORE_TOKEN in the lines core sandbox prints)";
    case 403:
      return 'the bot must name a tenant of the sandbox in X-Tenant-Name (CORE_TENANT in the lines core sandbox prints)';
    case 404:
      return 'the bot must answer the question of the MESSAGE webhook it received: its questionId, or sessionId with questionIndex';
    case 400:
      return "the bot's request breaks a rule of the API, named in the message; core schema reply prints the rules of an answer";
    case 409:
      return first.type === 'bot.answer' && /agents/.test(first.error ?? first.notDelivered ?? '')
        ? 'the thread is with agents: give it back to the bot (the page, or POST /_sandbox/conversations/SESSION/release) before the bot answers'
        : 'the request conflicts with the state of the conversation, as the message says';
    case 413:
      return 'the request is larger than the API takes: shorter texts, fewer quick replies, attachments or list items';
    case 415:
      return 'the bot must send its body as JSON, with Content-Type: application/json';
    default:
      return undefined;
  }
}

export function noAnswerMessage(end: string, result: WaitResult, waitMs: number, noWebhook: string | null): string {
  const refusedCount = result.answers.filter((a) => a.delivered !== true).length;
  const refusedNote = refusedCount > 0 ? ` (${refusedCount} answer${refusedCount === 1 ? ' was' : 's were'} not delivered; see above)` : '';
  switch (end) {
    case 'with-agents':
      return `no answer can come from the bot: ${noWebhook ?? 'the thread is with agents'}, so no webhook was sent`;
    case 'webhook-failed': {
      const last = result.attempts.at(-1);
      const why = last ? (last.status != null ? `status ${String(last.status)}` : String(last.error)) : 'no attempt';
      return `the webhook was not delivered after ${result.attempts.length} attempt${result.attempts.length === 1 ? '' : 's'} (last: ${why}), and no answer came`;
    }
    case 'stream-ended':
      return 'the sandbox closed the event stream before the bot answered';
    default:
      return `no answer from the bot within ${formatDuration(waitMs)}${refusedNote}`;
  }
}

export function noAnswerHint(end: string, sessionId: string): string | undefined {
  if (end === 'with-agents')
    return `give the thread back to the bot: curl -X POST -H 'Content-Type: application/json' $CORE_BASE_URL/_sandbox/conversations/${sessionId}/release`;
  if (end === 'webhook-failed')
    return "check the bot is running at the sandbox's --bot-url and verifies with CORE_WEBHOOK_SECRET; the attempts are in the sandbox's log";
  if (end === 'no-answer')
    return 'wait longer with --wait 30s, or check the bot answers POST /api/v1/chatbot (the sandbox logs each request)';
  return undefined;
}
