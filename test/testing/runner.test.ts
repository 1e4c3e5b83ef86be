import { afterAll, describe, expect, it } from 'vitest';
import type { NamedIdentifiers, SandboxEvent } from '../../src/sandbox/events.js';
import type { PlannedConversation, PlannedStep } from '../../src/testing/load.js';
import type { SandboxClient } from '../../src/testing/platform.js';
import type { RunResult } from '../../src/testing/results.js';
import { PatternWorker } from '../../src/testing/pattern-worker.js';
import { runConversation } from '../../src/testing/runner.js';
import { Latencies } from '../../src/testing/suite.js';
import { eventFrom, type PartialEvent } from '../helpers/events.js';

/**
 * The runner's reading of the sandbox's events, with the events of the refusal contract
 * (/_sandbox/events delivers a conversation's own events and the refusals tied to none): a scripted
 * sandbox client stands in for the HTTP one, and its events carry the sandbox's clock.
 */

type Event = PartialEvent;
/** What the bot does with a customer message: the events the sandbox then records, each with its time offset (ms after the message). */
type Script = (message: { sessionId: string; questionIndex: bigint; text: string }) => (Event & { afterMs?: number })[];

const T0 = Date.parse('2026-11-25T12:00:00.000Z');

function scriptedSandbox(script: Script) {
  const listeners = new Map<string, (event: SandboxEvent) => void>();
  let seq = 0;
  let conversations = 0;
  const record = (event: Event) => {
    seq += 1;
    const full = eventFrom({ ...event, seq });
    for (const [session, listener] of listeners) if (full.sessionId === session || full.sessionId === null) listener(full);
    return full;
  };
  const sandbox: SandboxClient = {
    signal: new AbortController().signal,
    choose: (_, label) => ({ press: label }),
    async startConversation() {
      return { status: 201, json: { sessionId: `s-${++conversations}`, tenant: 'sandbox' }, text: '' };
    },
    async sendMessage(sessionId, message) {
      const text = message.text!;
      const questionIndex = 1n;
      const asked = record({ type: 'customer.message', sessionId, questionIndex, text, time: new Date(T0).toISOString() });
      // The bot's doings arrive later, as they would over the network.
      setImmediate(() => {
        for (const { afterMs = 0, ...event } of script({ sessionId, questionIndex, text })) {
          record({ sessionId, time: new Date(T0 + afterMs).toISOString(), ...event } as Event);
        }
      });
      return { status: 201, json: { seq: asked.seq, questionIndex, deliveryId: null, noWebhook: null }, text: '' };
    },
    async showConversation() {
      return { status: 404, json: undefined, text: '' };
    },
    follow(session, _tenant, onEvent) {
      listeners.set(session, onEvent);
      return { opened: Promise.resolve(), ended: new Promise(() => {}), close: () => listeners.delete(session) };
    },
  };
  return { sandbox, record };
}

const plan = (steps: PlannedStep[], name = 'c'): PlannedConversation => ({
  file: 'a.yaml',
  index: 0,
  ordinal: 0,
  name,
  line: 1,
  channel: 'WEB',
  client: undefined,
  row: null,
  values: new Map(),
  steps,
});
const customer = (text: string): PlannedStep => ({ kind: 'customer', text, index: 0, line: 2 });
const bot = (withinMs: number | null = null): PlannedStep => ({ kind: 'bot', expect: {}, withinMs, capture: [], index: 1, line: 3 });
const answer = (afterMs: number, text = 'Hello'): Event & { afterMs: number } => ({
  type: 'bot.answer',
  afterMs,
  questionIndex: 1n,
  delivered: true,
  notDelivered: null,
  status: 200,
  body: { text, code: 'SUCCESS' },
});
const refused = (sessionId: string | null, status: number, error: string, named: Partial<NamedIdentifiers> = {}): Event => ({
  type: 'api.request',
  ...(sessionId === null ? { sessionId: null } : {}),
  scope: sessionId === null ? 'tenant' : 'conversation',
  method: 'POST',
  path: '/api/v1/chatbot',
  status,
  error,
  named: { questionId: null, questionIndex: null, sessionId: null, coreClientId: null, clientId: null, ...named },
});

/** A step time limit no test waits out: a refusal must fail the step when it comes, not at the limit. */
const NEVER = 3_600_000;
const message = (run: RunResult) => run.failure?.message;

const patterns = new PatternWorker();
afterAll(() => patterns.close());

describe('a bot step and the refusals of the sandbox', () => {
  it.each([
    [401, 'unknown token: the Authorization header names no token of tenant sandbox'],
    [403, "the token is not one of tenant 'other'"],
    [400, 'text: must not be empty'],
  ])('fails at once on a refusal tied to its conversation (%s), naming the status and the message', async (status, error) => {
    const { sandbox } = scriptedSandbox(({ sessionId }) => [refused(sessionId, status, error)]);
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(message(run)).toBe(`the sandbox refused a request of the bot: POST /api/v1/chatbot answered ${status}: ${error}`);
    expect(run.failure?.stepIndex).toBe(1);
    expect(run.coverage.get('refusal')).toBe(1);
  });

  it('fails at once on a refusal tied to no conversation while it waits, marked so, with what the request named', async () => {
    const { sandbox } = scriptedSandbox(() => [refused(null, 404, 'no question 99', { questionId: 99n })]);
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(message(run)).toBe(
      'the sandbox refused a request of the bot (not tied to a conversation): POST /api/v1/chatbot answered 404: no question 99 (it named questionId 99)',
    );
    expect(run.coverage.get('refusal')).toBe(1);
  });

  it('reports an untied refusal in every conversation still waiting', async () => {
    let waiting = 0;
    const { sandbox, record } = scriptedSandbox(() => {
      // Once both conversations have asked, one refusal tied to neither.
      if ((waiting += 1) === 2)
        setImmediate(() => record({ ...refused(null, 404, 'no question 99'), time: new Date(T0).toISOString() } as Event));
      return [];
    });
    const runs = await Promise.all(
      ['a', 'b'].map((name) => runConversation(plan([customer('Hi'), bot()], name), { sandbox, stepTimeoutMs: NEVER, patterns })),
    );
    for (const run of runs)
      expect(message(run)).toMatch(/^the sandbox refused a request of the bot \(not tied to a conversation\): .* 404: no question 99$/);
  });

  it('passes over an untied refusal that came before the question it waits on', async () => {
    const { sandbox, record } = scriptedSandbox(() => [answer(3)]);
    const send = sandbox.sendMessage;
    sandbox.sendMessage = (sessionId, message) => {
      // Recorded with the conversation's stream open, before the customer's message.
      record({ ...refused(null, 401, 'unknown token'), time: new Date(T0).toISOString() } as Event);
      return send(sessionId, message);
    };
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(message(run)).toBeUndefined();
    expect(run.coverage.get('refusal')).toBeUndefined();
  });

  /** An answer the sandbox checked and refused for naming a question it does not have: tied to no conversation. */
  const unknownQuestion: Event = {
    type: 'bot.answer',
    sessionId: null,
    status: 404,
    delivered: false,
    notDelivered: 'unknown question',
    error: 'no question with questionId 99',
    body: { text: 'Hello', code: 'SUCCESS' },
  };

  it('fails at once on an answer refused for an unknown question while it waits, marked not tied', async () => {
    const { sandbox } = scriptedSandbox(() => [unknownQuestion]);
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(message(run)).toBe(
      "the bot's answer (not tied to a conversation) was not delivered (404: unknown question): no question with questionId 99",
    );
    expect(run.failure?.stepIndex).toBe(1);
  });

  it('passes over an answer refused for an unknown question once its own answer came: it may be another conversation’s', async () => {
    const { sandbox } = scriptedSandbox(() => [answer(1), unknownQuestion]);
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.outcome).toBe('passed');
  });

  it('passes over an answer whose answerId was already used (dropped by the platform), and counts it', async () => {
    const { sandbox } = scriptedSandbox(() => [
      { ...answer(2), delivered: false, notDelivered: 'duplicate answerId', status: 200 },
      answer(3),
    ]);
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.outcome).toBe('passed');
    expect(run.coverage.get('duplicateAnswerId')).toBe(1);
  });
});

describe('latency: question recorded to answer recorded, on the sandbox clock', () => {
  it.each([
    [3, null, undefined],
    [500, 500, undefined],
    [501, 500, 'too late: answered in 501ms, within 500ms expected'],
    [1520, 500, 'too late: answered in 1.52s, within 500ms expected'],
    [2000, 1000, 'too late: answered in 2s, within 1s expected'],
  ])('an answer %s ms after the question, within %s: %s', async (afterMs, withinMs, failure) => {
    const { sandbox } = scriptedSandbox(() => [answer(afterMs)]);
    const run = await runConversation(plan([customer('Hi'), bot(withinMs)]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(message(run)).toBe(failure);
    expect(run.latenciesMs).toEqual([afterMs]);
    expect(run.steps[1]!.latencyMs).toBe(afterMs);
  });

  it('is the recorded times, whatever the runner took to read them', async () => {
    const { sandbox, record } = scriptedSandbox(() => []);
    const run = runConversation(plan([customer('Hi'), bot(10)]), { sandbox, stepTimeoutMs: NEVER, patterns });
    // The answer reaches the runner late (a busy machine); the sandbox recorded it 4 ms after the question.
    await new Promise((resolve) => setTimeout(resolve, 50));
    record({ ...answer(0), sessionId: 's-1', time: new Date(T0 + 4).toISOString() } as Event);
    const result = await run;
    expect(result.latenciesMs).toEqual([4]);
    expect(result.outcome).toBe('passed');
  });
});

describe('Latencies', () => {
  const of = (values: number[]) => {
    const latencies = new Latencies();
    for (const value of values) latencies.add(value);
    return latencies;
  };

  it.each([
    [[], null],
    [[7], { p50: 7, p95: 7, max: 7 }],
    [[1, 2], { p50: 1, p95: 2, max: 2 }],
    [[3, 1, 2], { p50: 2, p95: 3, max: 3 }],
    [Array.from({ length: 100 }, (_, i) => i + 1), { p50: 50, p95: 95, max: 100 }],
    [Array.from({ length: 101 }, (_, i) => i + 1), { p50: 51, p95: 96, max: 101 }],
    [[...Array.from({ length: 95 }, () => 10), ...Array.from({ length: 5 }, () => 900)], { p50: 10, p95: 10, max: 900 }],
    [[...Array.from({ length: 94 }, () => 10), ...Array.from({ length: 6 }, () => 900)], { p50: 10, p95: 900, max: 900 }],
  ])('nearest rank of %j: %j', (values, expected) => {
    expect(of(values).summary()).toEqual(expected);
  });

  it('holds one count per distinct millisecond, however many runs', () => {
    const latencies = of(Array.from({ length: 100_000 }, (_, i) => i % 50));
    expect(latencies.n).toBe(100_000);
    expect((latencies as unknown as { counts: Map<number, number> }).counts.size).toBe(50);
  });
});
