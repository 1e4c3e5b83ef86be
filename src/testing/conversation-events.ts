import { isRefusal } from '../customer/wait.js';
import type { BotAnswerEvent, HandoverQueuedEvent, HandoverRoutedEvent, SandboxEvent, WebhookAttemptEvent } from '../sandbox/events.js';

/** An event of the conversation, as the sandbox records it (src/sandbox/events.ts), whichever way it came. */
export type Event = SandboxEvent;

export interface Asked {
  seq: bigint | number;
  questionIndex: bigint | number;
  deliveryId: string | null;
  noWebhook: string | null;
}

/** What the bot did next in the conversation: an answer delivered to the customer, or something refused. */
export type Next = { kind: 'answer'; event: BotAnswerEvent } | { kind: 'refused'; event: Event };

/** The events of one conversation as they arrive, and waits on them. */
export class ConversationEvents {
  private readonly list: Event[] = [];
  /** The index of the first event a step has not looked at. */
  private cursor = 0;
  private readonly listeners = new Set<() => void>();
  /** When each question was recorded (ms since the epoch, the sandbox's clock), by questionIndex. */
  private readonly asked = new Map<string, number>();
  ended = false;

  add(event: Event): void {
    if (event.type === 'customer.message') this.asked.set(String(event.questionIndex), Date.parse(event.time));
    this.list.push(event);
    for (const listener of [...this.listeners]) listener();
  }

  end(): void {
    this.ended = true;
    for (const listener of [...this.listeners]) listener();
  }

  /**
   * The bot's next doing since the cursor, taken (the cursor moves past it), or undefined. Answers
   * with a repeated answerId are not delivered, by the API's chatbot rule 6, and are passed over. A
   * refusal tied to no conversation (sessionId null: the request named nothing the sandbox could tie)
   * counts only for a step waiting on an answer to the question at `waitingAfter` that it followed.
   */
  take(waitingAfter?: bigint | number): Next | undefined {
    while (this.cursor < this.list.length) {
      const event = this.list[this.cursor++]!;
      if (event.type === 'bot.answer' && event.delivered) return { kind: 'answer', event };
      if (isRefusal(event)) {
        if (event.sessionId !== null) return { kind: 'refused', event };
        if (waitingAfter !== undefined && event.seq > waitingAfter) return { kind: 'refused', event };
      }
    }
    return undefined;
  }

  /**
   * The routing of the hand-over an answer made: the first `handover.routed` (not from the queue) or
   * `handover.queued` after it. The sandbox records the answer, its hand-over and the routing together.
   */
  routingAfter(seq: bigint | number): HandoverRoutedEvent | HandoverQueuedEvent | undefined {
    for (const event of this.list) {
      if (event.seq <= seq) continue;
      if (event.type === 'handover.queued' || (event.type === 'handover.routed' && !event.fromQueue)) return event;
    }
    return undefined;
  }

  /** Question recorded to answer recorded, on the sandbox's clock; `fallback` is the question an answer naming none answers. */
  latency(answer: BotAnswerEvent, fallback: Asked | undefined): number | undefined {
    const index = answer.questionIndex ?? fallback?.questionIndex;
    const asked = index == null ? undefined : this.asked.get(String(index));
    const answered = Date.parse(answer.time);
    return asked === undefined || Number.isNaN(answered) || Number.isNaN(asked) ? undefined : Math.max(0, answered - asked);
  }

  /** Whether the webhook of a message has finished: delivered, failed for good, or none sent. */
  delivery(asked: Asked): { done: boolean; failed: WebhookAttemptEvent | undefined; attempts: number } {
    if (asked.deliveryId === null) return { done: true, failed: undefined, attempts: 0 };
    const attempts = this.list.filter((e): e is WebhookAttemptEvent => e.type === 'webhook.attempt' && e.deliveryId === asked.deliveryId);
    const last = attempts.at(-1);
    const done = last !== undefined && (last.outcome === 'delivered' || last.outcome === 'failed');
    return { done, failed: last?.outcome === 'failed' ? last : undefined, attempts: attempts.length };
  }

  /**
   * Waits until `check` gives a value (it is asked now and after every event), the time runs out, or
   * the stream ends (Ctrl-C ends every stream: the client listens to it once, for all of them).
   */
  until<T>(check: () => T | undefined, timeoutMs: number): Promise<T | 'timeout' | 'ended'> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (value: T | 'timeout' | 'ended') => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(value);
      };
      const listener = () => {
        const value = check();
        if (value !== undefined) done(value);
        else if (this.ended) done('ended');
      };
      this.listeners.add(listener);
      timer = setTimeout(() => done('timeout'), timeoutMs);
      listener();
    });
  }
}
