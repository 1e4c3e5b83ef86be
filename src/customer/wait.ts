import { isRefusal } from '../sandbox/events.js';
import type {
  AgentMessageEvent,
  BotAnswerEvent,
  HandoverEvent,
  HandoverQueuedEvent,
  HandoverRoutedEvent,
  ReleasedEvent,
  SandboxEvent,
  WebhookAttemptEvent,
} from '../sandbox/events.js';

/**
 * When `core customer say` and `press` stop waiting (docs/sandbox.md, "`core customer`", and the help of
 * both commands): they read the sandbox's event stream for the conversation and stop
 *
 * - at once when the webhook failed for good and no answer arrived;
 * - for a thread with agents (no webhook was sent), `settleMs` after an agent's message, else when
 *   `--wait` runs out ("with-agents": no answer came);
 * - once the webhook delivery has finished (delivered or failed; at once when none was sent) and at
 *   least one bot answer to the conversation has arrived, plus `settleMs` after the latest answer,
 *   so that answers sent one after another are all taken;
 * - `settleMs` after a refusal of one of the bot's API requests (a status of 400 or more): one tied
 *   to this conversation, or one tied to none (a wrong token, an unknown questionId) that arrives
 *   while no answer to the conversation has come; if the webhook delivery is still going on then,
 *   once it ends, but at most REFUSAL_DELIVERY_MS after the refusal. The short settle takes the
 *   refusals and webhook attempt that follow it, so that the report is whole, without waiting for
 *   --wait: the bot made a mistake, and waiting longer does not mend it;
 * - at once when the bot refuses the delivery with 401 or 403 before any answer (`signature-refused`):
 *   a bot that refuses a correctly signed delivery refuses its retries too, so waiting them out (seconds
 *   of backoff) says nothing more; the cause is nearly always the secret the bot verifies with;
 * - when `--wait` runs out, whatever has arrived by then.
 *
 * Answered means at least one bot answer was delivered to the customer, or an agent wrote; answers the
 * sandbox refused (a thread with agents, a broken rule) are shown with why, but do not count. The
 * routing of a hand-over (to an agent, or the queue) and a release are kept to show who has the thread.
 */

export const SETTLE_MS = 300;
/**
 * After a refusal, the longest the wait stays for the webhook delivery still going on (a bot that
 * calls the API inside its webhook handler answers the webhook just after), so the report says how
 * the delivery ended; a bot that hangs in its handler does not hold the report longer than this.
 */
export const REFUSAL_DELIVERY_MS = 1_000;

/**
 * Whether an event is a refusal of one of the bot's API requests (`isRefusal`, docs/sandbox.md,
 * "Events"), and whether a stream of one conversation also carries one tied to none
 * (`untiedRefusalFor`): `core customer`, `core test`, `core check-bot` and the library all read
 * refusals by these, the page by the same `isRefusal` (src/sandbox/page/refusal.js).
 */
export { isRefusal, untiedRefusalFor } from '../sandbox/events.js';

export interface AskedMessage {
  seq: bigint;
  deliveryId: string | null;
  noWebhook: string | null;
}

export type WaitEnd = 'answered' | 'no-answer' | 'with-agents' | 'webhook-failed' | 'signature-refused' | 'stream-ended' | 'refused';

/** A bot's answer to a delivery that says it does not accept the signature: 401 or 403. */
export const refusesSignature = (status: number | null): boolean => status === 401 || status === 403;

export interface WaitResult {
  end: WaitEnd;
  answers: BotAnswerEvent[];
  handovers: HandoverEvent[];
  /** Where each hand-over went (an agent, or the queue), and the thread given back to the bot. */
  routings: (HandoverRoutedEvent | HandoverQueuedEvent | ReleasedEvent)[];
  /** What agents wrote in the thread. */
  agentMessages: AgentMessageEvent[];
  attempts: WebhookAttemptEvent[];
  /**
   * The bot's requests the sandbox refused during the wait: those tied to this conversation, and
   * those tied to none that arrived while no answer had come (sessionId null).
   */
  refused: SandboxEvent[];
  /** delivered or failed; pending when the wait ended during the attempts; null when no webhook was sent. */
  delivery: 'delivered' | 'failed' | 'pending' | null;
}

export class AnswerWait {
  private asked: AskedMessage | undefined;
  private readonly early: SandboxEvent[] = [];
  private readonly answers: BotAnswerEvent[] = [];
  private readonly handovers: HandoverEvent[] = [];
  private readonly routings: (HandoverRoutedEvent | HandoverQueuedEvent | ReleasedEvent)[] = [];
  private readonly agentMessages: AgentMessageEvent[] = [];
  /** The thread is with agents: the wait is for an agent's message. */
  private withAgents = false;
  private readonly attempts: WebhookAttemptEvent[] = [];
  private readonly refused: SandboxEvent[] = [];
  private refusalTimer: NodeJS.Timeout | undefined;
  private refusalCap: NodeJS.Timeout | undefined;
  /** The settle time after the first refusal is over; the wait ends on refusal once the delivery has. */
  private refusalSettled = false;
  private deliveryOutcome: 'delivered' | 'failed' | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private waitTimer: NodeJS.Timeout | undefined;
  private finish!: (end: WaitEnd) => void;
  private done = false;
  readonly ended: Promise<WaitEnd>;

  constructor(
    private readonly waitMs: number,
    private readonly settleMs = SETTLE_MS,
  ) {
    this.ended = new Promise((resolve) => {
      this.finish = (end) => {
        if (this.done) return;
        this.done = true;
        clearTimeout(this.settleTimer);
        clearTimeout(this.waitTimer);
        clearTimeout(this.refusalTimer);
        clearTimeout(this.refusalCap);
        resolve(end);
      };
    });
  }

  /** Every event of the conversation's stream, in order; those before the message are ignored. */
  accept(event: SandboxEvent): void {
    if (this.done) return;
    if (this.asked === undefined) this.early.push(event);
    else if (BigInt(event.seq) > this.asked.seq) this.take(event);
  }

  /** The customer message was recorded: the wait starts now. */
  start(asked: AskedMessage): void {
    this.asked = asked;
    // Ended already (the sandbox closed while the message was on its way): no timer to hold the process.
    if (this.done) return;
    this.waitTimer = setTimeout(() => this.finish(this.outcome()), this.waitMs);
    if (asked.noWebhook !== null && asked.deliveryId === null && /agents/.test(asked.noWebhook)) this.withAgents = true;
    for (const event of this.early.splice(0)) if (BigInt(event.seq) > asked.seq) this.take(event);
    this.check();
  }

  /** The stream ended early (the sandbox stopped). */
  streamEnded(): void {
    this.finish(this.refusedCounts() ? 'refused' : this.delivered() ? 'answered' : 'stream-ended');
  }

  /** Stops the wait (Ctrl-C): whatever arrived stays readable. */
  stop(): void {
    this.finish('no-answer');
  }

  result(end: WaitEnd): WaitResult {
    const delivery = this.asked?.deliveryId == null ? null : (this.deliveryOutcome ?? 'pending');
    return {
      end,
      answers: this.answers,
      handovers: this.handovers,
      routings: this.routings,
      agentMessages: this.agentMessages,
      attempts: this.attempts,
      refused: this.refused,
      delivery,
    };
  }

  /** How the wait ends when its time is up: refused, else answered when an answer was delivered. */
  private outcome(): WaitEnd {
    return this.refusedCounts() ? 'refused' : this.delivered() ? 'answered' : this.withAgents ? 'with-agents' : 'no-answer';
  }

  private delivered(): boolean {
    return this.answers.some((answer) => answer.delivered === true) || this.agentMessages.length > 0;
  }

  /**
   * Whether the refusals end the wait: one tied to the conversation always does; those tied to none
   * only while no answer to the conversation has come (one that came shows they were another's).
   */
  private refusedCounts(): boolean {
    return this.refused.some((event) => event.sessionId !== null) || (this.refused.length > 0 && this.answers.length === 0);
  }

  private take(event: SandboxEvent): void {
    const deliveryId = this.asked?.deliveryId;
    const untied = event.sessionId === null;
    if (isRefusal(event) && (!untied || this.answers.length === 0)) {
      this.refused.push(event);
      if (this.refusalTimer === undefined && !this.refusalSettled) {
        this.refusalTimer = setTimeout(() => {
          this.refusalTimer = undefined;
          this.refusalSettled = true;
          this.check();
        }, this.settleMs);
        this.refusalCap = setTimeout(() => {
          if (this.refusedCounts()) this.finish('refused');
        }, REFUSAL_DELIVERY_MS);
      }
    }
    if (untied) {
      // A refusal tied to no conversation is no answer of this one, nor anything else of it.
      this.check();
      return;
    }
    if (event.type === 'bot.answer') {
      this.answers.push(event);
      // Each answer restarts the settle time, so answers sent one after another are all taken.
      clearTimeout(this.settleTimer);
      this.settleTimer = undefined;
    } else if (event.type === 'agent.message') {
      this.agentMessages.push(event);
      clearTimeout(this.settleTimer);
      this.settleTimer = undefined;
    } else if (event.type === 'handover.routed' || event.type === 'handover.queued' || event.type === 'released') this.routings.push(event);
    else if (event.type === 'handover') this.handovers.push(event);
    else if (event.type === 'webhook.attempt' && deliveryId != null && event.deliveryId === deliveryId) {
      this.attempts.push(event);
      if (event.outcome === 'delivered' || event.outcome === 'failed') this.deliveryOutcome = event.outcome;
      if (refusesSignature(event.status) && this.answers.length === 0 && !this.refusedCounts()) {
        this.finish('signature-refused');
        return;
      }
    } else return;
    this.check();
  }

  private check(): void {
    if (this.done || this.asked === undefined) return;
    const finished = this.asked.deliveryId === null || this.deliveryOutcome !== undefined;
    // A refusal is waited on by its own settle time (and the delivery's end), and reported rather
    // than the failed webhook.
    if (this.refusedCounts()) {
      if (this.refusalSettled && finished) this.finish('refused');
      return;
    }
    if (this.deliveryOutcome === 'failed' && this.answers.length === 0) {
      this.finish('webhook-failed');
      return;
    }
    if (finished && (this.answers.length > 0 || this.agentMessages.length > 0) && this.settleTimer === undefined) {
      this.settleTimer = setTimeout(() => this.finish(this.outcome()), this.settleMs);
    }
  }
}
