import type { Channel } from '../../payload/channels.js';
import { answerTo, type SandboxEvent, type Seen } from '../check-bot/observe.js';
import { namedIn, roundedFrom, type Attempt, type PlayedConversation, type PlayedMessage } from './judge.js';
import type { FuzzConversation, FuzzMessage } from './model.js';
import { wordsOf } from './texts.js';

/**
 * One fuzzed conversation played against the bot through the sandbox's probes (docs/sandbox.md,
 * "Probes", craft `fuzz`): a new thread and client, then each message's delivery, shaped as the
 * conversation says. A message marked `burst` goes out with the one before it, before the bot answered
 * that one; after each group the player waits for the webhook attempt of each delivery (so everything
 * the bot did before acknowledging it has been seen) and for an answer to each question it took; a
 * message marked `redeliver` is then sent again, same webhook-id and bytes.
 */

/** What the player needs of the sandbox: the battery's endpoints and event stream, as a kit. */
export interface FuzzKit {
  start(channel: Channel, coreClientId: bigint | null): Promise<{ sessionId: string; coreClientId: bigint }>;
  /** POST /_sandbox/probes with this body; its JSON answer. */
  probe(body: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The first event of the thread `test` makes something of, or of the refusals naming no thread `untied` does; else a timeout. */
  wait(
    sessionId: string,
    test: (event: SandboxEvent) => Seen | undefined,
    untied?: (event: SandboxEvent) => Seen | undefined,
  ): Promise<Seen>;
  events(sessionId: string): readonly SandboxEvent[];
  untied(): readonly SandboxEvent[];
  /** The conversation's waits are over: of its events, only the bot's requests (what the judge reads) are kept from now on. */
  done(sessionId: string): void;
  strict: boolean;
}

/** The probe body of a message: what the customer sent and the shape of its delivery. */
export function probeBody(sessionId: string, message: FuzzMessage, channel: Channel, index: number): Record<string, unknown> {
  const words = wordsOf(message, channel, index);
  return {
    sessionId,
    craft: 'fuzz',
    text: words.text,
    quickReply: words.quickReply,
    listItem: words.listItem,
    largeIds: message.largeIds,
    ...shape(message),
  };
}

/** The shape of a message's delivery, sent again with its redelivery so that the bytes are the same. */
function shape(message: FuzzMessage): Record<string, unknown> {
  return { attachments: message.attachments, unknownFields: message.unknownFields, format: message.format };
}

function attemptOf(json: Record<string, unknown>): Attempt {
  const attempt = (json.attempt ?? {}) as Record<string, unknown>;
  const status = attempt.status;
  return {
    status: typeof status === 'bigint' ? Number(status) : typeof status === 'number' ? status : null,
    error: typeof attempt.error === 'string' ? attempt.error : null,
    latencyMs: Number(attempt.latencyMs ?? 0),
    body: typeof attempt.body === 'string' ? attempt.body : '',
    delivery: typeof attempt.delivery === 'string' ? attempt.delivery : '',
  };
}

const took = (attempt: Attempt) => attempt.status !== null && attempt.status >= 200 && attempt.status < 300;

/** A refused request of the bot that named `questionId` or `coreClientId` read through a double (judge.ts, rule `ids`). */
function lostDigits(questionId: bigint, coreClientId: bigint) {
  return (event: SandboxEvent): Seen | undefined => {
    const named = namedIn(event);
    return named !== null && (roundedFrom(named.questionId, questionId) || roundedFrom(named.coreClientId, coreClientId))
      ? { kind: 'refused', event }
      : undefined;
  };
}

/** The messages in groups: each group goes out at once (a `burst` message joins the group before it). */
export function groups(messages: readonly FuzzMessage[]): number[][] {
  const out: number[][] = [];
  messages.forEach((message, index) => {
    if (message.burst && out.length > 0) out[out.length - 1]!.push(index);
    else out.push([index]);
  });
  return out;
}

export async function playConversation(kit: FuzzKit, conversation: FuzzConversation): Promise<PlayedConversation> {
  const { sessionId, coreClientId } = await kit.start(conversation.channel, conversation.coreClientId);
  const played: PlayedMessage[] = [];
  for (const group of groups(conversation.messages)) {
    const sent = await Promise.all(
      group.map(async (index) => {
        const json = await kit.probe(probeBody(sessionId, conversation.messages[index]!, conversation.channel, index));
        return { index, json, attempt: attemptOf(json) };
      }),
    );
    for (const { index, json, attempt } of sent) {
      const message: PlayedMessage = {
        questionId: json.questionId as bigint,
        questionIndex: json.questionIndex as bigint,
        deliveryId: String(json.deliveryId),
        attempt,
        redelivery: null,
        answered: null,
      };
      played[index] = message;
      if (!took(attempt)) continue;
      // An answer whose questionId or coreClientId lost digits names no thread: it ends the wait too.
      // A refusal of rounded ids is tied to this conversation when it came while its delivery was with the bot
      // (docs/sandbox.md, "Refusals during a delivery"), and to none otherwise: looked for in both.
      const rounded = lostDigits(message.questionId, coreClientId);
      const answered = answerTo(message.questionId);
      const seen = await kit.wait(sessionId, (event) => answered(event) ?? rounded(event), rounded);
      message.answered = seen.kind === 'answer' || seen.kind === 'dropped';
      if (conversation.messages[index]!.redeliver) {
        const again = await kit.probe({ craft: 'replay', deliveryId: message.deliveryId, ...shape(conversation.messages[index]!) });
        message.redelivery = attemptOf(again);
        // The redelivery's attempt event comes after whatever the bot did before acknowledging it.
        await kit.wait(sessionId, (event) =>
          event.type === 'webhook.attempt' && event.deliveryId === message.deliveryId && Number(event.redelivery) > 0
            ? { kind: 'answer', event }
            : undefined,
        );
      }
    }
  }
  return {
    sessionId,
    channel: conversation.channel,
    coreClientId,
    messages: played,
    events: kit.events(sessionId),
    untied: kit.untied(),
    strict: kit.strict,
  };
}
