import type { Problem } from '../errors.js';
import type { MarkdownRenderer } from '../markdown/safe-html.js';
import { validateGreeting, validateReason, validateReply, type Limits } from '../payload/index.js';
import { invalid, userAgentOf, type Answer, type Exchange } from './exchange.js';
import { formatProblems } from './http.js';
import type { ReplyOutcome, SandboxState } from './state.js';

/**
 * The API's three operations (docs/api.md, "Endpoints"), once a request has passed the common checks
 * of api.ts: each validates its body with the payload schema, asks the state, and says what happened
 * for the log line. The state records each outcome as an event of its own (`recorded`).
 */

export interface OperationDeps {
  state: SandboxState;
  /** The service's quick-reply limits, when a test wants them enforced. */
  limits: Limits | undefined;
  /** A reply's Markdown as safe HTML, written once as the answer is recorded (src/markdown/safe-html.ts). */
  renderMarkdown: MarkdownRenderer;
  /** The answer of a one-shot fault armed through POST /_sandbox/probes/faults (faults.ts), or undefined. */
  intercept: (ex: Exchange, tenant: string, body: unknown) => Answer | undefined;
}

/** An API operation: once the request has passed the common checks, handles its parsed body. */
export type OperationHandler = (deps: OperationDeps, ex: Exchange, tenant: string, body: unknown) => Answer;

const withWarnings = (what: string, warnings: Problem[]) =>
  warnings.length === 0 ? what : `${what}; warnings: ${formatProblems(warnings)}`;

/** POST /api/v1/chatbot: a bot answer. */
export const reply: OperationHandler = (deps, ex, tenant, body) => {
  const { state, limits } = deps;
  // A one-shot fault armed through POST /_sandbox/probes/faults answers before the answer is checked.
  const injected = deps.intercept(ex, tenant, body);
  if (injected) return injected;
  const checked = validateReply(body, limits ? { limits } : {});
  if (!checked.ok) return invalid(checked.problems);
  const { formattedText } = checked.value as { formattedText?: string | null };
  const outcome = state.reply(tenant, checked.value, {
    requestId: ex.requestId,
    body,
    bodyBytes: ex.bodyBytes,
    warnings: checked.warnings,
    userAgent: userAgentOf(ex),
    formattedHtml: typeof formattedText === 'string' ? deps.renderMarkdown(formattedText) : null,
  });
  return replyAnswer(state, outcome);
};

/** What a bot answer's outcome is answered with, and its log line. */
function replyAnswer(state: SandboxState, outcome: ReplyOutcome): Answer {
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
}

/** POST /api/v1/chatbot/greet: a greeting. */
export const greet: OperationHandler = (deps, ex, tenant, body) => {
  const { state, limits } = deps;
  const result = validateGreeting(body, limits ? { limits } : {});
  if (!result.ok) return invalid(result.problems);
  const event = state.greeting(tenant, result.value, {
    requestId: ex.requestId,
    body,
    bodyBytes: ex.bodyBytes,
    warnings: result.warnings,
    userAgent: userAgentOf(ex),
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

/** PUT /api/v1/inactivity/reasons: an inactivity reason updated. */
export const updateReason: OperationHandler = (deps, ex, tenant, body) => {
  const result = validateReason(body);
  if (!result.ok) return invalid(result.problems);
  const update = deps.state.updateReason(tenant, result.value, { requestId: ex.requestId });
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
