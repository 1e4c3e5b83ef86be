import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateGreeting, validateReason, validateReply } from '../../../src/payload/index.js';
import { directCustomer } from '../../../src/sandbox/customer.js';
import { eventJson, parseEvent } from '../../../src/sandbox/event-json.js';
import type { Channel, SandboxEvent } from '../../../src/sandbox/events.js';
import type { AttemptFields } from '../../../src/sandbox/rules/delivery.js';
import { defaultReasons, prepareReasons } from '../../../src/sandbox/seed.js';
import { SandboxState, type SandboxStateConfig } from '../../../src/sandbox/state.js';
import { headerLine, readLine } from '../../../src/sandbox/state-file.js';
import { Store } from '../../../src/sandbox/store/store.js';

/**
 * The state is its event log: any sequence of requests the sandbox takes (conversations started,
 * customer messages, presses and picks, bot answers good and bad, greetings, hand-overs, releases,
 * reason updates, refused API requests, webhook attempts and redeliveries, resets), each recorded as
 * events, gives a model that the same events, written as JSON and read back, rebuild in a fresh store:
 * the same digest (src/sandbox/store/digest.ts), bounds and counters included. Bounded by the number
 * of runs, never by a clock.
 */

const TENANTS = ['acme', 'globex'];
// The seed agents: ids 1 and 2 are the userIds a SWITCH_TO_HUMAN below names; 9 is no agent.
const AGENT_IDS = [1n, 2n, 3n, 9n];
const seedAgents = [
  { id: 1n, name: 'One', skills: [], units: [], capacity: 1, status: 'online' as const, reason: null },
  { id: 2n, name: 'Two', skills: [], units: [], capacity: 2, status: 'away' as const, reason: 'LUNCH' },
  { id: 3n, name: 'Three', skills: [], units: [], capacity: 1, status: 'online' as const, reason: null },
];
const seed = prepareReasons(defaultReasons, 10);
if (!seed.ok) throw new Error('the default reasons do not check');

/** One request, as data: what it names is chosen among what the state keeps when it runs. */
type Op =
  | { kind: 'start'; tenant: number; channel: Channel; client: 'new' | 'known' | 'named' | 'clientId'; pick: number }
  | { kind: 'say'; thread: number; text: string }
  | { kind: 'press'; thread: number; choice: number; pick: boolean }
  | {
      kind: 'reply';
      tenant: number;
      thread: number;
      by: 'questionId' | 'session' | 'both' | 'coreClientId' | 'clientId' | 'unknown' | 'conflict' | 'newClient';
      answerId: string | null;
      code: 'SUCCESS' | 'SWITCH_TO_HUMAN' | 'UNCLEAR_QUESTION' | null;
      extras: 'none' | 'buttons' | 'list' | 'markdown';
    }
  | { kind: 'greet'; tenant: number; thread: number; by: 'coreClientId' | 'clientId' | 'new' }
  | { kind: 'release'; thread: number }
  | { kind: 'reason'; tenant: number; code: string; active: boolean }
  | { kind: 'refused'; tenant: number | null; thread: number; status: number }
  | { kind: 'redeliver'; delivery: number }
  | { kind: 'attempt'; delivery: number; outcome: AttemptFields['outcome']; status: number | null; craft: AttemptFields['craft'] }
  | { kind: 'label'; thread: number; check: string; verdict: 'pass' | 'fail' | null }
  | { kind: 'reset'; tenant: number | null }
  | { kind: 'agentStatus'; tenant: number; agent: number; away: boolean; reason: string }
  | { kind: 'agentSay'; thread: number; agent: number | null };

const small = fc.nat({ max: 20 });
const tenant = fc.nat({ max: TENANTS.length - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('start' as const),
    tenant,
    channel: fc.constantFrom<Channel>('WEB', 'IM', 'EMAIL'),
    client: fc.constantFrom('new' as const, 'known' as const, 'named' as const, 'clientId' as const),
    pick: small,
  }),
  fc.record({ kind: fc.constant('say' as const), thread: small, text: fc.string({ minLength: 1, maxLength: 40 }) }),
  fc.record({
    kind: fc.constant('say' as const),
    thread: small,
    text: fc.constantFrom('Hello', 'Größe?', '\u{1F600} ok', 'x'.repeat(300)),
  }),
  fc.record({ kind: fc.constant('press' as const), thread: small, choice: small, pick: fc.boolean() }),
  fc.record({
    kind: fc.constant('reply' as const),
    tenant,
    thread: small,
    by: fc.constantFrom(
      'questionId' as const,
      'session' as const,
      'both' as const,
      'coreClientId' as const,
      'clientId' as const,
      'unknown' as const,
      'conflict' as const,
      'newClient' as const,
    ),
    answerId: fc.option(fc.constantFrom('a-1', 'a-2', 'a-3'), { nil: null }),
    code: fc.option(fc.constantFrom('SUCCESS' as const, 'SWITCH_TO_HUMAN' as const, 'UNCLEAR_QUESTION' as const), { nil: null }),
    extras: fc.constantFrom('none' as const, 'buttons' as const, 'list' as const, 'markdown' as const),
  }),
  fc.record({
    kind: fc.constant('greet' as const),
    tenant,
    thread: small,
    by: fc.constantFrom('coreClientId' as const, 'clientId' as const, 'new' as const),
  }),
  fc.record({ kind: fc.constant('release' as const), thread: small }),
  fc.record({
    kind: fc.constant('reason' as const),
    tenant,
    code: fc.constantFrom('LUNCH', 'MEETING', 'TRAINING', 'NOPE'),
    active: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('refused' as const),
    tenant: fc.option(tenant, { nil: null }),
    thread: small,
    status: fc.constantFrom(400, 401, 403, 415),
  }),
  fc.record({ kind: fc.constant('redeliver' as const), delivery: small }),
  fc.record({
    kind: fc.constant('attempt' as const),
    delivery: small,
    outcome: fc.constantFrom<AttemptFields['outcome']>('delivered', 'retrying', 'failed'),
    status: fc.option(fc.constantFrom(200, 500, 503), { nil: null }),
    craft: fc.constantFrom<AttemptFields['craft']>(null, 'tampered', 'replay'),
  }),
  fc.record({
    kind: fc.constant('label' as const),
    thread: small,
    check: fc.constantFrom('replay', 'signature.tampered'),
    verdict: fc.constantFrom('pass' as const, 'fail' as const, null),
  }),
  fc.record({ kind: fc.constant('reset' as const), tenant: fc.option(tenant, { nil: null }) }),
  fc.record({
    kind: fc.constant('agentStatus' as const),
    tenant,
    agent: fc.nat({ max: 3 }),
    away: fc.boolean(),
    reason: fc.constantFrom('LUNCH', 'TRAINING', 'NOPE'),
  }),
  fc.record({ kind: fc.constant('agentSay' as const), thread: small, agent: fc.option(fc.nat({ max: 3 }), { nil: null }) }),
);

const settings = fc.record({
  maxEvents: fc.constantFrom(5, 12, 10_000),
  maxEventBytes: fc.constantFrom(3_000, 64 * 1024 * 1024),
  duplicates: fc.constantFrom('strict' as const, 'soft' as const),
  botConnected: fc.boolean(),
});

const at = <T>(items: readonly T[], index: number): T | undefined => (items.length === 0 ? undefined : items[index % items.length]);

let requests = 0;
const meta = (body: unknown, warnings = [] as { path: string; message: string }[]) => ({
  requestId: `req-${(requests += 1)}`,
  body,
  warnings,
  userAgent: requests % 2 === 0 ? null : 'my-bot/1.0',
});

/** Runs one request against the state; a request the sandbox refuses records what it records, and nothing else. */
function run(state: SandboxState, op: Op): void {
  const store = state.store;
  const threads = store.selected(undefined).flatMap((each) => [...each.threads.values()]);
  const deliveries = store.selected(undefined).flatMap((each) => [...each.deliveries.values()]);
  const customer = directCustomer({ state, sender: null, defaultTenant: TENANTS[0]! });
  switch (op.kind) {
    case 'start': {
      const known = at(threads, op.pick)?.client;
      const body: Record<string, unknown> = { tenant: TENANTS[op.tenant], channel: op.channel };
      if (op.client === 'known' && known) body.coreClientId = known.coreClientId;
      if (op.client === 'named') body.coreClientId = BigInt(1000 + op.pick);
      if (op.client === 'clientId') body.clientId = `client-${op.pick % 4}`;
      customer.start(body);
      return;
    }
    case 'say': {
      const thread = at(threads, op.thread);
      if (thread) customer.message(thread.sessionId, { text: op.text });
      return;
    }
    case 'press': {
      const thread = at(threads, op.thread);
      const last = thread?.lastBotMessage;
      if (!thread || !last) return;
      if (op.pick) {
        const picker = last.messageListPicker as { sections?: { items?: { identifier: string }[] }[] } | null;
        const item = at(picker?.sections?.[0]?.items ?? [], op.choice);
        customer.message(thread.sessionId, { pick: item?.identifier ?? 'nothing' });
      } else {
        const button = at(last.quickReplies, op.choice);
        customer.message(thread.sessionId, { press: String(button?.text ?? 'nothing') });
      }
      return;
    }
    case 'reply': {
      const name = TENANTS[op.tenant]!;
      const thread = at(
        threads.filter((each) => each.tenant === name),
        op.thread,
      );
      const question = thread?.questions.last();
      const body: Record<string, unknown> = {};
      if (op.by === 'questionId' || op.by === 'both') body.questionId = question?.questionId ?? 1n;
      if (op.by === 'session' || op.by === 'both' || op.by === 'conflict') {
        body.sessionId = thread?.sessionId ?? 's-none';
        body.questionIndex = question?.questionIndex ?? 1n;
      }
      if (op.by === 'conflict') body.questionId = (question?.questionId ?? 5000n) + 1n;
      if (op.by === 'coreClientId') body.coreClientId = thread?.client.coreClientId ?? 1001n;
      if (op.by === 'clientId') body.clientId = thread?.client.clientId ?? 'client-1';
      if (op.by === 'unknown') body.questionId = 4n;
      if (op.by === 'newClient') body.coreClientId = 7_000n + BigInt(op.thread);
      if (op.answerId !== null) body.answerId = op.answerId;
      if (op.code !== null) body.code = op.code;
      if (op.code === 'SWITCH_TO_HUMAN') body.userIds = op.thread % 2 === 0 ? [1n, 2n] : [3n];
      if (op.extras === 'markdown') body.formattedText = '**Hi** there';
      else body.text = 'Hi';
      if (op.extras === 'buttons')
        body.quickReplies = [
          { type: 'TEXT', text: 'Yes' },
          { type: 'TEXT', text: 'No', shown_text: 'Nope' },
        ];
      if (op.extras === 'list') {
        body.messageListPicker = {
          title: 'Pick',
          sections: [
            {
              title: 'S',
              items: [
                { identifier: 'i1', title: 'One' },
                { identifier: 'i2', title: 'Two' },
              ],
            },
          ],
        };
      }
      const checked = validateReply(body);
      if (!checked.ok) throw new Error(`the test made an invalid reply: ${JSON.stringify(checked.problems)}`);
      state.reply(name, checked.value, {
        ...meta(body, checked.warnings),
        formattedHtml: op.extras === 'markdown' ? '<p><strong>Hi</strong> there</p>' : null,
      });
      return;
    }
    case 'greet': {
      const name = TENANTS[op.tenant]!;
      const thread = at(
        threads.filter((each) => each.tenant === name),
        op.thread,
      );
      const body: Record<string, unknown> = { text: 'Welcome' };
      if (op.by === 'coreClientId') body.coreClientId = thread?.client.coreClientId ?? 1001n;
      if (op.by === 'clientId') body.clientId = thread?.client.clientId ?? `client-${op.thread % 4}`;
      if (op.by === 'new') body.coreClientId = 8_000n + BigInt(op.thread);
      const checked = validateGreeting(body);
      if (!checked.ok) throw new Error(`the test made an invalid greeting: ${JSON.stringify(checked.problems)}`);
      state.greeting(name, checked.value, meta(body, checked.warnings));
      return;
    }
    case 'release': {
      const thread = at(threads, op.thread);
      if (thread) state.release(thread);
      return;
    }
    case 'reason': {
      const body = { code: op.code, reasons: [{ locale: 'en', name: op.code }], active: op.active };
      const checked = validateReason(body);
      if (checked.ok) state.updateReason(TENANTS[op.tenant]!, checked.value, { requestId: `req-${(requests += 1)}` });
      return;
    }
    case 'refused': {
      const thread = at(threads, op.thread);
      state.apiRequest(op.tenant === null ? 'nobody' : TENANTS[op.tenant], {
        method: 'POST',
        path: '/api/v1/chatbot',
        status: op.status,
        requestId: `req-${(requests += 1)}`,
        error: 'refused',
        body: thread ? { sessionId: thread.sessionId } : 'not an object',
        userAgent: 'curl/8.5.0',
      });
      return;
    }
    case 'redeliver': {
      const delivery = at(deliveries, op.delivery);
      state.redeliver(delivery?.deliveryId ?? 'msg_none');
      return;
    }
    case 'attempt': {
      const delivery = at(deliveries, op.delivery);
      if (!delivery) return;
      state.webhookAttempt(delivery, {
        attempt: 1,
        redelivery: delivery.redeliveries,
        url: 'http://127.0.0.1:9/bot',
        status: op.status,
        error: op.status === null ? 'ECONNREFUSED' : null,
        latencyMs: 2,
        body: op.status === null ? '' : 'ok',
        bodyTruncated: false,
        outcome: op.outcome,
        retryInMs: op.outcome === 'retrying' ? 100 : null,
        retryAfter: false,
        craft: op.craft,
      });
      return;
    }
    case 'label': {
      const thread = at(threads, op.thread);
      if (thread) state.labelCheck(thread, { check: op.check, verdict: op.verdict, message: op.verdict === null ? null : 'judged' });
      return;
    }
    case 'reset':
      state.reset(op.tenant === null ? undefined : TENANTS[op.tenant]);
      return;
    case 'agentStatus':
      state.agentStatus(TENANTS[op.tenant]!, AGENT_IDS[op.agent]!, op.away ? 'away' : 'online', op.away ? op.reason : null);
      return;
    case 'agentSay': {
      const thread = at(threads, op.thread);
      if (thread) state.agentMessage(thread, 'Agent here', op.agent === null ? null : AGENT_IDS[op.agent]!);
      return;
    }
  }
}

/** Plays the requests, and replays what they recorded, through JSON, into a fresh store. */
function playAndReplay(config: SandboxStateConfig, ops: Op[]) {
  const state = new SandboxState(config);
  const recorded: SandboxEvent[] = [];
  state.subscribe((event) => recorded.push(event));
  for (const each of ops) run(state, each);
  const replayed = new Store(config);
  replayed.replay(recorded.map((event) => parseEvent(eventJson(event))));
  return { state, recorded, replayed };
}

const configOf = (extra: {
  maxEvents: number;
  maxEventBytes: number;
  duplicates: 'strict' | 'soft';
  botConnected: boolean;
}): SandboxStateConfig => ({
  tenants: TENANTS,
  seedReasons: seed.reasons,
  seedAgents,
  maxActiveReasons: 3,
  ...extra,
});

describe('a replay of the event log', () => {
  it('rebuilds the same state from the events any sequence of requests recorded, written as JSON and read back', () => {
    fc.assert(
      fc.property(settings, fc.array(op, { minLength: 1, maxLength: 80 }), (extra, ops) => {
        const { state, replayed } = playAndReplay(configOf(extra), ops);
        expect(replayed.digest()).toEqual(state.store.digest());
      }),
      { numRuns: 300 },
    );
  });

  it('goes on with the ids where they stopped: the next question and client made after a replay are the ones the original would make', () => {
    fc.assert(
      fc.property(settings, fc.array(op, { minLength: 1, maxLength: 60 }), (extra, ops) => {
        const config = configOf(extra);
        const { state, recorded } = playAndReplay(config, ops);
        const again = new SandboxState(config);
        again.store.replay(recorded.map((event) => parseEvent(eventJson(event))));
        expect(again.lastSeq).toBe(state.lastSeq);
        for (const name of TENANTS) {
          const original = state.startConversation(name, { channel: 'WEB' });
          const resumed = again.startConversation(name, { channel: 'WEB' });
          if (!original.ok || !resumed.ok) throw new Error('a new conversation was refused');
          expect(resumed.thread.client.coreClientId).toBe(original.thread.client.coreClientId);
          expect(again.customerMessage(resumed.thread, { text: 'Hi', quickReply: null, listItem: null }).event.questionId).toBe(
            state.customerMessage(original.thread, { text: 'Hi', quickReply: null, listItem: null }).event.questionId,
          );
        }
        expect(again.lastSeq).toBe(state.lastSeq);
      }),
      { numRuns: 100 },
    );
  });

  it('restores the same state from a checkpoint and its kept events, written as a state file writes them and read back', () => {
    fc.assert(
      fc.property(settings, fc.array(op, { minLength: 1, maxLength: 80 }), (extra, ops) => {
        const config = configOf(extra);
        const { state } = playAndReplay(config, ops);
        const taken = state.store.checkpoint();
        const header = readLine(headerLine(taken.state, config.tenants), 1);
        if (header.kind !== 'header' || header.header.checkpoint === null) throw new Error('the header was not read back');
        const restored = new Store(config);
        restored.restore({ state: header.header.checkpoint, events: taken.events.map((event) => parseEvent(eventJson(event))) });
        expect(restored.digest()).toEqual(state.store.digest());
      }),
      { numRuns: 300 },
    );
  });

  it('goes on from a checkpoint as from the model it was taken of: the next ids, the events applied after it, the drops', () => {
    fc.assert(
      fc.property(
        settings,
        fc.array(op, { minLength: 1, maxLength: 60 }),
        fc.array(op, { minLength: 1, maxLength: 30 }),
        (extra, ops, more) => {
          const config = configOf(extra);
          const { state } = playAndReplay(config, ops);
          const taken = state.store.checkpoint();
          const again = new SandboxState(config);
          again.store.restore({ state: structuredClone(taken.state), events: taken.events.map((event) => parseEvent(eventJson(event))) });
          // The requests after the checkpoint, recorded on the original and applied to the restored one.
          const after: SandboxEvent[] = [];
          const stop = state.subscribe((event) => after.push(event));
          for (const each of more) run(state, each);
          stop();
          again.store.replay(after.map((event) => parseEvent(eventJson(event))));
          expect(again.store.digest()).toEqual(state.store.digest());
          for (const name of TENANTS) {
            const original = state.startConversation(name, { channel: 'WEB' });
            const resumed = again.startConversation(name, { channel: 'WEB' });
            if (!original.ok || !resumed.ok) throw new Error('a new conversation was refused');
            expect(resumed.thread.client.coreClientId).toBe(original.thread.client.coreClientId);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('records every request that changes the state: a run exercises each type of event', () => {
    // The generator reaches every type: a test of the test, so that the property above is about all of them.
    const seen = new Set<string>();
    fc.assert(
      fc.property(settings, fc.array(op, { minLength: 40, maxLength: 80 }), (extra, ops) => {
        for (const event of playAndReplay(configOf({ ...extra, botConnected: true }), ops).recorded) seen.add(event.type);
      }),
      { numRuns: 200, seed: 1 },
    );
    expect([...seen].sort()).toEqual([
      'agent.message',
      'agent.status',
      'api.request',
      'bot.answer',
      'conversation.started',
      'customer.message',
      'greeting',
      'handover',
      'handover.queued',
      'handover.routed',
      'probe.check',
      'reason.updated',
      'released',
      'sandbox.reset',
      'webhook.attempt',
      'webhook.redelivery',
    ]);
  });
});
