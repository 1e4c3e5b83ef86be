import { statusText } from '../../output/result.js';
import { printable } from '../../output/terminal.js';
import type { WaitResult } from '../../customer/wait.js';
import { UNICODE_GLYPHS, type Glyphs } from '../../output/glyphs.js';
import type { BotAnswerEvent, HandoverEvent, SandboxEvent } from '../../sandbox/events.js';

/**
 * The human view of one exchange of `core customer`: each bot answer drawn as the composer's preview
 * draws a message (src/prompts/preview.ts), hand-overs as a line, on stdout; the webhook attempts and
 * the answers' warnings on stderr.
 */

export interface RenderOptions {
  columns: number;
  color: { stdout: boolean; stderr: boolean };
  /** The glyphs drawn (the context's: ASCII under a locale that is not UTF-8); Unicode when not given. */
  glyphs?: Glyphs;
}

const list = (value: readonly bigint[]) => (value.length > 0 ? value.map(String).join(', ') : undefined);

export function targetsOf(event: Pick<HandoverEvent, 'userIds' | 'skillIds' | 'unitIds'>): string {
  const parts = [
    list(event.userIds) && `agents ${list(event.userIds)}`,
    list(event.skillIds) && `skills ${list(event.skillIds)}`,
    list(event.unitIds) && `units ${list(event.unitIds)}`,
  ].filter(Boolean);
  return parts.length > 0 ? `; ${parts.join(', ')}` : '';
}

function titleOf(answer: BotAnswerEvent, glyphs: Glyphs): string {
  const dot = glyphs.separator;
  const body = (answer.body ?? {}) as Record<string, unknown>;
  const to =
    answer.questionIndex != null ? `to question ${String(answer.questionIndex)}` : `to coreClientId ${String(answer.coreClientId)}`;
  const code = typeof body.code === 'string' ? `${dot}${body.code}` : '';
  if (answer.delivered === true) return `Bot${dot}answer ${to}${code}`;
  return `Bot${dot}answer ${to}${code}${dot}NOT DELIVERED (${String(answer.status)}: ${String(answer.notDelivered)})`;
}

/**
 * One refused request of the bot, in a line: what it was, the status and the sandbox's message, and
 * whether the sandbox could tie it to a conversation. The message may quote the bot's values, so it
 * is made printable.
 */
export function describeRefusal(event: SandboxEvent): string {
  const method = event.type === 'api.request' ? event.method : 'POST';
  const path = event.type === 'api.request' ? event.path : event.type === 'greeting' ? '/api/v1/chatbot/greet' : '/api/v1/chatbot';
  const status = Number('status' in event ? event.status : null);
  const error = 'error' in event ? event.error : null;
  const notDelivered = 'notDelivered' in event ? event.notDelivered : null;
  const message = error !== null && error !== '' ? error : notDelivered;
  const untied = event.sessionId === null ? ' (not tied to a conversation)' : '';
  return printable(`${method} ${path}: ${status} ${statusText(status)}`.trimEnd() + (message !== null ? `: ${message}` : '') + untied);
}

/** Who has the thread after a routing event: an agent (and what matched), the queue (and why), or the bot again. */
export function routingLine(event: {
  type: string;
  scope?: string;
  agentId?: unknown;
  agentName?: unknown;
  matched?: unknown;
  why?: unknown;
  fromQueue?: unknown;
}): string {
  const what = event.scope === 'question' ? 'the question' : 'the thread';
  if (event.type === 'released') return 'the thread is back with the bot';
  if (event.type === 'handover.queued') return `${what} waits in the queue: ${String(event.why)}`;
  const matched =
    Array.isArray(event.matched) && event.matched.length > 0 ? `matched by ${event.matched.join(' and ')}` : 'no targets: any agent';
  return `${what} is with agent ${String(event.agentId)} (${String(event.agentName)}; ${matched}${event.fromQueue === true ? ', from the queue' : ''})`;
}

/** The webhook's attempts of an exchange, a line each, for stderr. */
function attemptLines(result: WaitResult): string {
  let err = '';
  for (const attempt of result.attempts) {
    const what =
      attempt.status != null ? `${String(attempt.status)}${attempt.error ? ` (${String(attempt.error)})` : ''}` : String(attempt.error);
    const retry = attempt.retryInMs != null ? `, next attempt in ${String(attempt.retryInMs)} ms` : '';
    err += `webhook ${String(attempt.deliveryId)} attempt ${String(attempt.attempt)}: ${what} in ${String(attempt.latencyMs)} ms, ${String(attempt.outcome)}${retry}\n`;
  }
  if (result.delivery === 'pending') err += 'webhook: still being attempted when the wait ended\n';
  return err;
}

export async function renderExchange(exchange: WaitResult, options: RenderOptions): Promise<{ out: string; err: string }> {
  const [{ renderPreview }, { makeStyle }, { outsideValue }] = await Promise.all([
    import('../../prompts/preview.js'),
    import('../../output/style.js'),
    import('../../output/terminal.js'),
  ]);
  // Every value here is the bot's or the sandbox's (texts, labels, answerIds, codes, errors): made
  // plain text before it is laid out, so only core's own styling reaches the terminal as escapes.
  const result = outsideValue(exchange);
  const glyphs = options.glyphs ?? UNICODE_GLYPHS;
  const style = makeStyle(options.color.stdout, glyphs);
  const errStyle = makeStyle(options.color.stderr, glyphs);
  let out = '';
  let err = attemptLines(result);

  const shown = [...result.answers, ...result.handovers, ...result.routings, ...result.agentMessages].sort((a, b) =>
    Number(BigInt(a.seq) - BigInt(b.seq)),
  );
  for (const event of shown) {
    if (event.type === 'handover.routed' || event.type === 'handover.queued' || event.type === 'released') {
      out += `${style.yellow(`${glyphs.arrow} ${routingLine(event)}`)}\n`;
      continue;
    }
    if (event.type === 'agent.message') {
      out += renderPreview(
        { text: event.text },
        { title: `Agent${glyphs.separator}${String(event.agentName)} (${String(event.agentId)})`, columns: options.columns, style },
      );
      continue;
    }
    if (event.type === 'handover') {
      const what =
        event.scope === 'thread' ? 'the thread is now with agents' : `question ${String(event.questionIndex)} is passed to agents`;
      out += `${style.yellow(`${glyphs.arrow} ${what} (${String(event.code)}${targetsOf(event)})`)}\n`;
      continue;
    }
    const body = (typeof event.body === 'object' && event.body !== null ? event.body : {}) as Record<string, unknown>;
    out += renderPreview(body, { title: titleOf(event, glyphs), columns: options.columns, style });
    if (event.delivered !== true && typeof event.error === 'string') out += `${style.red(event.error)}\n`;
    const warnings = Array.isArray(event.warnings) ? (event.warnings as { path?: string; message?: string }[]) : [];
    for (const warning of warnings) {
      err += `${errStyle.yellow('warning:')} bot answer: ${warning.path ? `${warning.path}: ` : ''}${warning.message ?? ''}\n`;
    }
  }
  if (result.end === 'refused') {
    // One refusal is the error line itself (run.ts); several are listed here, the error line counts them.
    if (result.refused.length > 1) for (const event of result.refused) err += `${errStyle.red('refused:')} ${describeRefusal(event)}\n`;
  } else {
    // Refusals tied to no conversation that an answer then showed to be another conversation's, maybe.
    for (const event of result.refused)
      err += `${errStyle.yellow('note:')} the sandbox refused ${describeRefusal(event)}, maybe another conversation's\n`;
  }
  return { out, err };
}
