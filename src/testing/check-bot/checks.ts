import { formatDuration } from '../../config/duration.js';
import { CHECK_IDS, type CheckId } from './ids.js';
import { answerIdOf, answerTo, errorOf, statusOf, type SandboxEvent, type Seen } from './observe.js';

/**
 * The checks of `core check-bot` (docs/check-bot.md): what the sandbox sends the bot, when the bot
 * passes, and the fix in one line. Each check has its own conversation (its own thread and client),
 * so the checks run at once and an answer addressed by client lands in the right thread.
 */

export { CHECK_IDS, type CheckId };

/**
 * The crafts of POST /_sandbox/probes (src/sandbox/probe.ts), named here so the battery imports nothing
 * of the sandbox; a test pins the two lists together.
 */
export const PROBE_CRAFTS = [
  'signed',
  'unsigned',
  'tampered',
  'wrong-secret',
  'rotation',
  'stale',
  'future',
  'unknown-fields',
  'raw-body',
  'large-ids',
  'replay',
  'fuzz',
] as const;
export type Craft = (typeof PROBE_CRAFTS)[number];

/** How the bot answered one delivery. */
export interface DeliveryAnswer {
  status: number | null;
  error: string | null;
  latencyMs: number;
  body: string;
}

export interface Probe {
  sessionId: string;
  questionId: bigint;
  deliveryId: string;
  attempt: DeliveryAnswer;
}

export interface FaultView {
  triggered: boolean;
  answerId: string | null;
  triggeredAt: string | null;
}

/** What a check may do: the battery's hands on the sandbox. */
export interface CheckKit {
  timeoutMs: number;
  signal: AbortSignal;
  /** A new conversation; with `coreClientId`, its client's (made when the sandbox does not know it). */
  start(channel: 'WEB' | 'EMAIL', coreClientId?: bigint): Promise<string>;
  probe(sessionId: string, craft: Craft, text: string): Promise<Probe>;
  replay(deliveryId: string): Promise<DeliveryAnswer>;
  /** A customer message delivered the usual way: signed, retried by the sandbox on failure. */
  say(sessionId: string, text: string): Promise<{ questionId: bigint; deliveryId: string | null }>;
  armFault(sessionId: string): Promise<string>;
  fault(faultId: string): Promise<FaultView>;
  /** Waits for what the bot does next in the conversation (observe.ts), from the `from`-th event of it. */
  wait(sessionId: string, test: (event: SandboxEvent) => Seen | undefined, from?: number): Promise<Seen>;
  /** How many events of the conversation were seen so far. */
  seen(sessionId: string): number;
  /** A note on refused requests that named no conversation, for a check that saw no answer; '' when none. */
  untiedNote(): string;
  /** The refused requests of the bot that named no conversation of the battery, so far. */
  untied(): readonly SandboxEvent[];
}

export interface Verdict {
  status: 'pass' | 'fail';
  message: string;
}

export interface CheckDefinition {
  id: CheckId;
  /** What the sandbox sends, in short. */
  sends: string;
  /** When the bot passes, in short. */
  passes: string;
  /** The fix, in one line, shown when the check fails. */
  fix: string;
  run(kit: CheckKit, started: (sessionId: string) => void): Promise<Verdict>;
}

const pass = (message: string): Verdict => ({ status: 'pass', message });
const fail = (message: string): Verdict => ({ status: 'fail', message });

const is2xx = (status: number | null) => status !== null && status >= 200 && status < 300;
/** A refusal is a 4xx or a 5xx: a 1xx or a redirect (3xx) refuses nothing (the sender does not follow it, nor count it as refused). */
const isRefusal = (status: number) => status >= 400 && status < 600;

/** `200 in 3ms`, or what went wrong with a delivery. */
export function describeAttempt(attempt: DeliveryAnswer): string {
  if (attempt.status === null) return `could not be delivered (${attempt.error ?? 'no answer'})`;
  return `${attempt.status} in ${formatDuration(attempt.latencyMs)}`;
}

/** A refused request as one line: `401 invalid bearer token`. */
export function refusal(event: SandboxEvent): string {
  const status = statusOf(event);
  const error = errorOf(event) ?? '';
  return `${status ?? '?'}${error ? ` ${error}` : ''}`;
}

/** Why no answer: the timeout, and what the sandbox saw instead. */
function noAnswer(kit: CheckKit, seen: Seen, what = 'no answer'): string {
  const limit = formatDuration(kit.timeoutMs);
  switch (seen.kind) {
    case 'refused':
      return `the bot's answer was refused: ${refusal(seen.event)}`;
    case 'undelivered':
      return `the webhook failed for good: ${errorOf(seen.event) || `last status ${statusOf(seen.event) ?? 'none'}`}`;
    case 'dropped':
      return `the bot answered with an answerId it had used before (${answerIdOf(seen.event) ?? 'none'}), so the platform dropped it`;
    default:
      return `${what} within ${limit}${kit.untiedNote()}`;
  }
}

/** A signed delivery that must be acknowledged and answered. */
async function mustAnswer(kit: CheckKit, sessionId: string, craft: Craft, text: string, what: string): Promise<Verdict> {
  const probe = await kit.probe(sessionId, craft, text);
  const acknowledged = describeAttempt(probe.attempt);
  if (!is2xx(probe.attempt.status)) {
    const body = probe.attempt.body.trim() ? `: ${JSON.stringify(probe.attempt.body.trim().slice(0, 200))}` : '';
    return fail(`${what}: the bot answered it ${acknowledged}${body}, not 2xx`);
  }
  const seen = await kit.wait(sessionId, answerTo(probe.questionId));
  if (seen.kind !== 'answer') return fail(`${what}: acknowledged ${acknowledged}, but ${noAnswer(kit, seen)}`);
  return pass(`${what}: acknowledged ${acknowledged}; answered (answerId ${answerIdOf(seen.event) ?? 'none'})`);
}

/** A delivery that must be refused (4xx or 5xx), with no answer within the time limit. */
async function mustRefuse(kit: CheckKit, sessionId: string, craft: Craft, text: string, what: string, risk: string): Promise<Verdict> {
  const from = kit.seen(sessionId);
  const probe = await kit.probe(sessionId, craft, text);
  const status = probe.attempt.status;
  if (status === null) return fail(`${what}: it ${describeAttempt(probe.attempt)}, so whether the bot refuses it is not known`);
  if (is2xx(status)) return fail(`${what}: the bot accepted it (${describeAttempt(probe.attempt)}): ${risk}`);
  if (!isRefusal(status)) {
    const kind = status >= 300 && status < 400 ? 'a redirect' : 'an informational status';
    return fail(`${what}: the bot answered it ${describeAttempt(probe.attempt)}, ${kind}, not a refusal (4xx or 5xx): refuse with 401`);
  }
  const seen = await kit.wait(sessionId, answerTo(probe.questionId), from);
  if (seen.kind === 'answer' || seen.kind === 'dropped') {
    return fail(`${what}: the bot refused it (${status}) but answered it anyway (answerId ${answerIdOf(seen.event) ?? 'none'}): ${risk}`);
  }
  if (seen.kind === 'refused') {
    return fail(`${what}: the bot refused it (${status}) but then tried to answer it (${refusal(seen.event)}): ${risk}`);
  }
  return pass(`${what}: refused with ${status}; no answer within ${formatDuration(kit.timeoutMs)}`);
}

/** The client of the `ids.precision` check: 2^53 + 1, the first integer a double cannot hold. */
export const LARGE_CLIENT_ID = 9007199254740993n;

/** `questionId 9007199254745992, not 9007199254745993`: what a refused request named in place of the ids, rounded. */
function roundedIds(untied: readonly SandboxEvent[], questionId: bigint): string | undefined {
  const asDouble = (id: bigint) => BigInt(Number(id));
  for (const event of untied) {
    // A refused answer names no question of the sandbox's: what it named is in its body.
    const body =
      event.type === 'bot.answer' && typeof event.body === 'object' && event.body !== null ? (event.body as Record<string, unknown>) : {};
    const id = (value: unknown) => (typeof value === 'bigint' ? value : null);
    const named =
      event.type === 'api.request'
        ? event.named
        : event.type === 'bot.answer'
          ? { questionId: id(body.questionId), coreClientId: id(body.coreClientId) }
          : null;
    if (named === null) continue;
    if (named.questionId !== null && named.questionId !== questionId && named.questionId === asDouble(questionId)) {
      return `questionId ${named.questionId}, not ${questionId}`;
    }
    if (named.coreClientId !== null && named.coreClientId !== LARGE_CLIENT_ID && named.coreClientId === asDouble(LARGE_CLIENT_ID)) {
      return `coreClientId ${named.coreClientId}, not ${LARGE_CLIENT_ID}`;
    }
  }
  return undefined;
}

const question = (id: CheckId, detail: string) => `Where is my order? (core check-bot: ${id}, ${detail})`;

/** What a check of one crafted delivery says of itself, and what it sends. */
interface ProbeCheck {
  id: CheckId;
  sends: string;
  passes: string;
  fix: string;
  craft: Craft;
  /** Said in the customer's question, after the check's id. */
  detail: string;
  /** The delivery, as the messages name it. */
  what: string;
}

/** A check of one crafted delivery on a WEB thread that the bot must acknowledge and answer. */
function answering(check: ProbeCheck): CheckDefinition {
  const { craft, detail, what, ...described } = check;
  return {
    ...described,
    async run(kit, started) {
      const sessionId = await kit.start('WEB');
      started(sessionId);
      return mustAnswer(kit, sessionId, craft, question(check.id, detail), what);
    },
  };
}

/** A check of one crafted delivery on a WEB thread that the bot must refuse, and not answer; `risk` says why it matters. */
function refusing(check: ProbeCheck & { risk: string }): CheckDefinition {
  const { craft, detail, what, risk, ...described } = check;
  return {
    ...described,
    async run(kit, started) {
      const sessionId = await kit.start('WEB');
      started(sessionId);
      return mustRefuse(kit, sessionId, craft, question(check.id, detail), what, risk);
    },
  };
}

export const CHECKS: readonly CheckDefinition[] = [
  answering({
    id: 'answers',
    sends: 'a correctly signed MESSAGE on a WEB thread',
    passes: 'acknowledged with 2xx, and a valid answer to that question arrives',
    fix: 'answer 2xx to a verified delivery and POST the answer to /api/v1/chatbot with the token, the tenant and the questionId',
    craft: 'signed',
    detail: 'a correctly signed delivery',
    what: 'a signed delivery',
  }),
  refusing({
    id: 'signature.missing',
    sends: 'a MESSAGE without the webhook-* headers',
    passes: 'refused (4xx or 5xx), and no answer comes',
    fix: 'refuse (401) a delivery without webhook-id, webhook-timestamp and webhook-signature before reading its body',
    craft: 'unsigned',
    detail: 'no webhook-* headers: refuse it',
    what: 'a delivery without webhook-* headers',
    risk: 'anyone who finds the URL can make the bot speak',
  }),
  refusing({
    id: 'signature.tampered',
    sends: 'a correctly signed MESSAGE whose body was changed after signing',
    passes: 'refused, and no answer comes',
    fix: 'compute the HMAC over the raw body bytes as received (before any JSON parsing) and compare it with each v1 signature',
    craft: 'tampered',
    detail: 'body changed after signing: refuse it',
    what: 'a delivery whose body was changed after signing',
    risk: "a message changed on the way is taken as the customer's",
  }),
  refusing({
    id: 'signature.wrong-secret',
    sends: 'a MESSAGE signed with another secret',
    passes: 'refused, and no answer comes',
    fix: 'sign with the key of your own secret (the base64 after whsec_, decoded) and refuse when no v1 signature matches',
    craft: 'wrong-secret',
    detail: 'signed with another secret: refuse it',
    what: 'a delivery signed with another secret',
    risk: 'any signature is taken, so the signature proves nothing',
  }),
  answering({
    id: 'signature.raw-body',
    sends: 'a correctly signed MESSAGE whose bytes a re-serialiser changes: spaces, keys in another order, a \\u00e9 escape, a 3.0',
    passes: 'accepted and answered',
    fix: 'compute the HMAC over the raw body bytes as received, not over JSON.stringify(JSON.parse(body)) or another re-serialisation',
    craft: 'raw-body',
    detail: 'caf\u00e9: bytes a re-serialiser changes, signed as they are',
    what: 'a delivery signed over bytes a re-serialiser changes',
  }),
  answering({
    id: 'signature.rotation',
    sends: 'two signatures in webhook-signature: one made with an unknown secret, then the valid one (a key rotation)',
    passes: 'accepted and answered',
    fix: 'split webhook-signature on spaces and accept the delivery when any v1 signature matches',
    craft: 'rotation',
    detail: 'two signatures, the second valid',
    what: 'a delivery with an unknown signature, then the valid one',
  }),
  refusing({
    id: 'timestamp.stale',
    sends: 'a correctly signed MESSAGE whose timestamp is 10 minutes old',
    passes: 'refused, and no answer comes',
    fix: 'refuse a delivery whose webhook-timestamp is more than 5 minutes from your clock',
    craft: 'stale',
    detail: 'signed 10 minutes ago: refuse it',
    what: 'a delivery signed 10 minutes ago',
    risk: 'a recorded delivery can be replayed later',
  }),
  refusing({
    id: 'timestamp.future',
    sends: 'a correctly signed MESSAGE whose timestamp is 10 minutes ahead',
    passes: 'refused, and no answer comes',
    fix: 'refuse a delivery whose webhook-timestamp is more than 5 minutes from your clock, in either direction',
    craft: 'future',
    detail: 'timestamp 10 minutes ahead: refuse it',
    what: 'a delivery timestamped 10 minutes ahead',
    risk: 'a delivery made for later stays valid longer than it should',
  }),
  {
    id: 'replay',
    sends: 'the same delivery twice (same webhook-id and body, a new timestamp and signature)',
    passes: 'the replay is not answered, or answered with the same answerId (which the platform drops)',
    fix: 'remember the webhook-id of each delivery handled (or make the answerId from it) so a redelivery is not answered anew',
    async run(kit, started) {
      const sessionId = await kit.start('WEB');
      started(sessionId);
      const first = await kit.probe(sessionId, 'signed', question('replay', 'this delivery comes twice'));
      if (first.attempt.status === null)
        return fail(`the first delivery ${describeAttempt(first.attempt)}, so a replay could not be judged`);
      const answered = await kit.wait(sessionId, answerTo(first.questionId));
      if (answered.kind !== 'answer') {
        return fail(
          `the first delivery (${describeAttempt(first.attempt)}) got ${noAnswer(kit, answered)}, so a replay could not be judged`,
        );
      }
      const answerId = answerIdOf(answered.event);
      const from = kit.seen(sessionId);
      const replayed = await kit.replay(first.deliveryId);
      let repeated = false;
      const again = await kit.wait(
        sessionId,
        (event) => {
          const seen = answerTo(first.questionId)(event);
          // An answer under the same answerId is dropped by the platform (chatbot rule 6): harmless.
          if (seen?.kind === 'dropped' && answerId !== null && answerIdOf(seen.event) === answerId) {
            repeated = true;
            return undefined;
          }
          return seen;
        },
        from,
      );
      const replayStatus = describeAttempt(replayed);
      if (again.kind === 'timeout') {
        return pass(
          repeated
            ? `the replay (${replayStatus}) was answered again with the same answerId (${answerId}), which the platform drops`
            : `the replay (${replayStatus}) was not answered again within ${formatDuration(kit.timeoutMs)}`,
        );
      }
      if (again.kind === 'refused' && statusOf(again.event) !== 409) {
        return fail(`the replay (${replayStatus}) made the bot send a request the sandbox refused: ${refusal(again.event)}`);
      }
      const second = answerIdOf(again.event);
      return fail(
        `the replay (${replayStatus}) was answered again with ${second === null ? 'no answerId' : `a new answerId (${second})`}` +
          `${answerId === null ? ' (the first answer had none)' : ` instead of ${answerId}`}: the customer can get the answer twice`,
      );
    },
  },
  {
    id: 'retry.answerId',
    sends: "a MESSAGE; the platform answers the bot's first POST /api/v1/chatbot with 503",
    passes: 'the bot tries again within the time limit with the same answerId',
    fix: 'on a 5xx or a network failure, send the same answer again with the same answerId (or answer the webhook 5xx so it is redelivered)',
    async run(kit, started) {
      const sessionId = await kit.start('WEB');
      started(sessionId);
      const faultId = await kit.armFault(sessionId);
      const asked = await kit.say(sessionId, question('retry.answerId', 'the first answer gets 503: send it again'));
      const injected = (event: SandboxEvent) => errorOf(event)?.startsWith('injected fault') === true;
      const seen = await kit.wait(sessionId, answerTo(asked.questionId, { undelivered: true, ignore: injected }));
      const fault = await kit.fault(faultId);
      const limit = formatDuration(kit.timeoutMs);
      if (!fault.triggered) {
        if (seen.kind === 'answer') return fail('the answer came by a way that named neither the thread, its question nor its client');
        return fail(`the bot sent no answer, so no retry could be seen: ${noAnswer(kit, seen)}`);
      }
      if (seen.kind === 'timeout' || seen.kind === 'undelivered') {
        return fail(
          `the bot's answer (answerId ${fault.answerId ?? 'none'}) was refused with 503 and was not sent again within ${limit}: the answer is lost`,
        );
      }
      if (seen.kind === 'refused') return fail(`the bot tried again, but the sandbox refused it: ${refusal(seen.event)}`);
      const retried = answerIdOf(seen.event);
      if (fault.answerId === null) {
        return fail('the answer refused with 503 had no answerId, so a retry cannot be told from a second answer: send an answerId');
      }
      if (retried !== fault.answerId) {
        return fail(
          `the bot tried again with a new answerId (${retried ?? 'none'} instead of ${fault.answerId}): had the first one been delivered, the customer would get it twice`,
        );
      }
      return pass(`answered 503 once; tried again with the same answerId (${fault.answerId})`);
    },
  },
  {
    id: 'email.addressing',
    sends: 'a MESSAGE on an EMAIL thread',
    passes: 'the answer is addressed by sessionId and questionIndex (chatbot rule 2)',
    fix: 'when message.type is EMAIL, address the answer by sessionId and questionIndex, not by questionId',
    async run(kit, started) {
      const sessionId = await kit.start('EMAIL');
      started(sessionId);
      const probe = await kit.probe(sessionId, 'signed', question('email.addressing', 'an EMAIL question'));
      if (probe.attempt.status === null) return fail(`the delivery ${describeAttempt(probe.attempt)}`);
      const seen = await kit.wait(sessionId, answerTo(probe.questionId));
      const by = (event: SandboxEvent) => ('addressedBy' in event ? event.addressedBy.join(', ') : 'nothing');
      if (seen.kind === 'answer') {
        return by(seen.event).includes('sessionId+questionIndex')
          ? pass('answered, addressed by sessionId and questionIndex')
          : fail(`answered, but addressed by ${by(seen.event)}`);
      }
      if (seen.kind === 'refused' && seen.event.type === 'bot.answer') {
        return fail(`the answer was addressed by ${by(seen.event)} and refused: ${refusal(seen.event)}`);
      }
      return fail(`delivery ${describeAttempt(probe.attempt)}; ${noAnswer(kit, seen)}`);
    },
  },
  answering({
    id: 'unknown-fields',
    sends: 'a MESSAGE with an unknown field at the top and in message, and an unknown header',
    passes: 'it still answers (forward compatibility)',
    fix: 'ignore fields and headers you do not know: do not validate the webhook strictly against a closed schema',
    craft: 'unknown-fields',
    detail: 'with fields and a header the bot does not know',
    what: 'a delivery with unknown fields and an unknown header',
  }),
  {
    id: 'ids.precision',
    sends: `a correctly signed MESSAGE whose questionId and coreClientId are above 2^53 (coreClientId ${LARGE_CLIENT_ID})`,
    passes: 'answered with exactly those ids',
    fix: 'read the webhook with a parser that keeps integers above 2^53 exact (BigInt in Node, int in Python) and send them back as they came',
    async run(kit, started) {
      const sessionId = await kit.start('WEB', LARGE_CLIENT_ID);
      started(sessionId);
      const probe = await kit.probe(sessionId, 'large-ids', question('ids.precision', 'identifiers above 2^53: send them back exactly'));
      const what = `a delivery of questionId ${probe.questionId} and coreClientId ${LARGE_CLIENT_ID}`;
      if (!is2xx(probe.attempt.status)) return fail(`${what}: the bot answered it ${describeAttempt(probe.attempt)}, not 2xx`);
      const seen = await kit.wait(sessionId, answerTo(probe.questionId));
      if (seen.kind === 'answer') return pass(`${what}: answered with exactly those ids (answerId ${answerIdOf(seen.event) ?? 'none'})`);
      const rounded = roundedIds(kit.untied(), probe.questionId);
      if (rounded !== undefined) {
        return fail(
          `${what}: the answer named ${rounded}: the ids were read as doubles, which round integers above 2^53 (JSON.parse does)`,
        );
      }
      return fail(`${what}: acknowledged ${describeAttempt(probe.attempt)}, but ${noAnswer(kit, seen)}`);
    },
  },
];
