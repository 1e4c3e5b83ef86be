import type { WebhookAttemptEvent } from '../sandbox/events.js';

/**
 * Whether `core test` can go on playing (docs/testing-bots.md, "How a conversation runs"): the
 * webhook attempts of every conversation of the run, watched together. Two causes make every
 * conversation fail alike, and the run stops at the first delivery that shows one, saying it once
 * instead of waiting out each conversation's time limit and failing each with its own words:
 *
 * - the bot is down: a delivery's attempts all ended without connecting (no status, and not a
 *   time-out, which means it connected), no attempt of the run ever connected and the bot made no
 *   request (1,000 conversations took half an hour to say so);
 * - the bot refuses the sandbox's signature: a delivery's attempts ended, every attempt of the run
 *   that connected was answered 401 or 403, and the bot made no request (nearly always the secret it
 *   verifies with; the same diagnosis as core check-bot's and core customer say's).
 *
 * A run in which anything reached the bot, or one attempt was answered otherwise, is never stopped.
 */

/** Why the run stopped: the errors of the attempts that could not connect, or the status each refused delivery ended with. */
export type ReachStop = { kind: 'bot-down'; errors: string[] } | { kind: 'signature'; statuses: number[] };

/** A bot's answer to a delivery that says it does not accept the signature: 401 or 403. */
const refusesSignature = (status: number | null): boolean => status === 401 || status === 403;

export class RunReach {
  private readonly controller = new AbortController();
  private spoke = false;
  private connected = false;
  private otherwise = false;
  private readonly errors: string[] = [];
  stopped: ReachStop | null = null;

  /** Aborted once the run is to stop; `stopped` then says why. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The bot made a request of the sandbox: it runs, and can be reached. */
  botSpoke(): void {
    this.spoke = true;
  }

  attempt(event: WebhookAttemptEvent): void {
    if (this.stopped !== null) return;
    const { status, error } = event;
    // A status, or a time-out (which means it connected), is a bot that could be reached.
    const reached = status !== null || /^timeout/.test(error ?? '');
    if (reached) this.connected = true;
    if (reached && !refusesSignature(status)) this.otherwise = true;
    else if (!reached && this.errors.length < 5 && !this.errors.includes(error ?? 'no answer')) this.errors.push(error ?? 'no answer');
    // A delivery's series ends with an attempt no other follows.
    if (event.outcome === 'retrying' || this.spoke || this.otherwise) return;
    if (!this.connected) this.stop({ kind: 'bot-down', errors: [...this.errors] });
    else if (refusesSignature(status)) this.stop({ kind: 'signature', statuses: [status!] });
  }

  private stop(why: ReachStop): void {
    this.stopped = why;
    this.controller.abort(why.kind);
  }
}
