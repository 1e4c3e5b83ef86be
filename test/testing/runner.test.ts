import { afterAll, describe, expect, it } from 'vitest';
import type { NamedIdentifiers, SandboxEvent } from '../../src/sandbox/events.js';
import type { PlannedConversation, PlannedStep } from '../../src/testing/load.js';
import type { SandboxClient } from '../../src/testing/platform.js';
import type { RunResult } from '../../src/testing/results.js';
import { PatternWorker } from '../../src/testing/pattern-worker.js';
import { RunReach } from '../../src/testing/reach.js';
import { runConversation, stepTitle } from '../../src/testing/runner.js';
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
    async post(path) {
      return { status: 404, json: { message: `no such path: ${path}` }, text: '' };
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
    async agentMessage() {
      return { status: 409, json: { message: 'the thread is with the bot' }, text: '' };
    },
    async release() {
      return { status: 200, json: { released: false }, text: '' };
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
const bot = (withinMs: number | null = null): PlannedStep => ({
  kind: 'bot',
  expect: {},
  withinMs,
  capture: [],
  handover: null,
  index: 1,
  line: 3,
});
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

const press = (label: string): PlannedStep => ({ kind: 'press', label, index: 2, line: 4 });
const none = (withinMs: number): PlannedStep => ({ kind: 'none', withinMs, index: 2, line: 5 });
/** A webhook attempt of the message's delivery, as the sandbox records it. */
const attempt = (
  status: number | null,
  error: string | null,
  outcome: 'delivered' | 'failed' | 'retrying' = status === null ? 'failed' : 'delivered',
): Event => ({
  type: 'webhook.attempt',
  deliveryId: 'msg_1',
  status,
  error,
  outcome,
});

describe('the title of a step', () => {
  const values = new Map([['NAME', 'Ann']]);
  it.each([
    [customer('Hi ${NAME}'), 'customer: Hi Ann'],
    [press('Yes, ${NAME}'), 'press: Yes, Ann'],
    [bot(), 'bot'],
    [none(100), 'bot: none'],
  ])('of %j is %j, its ${NAME}s filled in', (step, title) => {
    expect(stepTitle(step, values)).toBe(title);
  });

  it.each([
    ["an agent's message, by its agent", { kind: 'agent', text: 'Hello ${NAME}', agentId: 7n, index: 0, line: 2 }, 'agent 7: Hello Ann'],
    ["an agent's message, by any agent", { kind: 'agent', text: 'Hello ${NAME}', agentId: null, index: 0, line: 2 }, 'agent: Hello Ann'],
    ['a release', { kind: 'release', index: 0, line: 2 }, 'release: true'],
  ] as [string, PlannedStep, string][])('of %s names who does what', (_, step, title) => {
    expect(stepTitle(step, values)).toBe(title);
  });

  it('keeps a ${NAME} that has no value as written', () => {
    expect(stepTitle(customer('Hi ${NAME}'))).toBe('customer: Hi ${NAME}');
  });
});

describe('a run from its start to its end', () => {
  it('passes every step played, with its title, line and time, and names its conversation', async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3)]);
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run).toMatchObject({ sessionId: 's-1', outcome: 'passed' });
    expect('failure' in run).toBe(false);
    expect(run.steps.map(({ index, line, kind, title, outcome }) => ({ index, line, kind, title, outcome }))).toEqual([
      { index: 0, line: 2, kind: 'customer', title: 'customer: Hi', outcome: 'passed' },
      { index: 1, line: 3, kind: 'bot', title: 'bot', outcome: 'passed' },
    ]);
    expect(run.endedAt).toBeGreaterThanOrEqual(run.startedAt);
    expect(run.durationMs).toBe(Math.round(run.endedAt - run.startedAt));
    // Each step's time lies within the run's (both rounded to the millisecond).
    for (const step of run.steps) expect(step.durationMs).toBeGreaterThanOrEqual(0);
    expect(run.steps.reduce((sum, step) => sum + step.durationMs, 0)).toBeLessThanOrEqual(run.durationMs + run.steps.length);
  });

  it("starts its conversation in the plan's channel, for the plan's client when it names one", async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3)]);
    const bodies: unknown[] = [];
    const start = sandbox.startConversation;
    sandbox.startConversation = (body) => (bodies.push(body), start(body));
    await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    await runConversation(
      { ...plan([customer('Hi'), bot()]), channel: 'EMAIL', client: { clientId: 'c-7', coreClientId: 77n } },
      {
        sandbox,
        stepTimeoutMs: NEVER,
        patterns,
      },
    );
    await runConversation({ ...plan([customer('Hi'), bot()]), client: { clientId: 'c-8' } }, { sandbox, stepTimeoutMs: NEVER, patterns });
    await runConversation({ ...plan([customer('Hi'), bot()]), client: { coreClientId: 88n } }, { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(bodies).toEqual([
      { channel: 'WEB' },
      { channel: 'EMAIL', clientId: 'c-7', coreClientId: 77n },
      { channel: 'WEB', clientId: 'c-8' },
      { channel: 'WEB', coreClientId: 88n },
    ]);
  });

  it.each([
    ['a refusal', { status: 503, json: { message: 'the sandbox is busy' }, text: '' }, '503 the sandbox is busy'],
    ['a 201 that names no session', { status: 201, json: { tenant: 'sandbox' }, text: 'started' }, '201 started'],
    ['a 200', { status: 200, json: { sessionId: 's-9' }, text: 'ok' }, '200 ok'],
  ])('fails on the conversation itself when the sandbox does not start it (%s), every step skipped', async (_, opened, said) => {
    const { sandbox } = scriptedSandbox(() => [answer(3)]);
    sandbox.startConversation = async () => opened;
    const run = await runConversation({ ...plan([customer('Hi'), bot()]), line: 7 }, { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run).toMatchObject({ sessionId: null, outcome: 'failed' });
    expect(run.failure).toEqual({ stepIndex: null, line: 7, message: `the sandbox did not start the conversation: ${said}` });
    expect(run.steps.map((step) => step.outcome)).toEqual(['skipped', 'skipped']);
    expect(run.coverage.size).toBe(0);
  });

  it('passes a conversation of no steps once it has started', async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3)]);
    const run = await runConversation(plan([]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run).toMatchObject({ sessionId: 's-1', outcome: 'passed', steps: [] });
  });

  it('follows a conversation in no tenant when the sandbox names none', async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3)]);
    sandbox.startConversation = async () => ({ status: 201, json: { sessionId: 's-5' }, text: '' });
    const followed: string[] = [];
    const follow = sandbox.follow;
    sandbox.follow = (session, tenant, onEvent) => (followed.push(tenant), follow(session, tenant, onEvent));
    await runConversation(plan([customer('Hi'), none(10)]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(followed).toEqual(['']);
  });

  it('follows the conversation the sandbox started, in its tenant, and stops following it at the end', async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3)]);
    const followed: [string, string][] = [];
    let closed = 0;
    const follow = sandbox.follow;
    sandbox.follow = (session, tenant, onEvent) => {
      followed.push([session, tenant]);
      const stream = follow(session, tenant, onEvent);
      return { ...stream, close: () => ((closed += 1), stream.close()) };
    };
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.outcome).toBe('passed');
    expect(followed).toEqual([['s-1', 'sandbox']]);
    expect(closed).toBe(1);
  });

  it('fails the step that waits when the sandbox ends the event stream', async () => {
    const { sandbox } = scriptedSandbox(() => []);
    let end = () => {};
    const follow = sandbox.follow;
    sandbox.follow = (session, tenant, onEvent) => ({
      ...follow(session, tenant, onEvent),
      ended: new Promise<void>((resolve) => (end = resolve)),
    });
    const sendMessage = sandbox.sendMessage;
    sandbox.sendMessage = async (sessionId, message) => {
      const sent = await sendMessage(sessionId, message);
      setImmediate(end);
      return sent;
    };
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(message(run)).toBe('the sandbox closed the event stream before the bot answered');
    expect(run.failure?.stepIndex).toBe(1);
  });
});

describe('the steps in order, until one fails', () => {
  it('skips the steps after the one that failed, and gives its index and line', async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3, 'Hello')]);
    const steps = [customer('Hi'), { ...bot(), expect: { text: 'Bye' } }, { ...customer('More'), index: 2, line: 9 }];
    const run = await runConversation(plan(steps), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.outcome).toBe('failed');
    expect(run.failure).toMatchObject({ stepIndex: 1, line: 3 });
    expect(run.steps.map((step) => step.outcome)).toEqual(['passed', 'failed', 'skipped']);
    expect(run.steps[1]!.failure?.message).toBe(run.failure?.message);
    expect(run.steps[0]!.failure).toBeUndefined();
  });

  it("fails a customer step on the sandbox's refusal of the message", async () => {
    const { sandbox } = scriptedSandbox(() => []);
    sandbox.sendMessage = async () => ({ status: 400, json: { message: 'text: must not be empty' }, text: '' });
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.failure).toEqual({ stepIndex: 0, line: 2, message: 'the sandbox refused the message: 400 text: must not be empty' });
    expect(run.steps.map((step) => step.outcome)).toEqual(['failed', 'skipped']);
  });

  it('fails a customer step that follows an answer no step took, before sending it', async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3, 'First'), answer(4, 'Second')]);
    const sent: string[] = [];
    const sendMessage = sandbox.sendMessage;
    sandbox.sendMessage = (sessionId, m) => (sent.push(m.text!), sendMessage(sessionId, m));
    const steps = [customer('Hi'), bot(), { ...customer('More'), index: 2, line: 9 }];
    const run = await runConversation(plan(steps), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.failure).toMatchObject({
      stepIndex: 2,
      line: 9,
      message: 'the bot sent an answer no step expects, before this step: add a bot step for it',
      received: { text: 'Second', code: 'SUCCESS' },
    });
    expect(sent).toEqual(['Hi']);
  });

  it("fails the conversation on an answer no step took after its last step, at the last step's line", async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3, 'First'), answer(4, 'Second')]);
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.failure).toMatchObject({
      stepIndex: null,
      line: 3,
      message: 'the bot sent an answer no step expects, after the last step: add a bot step for it',
    });
    expect(run.steps.map((step) => step.outcome)).toEqual(['passed', 'passed']);
  });

  it('places an answer no step took after the last step at the line of the last step', async () => {
    const { sandbox } = scriptedSandbox(({ text }) => (text === 'More' ? [answer(3, 'First'), answer(4, 'Second')] : [answer(3)]));
    const steps = [customer('Hi'), bot(), { ...customer('More'), index: 2, line: 9 }, { ...bot(), index: 3, line: 10 }];
    const run = await runConversation(plan(steps), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.failure).toMatchObject({ stepIndex: null, line: 10, message: expect.stringMatching(/after the last step/) });
  });

  it('gives a bot step that got no answer no latency', async () => {
    const { sandbox } = scriptedSandbox(({ sessionId }) => [refused(sessionId, 400, 'text: must not be empty')]);
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.outcome).toBe('failed');
    expect(run.latenciesMs).toEqual([]);
    expect('latencyMs' in run.steps[1]!).toBe(false);
  });

  it('ends a run whose last step expects silence once the silence has lasted, without waiting for the webhook', async () => {
    const { sandbox } = scriptedSandbox(() => []);
    const sendMessage = sandbox.sendMessage;
    // A webhook sent and never answered: only a wait for it would not end.
    sandbox.sendMessage = async (sessionId, m) => {
      const sent = await sendMessage(sessionId, m);
      return { ...sent, json: { ...(sent.json as object), deliveryId: 'msg_1' } };
    };
    const run = await runConversation(plan([customer('Hi'), none(10)]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.outcome).toBe('passed');
    expect(run.steps.map((step) => step.outcome)).toEqual(['passed', 'passed']);
  });

  it('fails a bot: none step on an answer that comes, and passes one where none comes', async () => {
    const { sandbox } = scriptedSandbox(({ text }) => (text === 'Hi' ? [answer(3, 'Hello')] : []));
    const answered = await runConversation(plan([customer('Hi'), none(NEVER)]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(answered.failure).toMatchObject({ stepIndex: 1, message: 'an answer came where none was expected (within 1h)' });
    const silent = await runConversation(plan([customer('Quiet'), none(10)]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(silent.outcome).toBe('passed');
  });

  it.each([
    ['a button', (label: string) => ({ press: label }), 'press'],
    ['a list item', (label: string) => ({ pick: label }), 'pick'],
  ] as const)('counts a press of %s as exercised, and sends what the sandbox chose for the label', async (_, choose, action) => {
    const { sandbox } = scriptedSandbox(() => [answer(3)]);
    const sent: unknown[] = [];
    sandbox.showConversation = async () => ({ status: 200, json: { conversation: { lastBotMessage: null } }, text: '' });
    sandbox.choose = (_, label) => choose(label);
    const sendMessage = sandbox.sendMessage;
    sandbox.sendMessage = (sessionId, m) => (sent.push(m), sendMessage(sessionId, { text: 'pressed', ...m }));
    const run = await runConversation(plan([press('Yes'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.outcome).toBe('passed');
    expect(sent).toEqual([choose('Yes')]);
    expect(Object.fromEntries(run.coverage)).toEqual({ WEB: 1, [action]: 1, SUCCESS: 1 });
  });
});

describe("the agents' side of a run: agent: and release: true", () => {
  const agentStep = (text: string, agentId: bigint | null = 7n): PlannedStep => ({ kind: 'agent', text, agentId, index: 2, line: 6 });
  const release: PlannedStep = { kind: 'release', index: 3, line: 7 };

  it("writes an agent's message to the conversation, its ${NAME}s filled in, by the agent it names", async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3)]);
    const written: [string, unknown][] = [];
    sandbox.agentMessage = async (sessionId, body) => (written.push([sessionId, body]), { status: 201, json: {}, text: '' });
    const planned = {
      ...plan([customer('Hi'), bot(), agentStep('Hello ${name}'), agentStep('Bye', null)]),
      values: new Map([['name', 'Ann']]),
    };
    const run = await runConversation(planned, { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.outcome).toBe('passed');
    expect(written).toEqual([
      ['s-1', { text: 'Hello Ann', agentId: 7n }],
      ['s-1', { text: 'Bye' }],
    ]);
  });

  it('gives the thread back to the bot on release: true, and fails it when the thread was with the bot', async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3)]);
    const released: string[] = [];
    sandbox.release = async (sessionId) => (released.push(sessionId), { status: 200, json: { released: true }, text: '' });
    const run = await runConversation(plan([customer('Hi'), bot(), release]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.outcome).toBe('passed');
    expect(released).toEqual(['s-1']);
    const withBot = scriptedSandbox(() => [answer(3)]);
    const failed = await runConversation(plan([customer('Hi'), bot(), release]), {
      sandbox: withBot.sandbox,
      stepTimeoutMs: NEVER,
      patterns,
    });
    expect(failed.failure).toMatchObject({ stepIndex: 2, line: 7, message: expect.stringMatching(/^nothing to give back/) });
  });

  it.each([
    ["an agent's message", agentStep('Hello')],
    ['a release', release],
  ])('fails %s that follows an answer no step took, before sending it', async (_, step) => {
    const { sandbox } = scriptedSandbox(() => [answer(3, 'One'), answer(4, 'Two')]);
    let sent = 0;
    sandbox.agentMessage = async () => ((sent += 1), { status: 201, json: {}, text: '' });
    sandbox.release = async () => ((sent += 1), { status: 200, json: { released: true }, text: '' });
    const run = await runConversation(plan([customer('Hi'), bot(), step]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.failure).toMatchObject({ stepIndex: 2, message: expect.stringMatching(/before this step/) });
    expect(sent).toBe(0);
  });
});

describe('what a run counts of the events it sees', () => {
  it('counts the channel, and the code of an answer the bot gave', async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3)]);
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(Object.fromEntries(run.coverage)).toEqual({ WEB: 1, SUCCESS: 1 });
    expect(run.botSpoke).toBe(true);
  });

  it("counts the bot's answers, not its greetings", async () => {
    const greeting = { type: 'greeting', delivered: true, status: 200, body: { text: 'Welcome', quickReplies: [{ text: 'Yes' }] } };
    const { sandbox } = scriptedSandbox(() => [
      greeting as Event,
      { ...answer(3), body: { text: 'Hi', quickReplies: [{ text: 'No' }] } } as Event,
    ]);
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.coverage.get('quickReplies')).toBe(1);
  });

  it.each([
    ['an answer', [answer(3)], true],
    ['a greeting', [{ type: 'greeting', delivered: true } as Event], true],
    ['a request of the bot', [{ ...refused('s-1', 200, ''), error: null }], true],
    ['only webhook attempts', [attempt(500, null, 'failed')], false],
  ])('knows the bot spoke from %s', async (_, events, spoke) => {
    const { sandbox } = scriptedSandbox(() => events as Event[]);
    const run = await runConversation(plan([customer('Hi'), none(10)]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.botSpoke).toBe(spoke);
  });

  it.each([
    ['a refused request tied to the conversation', refused('s-1', 400, 'bad'), 1],
    ['an accepted request', { ...refused('s-1', 200, ''), error: null }, undefined],
    ['a refusal at the edge of the refusals', { ...refused('s-1', 399, ''), error: null }, undefined],
  ])('counts %s as a refusal: %s', async (_, event, count) => {
    const { sandbox } = scriptedSandbox(() => [event as Event, answer(3)]);
    const run = await runConversation(plan([customer('Hi'), none(10)]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.coverage.get('refusal')).toBe(count);
  });

  it.each([
    ['no attempt', [], { attempts: 0, connected: false, errors: [] }],
    ['an attempt the bot answered', [attempt(200, null)], { attempts: 1, connected: true, errors: [] }],
    ['an attempt the bot refused', [attempt(500, null, 'failed')], { attempts: 1, connected: true, errors: [] }],
    ['an attempt that timed out', [attempt(null, 'timeout after 10s')], { attempts: 1, connected: true, errors: [] }],
    ['an attempt refused a connection', [attempt(null, 'ECONNREFUSED')], { attempts: 1, connected: false, errors: ['ECONNREFUSED'] }],
    [
      'attempts that failed the same way twice, or twice with no error given',
      [attempt(null, 'ECONNREFUSED'), attempt(null, null), attempt(null, 'ECONNREFUSED'), attempt(null, null)],
      { attempts: 4, connected: false, errors: ['ECONNREFUSED', 'no answer'] },
    ],
    [
      'six different errors: five kept',
      ['e1', 'e2', 'e3', 'e4', 'e5', 'e6'].map((e) => attempt(null, e)),
      { attempts: 6, connected: false, errors: ['e1', 'e2', 'e3', 'e4', 'e5'] },
    ],
    [
      'an error that only mentions a timeout',
      [attempt(null, 'no timeout set')],
      { attempts: 1, connected: false, errors: ['no timeout set'] },
    ],
  ])('reads whether the bot could be reached from %s', async (_, attempts, reach) => {
    const { sandbox } = scriptedSandbox(() => attempts as Event[]);
    const run = await runConversation(plan([customer('Hi'), none(10)]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.reach).toEqual(reach);
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

describe('a conversation that starts mid-flow (from: a seed or a snapshot)', () => {
  const seed = { tenants: { sandbox: { threads: [] } } };
  const fromSeed = (steps: PlannedStep[]): PlannedConversation => ({ ...plan(steps), line: 9, from: { seed, file: 'mid.seed.yaml' } });
  const fromSnapshot = (name: string, steps: PlannedStep[]): PlannedConversation => ({ ...plan(steps), line: 9, from: { snapshot: name } });
  const thread = (sessionId: string, more: Record<string, unknown> = {}) => ({
    sessionId,
    tenant: 'sandbox',
    channel: 'EMAIL',
    questionId: 5001n,
    ...more,
  });

  /** A scripted sandbox whose seed and snapshot endpoints answer `answer`, keeping what was posted where. */
  function midFlow(answer: { status: number; json: unknown; text?: string }) {
    const scripted = scriptedSandbox(() => [answer3()]);
    const posted: [string, unknown][] = [];
    const sent: string[] = [];
    const followed: [string, string][] = [];
    scripted.sandbox.post = async (path, body) => (posted.push([path, body]), { text: '', ...answer });
    const sendMessage = scripted.sandbox.sendMessage;
    scripted.sandbox.sendMessage = (sessionId, m) => (sent.push(`${sessionId} ${m.text}`), sendMessage(sessionId, m));
    const follow = scripted.sandbox.follow;
    scripted.sandbox.follow = (session, tenant, onEvent) => (followed.push([session, tenant]), follow(session, tenant, onEvent));
    return { ...scripted, posted, sent, followed };
  }
  const answer3 = () => answer(3);

  it("continues the last thread of its seed, applied first: its session, its tenant, its channel and its question's id", async () => {
    const { sandbox, posted, sent, followed } = midFlow({ status: 201, json: { threads: [thread('s-7'), thread('s-8')] } });
    const run = await runConversation(fromSeed([customer('on ${sessionId} after ${questionId}'), bot()]), {
      sandbox,
      stepTimeoutMs: NEVER,
      patterns,
    });
    expect(run).toMatchObject({ sessionId: 's-8', outcome: 'passed' });
    expect(posted).toEqual([['/_sandbox/seed', seed]]);
    expect(followed).toEqual([['s-8', 'sandbox']]);
    expect(sent).toEqual(['s-8 on s-8 after 5001']);
    expect(Object.fromEntries(run.coverage)).toEqual({ EMAIL: 1, SUCCESS: 1 });
  });

  it('continues the thread written last in its snapshot, restored first, its name written as a path segment', async () => {
    const { sandbox, posted, sent, followed } = midFlow({
      status: 200,
      json: { latest: thread('s-3', { questionId: null, tenant: undefined }) },
    });
    const run = await runConversation(fromSnapshot('after menu/2', [customer('Q ${questionId}.'), bot()]), {
      sandbox,
      stepTimeoutMs: NEVER,
      patterns,
    });
    expect(run).toMatchObject({ sessionId: 's-3', outcome: 'passed' });
    expect(posted).toEqual([['/_sandbox/snapshots/after%20menu%2F2/restore', {}]]);
    // A thread that names no tenant is followed in none, and one with no question fills ${questionId} with nothing.
    expect(followed).toEqual([['s-3', '']]);
    expect(sent).toEqual(['s-3 Q .']);
  });

  it('fills ${questionId} with nothing for a thread whose answer leaves its question out', async () => {
    const { questionId: _, ...noQuestion } = thread('s-4');
    const { sandbox, sent } = midFlow({ status: 201, json: { threads: [noQuestion] } });
    const run = await runConversation(fromSeed([customer('Q ${questionId}.'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.outcome).toBe('passed');
    expect(sent).toEqual(['s-4 Q .']);
  });

  it.each([
    [
      'a seed the sandbox refused',
      'seed',
      { status: 400, json: { message: 'threads[0]: unknown agent' } },
      'the sandbox did not apply the seed mid.seed.yaml: 400 threads[0]: unknown agent',
    ],
    ['a seed of no thread', 'seed', { status: 201, json: { threads: [] } }, 'the seed mid.seed.yaml holds no thread to continue'],
    [
      'a seed answered with no list of threads',
      'seed',
      { status: 201, json: { threads: 's-1' } },
      'the seed mid.seed.yaml holds no thread to continue',
    ],
    [
      'a seed answered 200, not 201',
      'seed',
      { status: 200, json: { threads: [thread('s-1')] } },
      'the seed mid.seed.yaml holds no thread to continue',
    ],
    [
      'a seed whose thread names no session',
      'seed',
      { status: 201, json: { threads: [{ sessionId: 7 }] } },
      'the seed mid.seed.yaml holds no thread to continue',
    ],
    [
      'an unknown snapshot',
      'snapshot',
      { status: 404, json: { message: "no snapshot named 'x'" } },
      "the sandbox did not apply the snapshot x: 404 no snapshot named 'x'",
    ],
    ['a snapshot of no thread', 'snapshot', { status: 200, json: { latest: null } }, 'the snapshot x holds no thread to continue'],
    ['a snapshot answered with no body', 'snapshot', { status: 200, json: undefined }, 'the snapshot x holds no thread to continue'],
    [
      'a snapshot answered 201, not 200',
      'snapshot',
      { status: 201, json: { latest: thread('s-1') } },
      'the snapshot x holds no thread to continue',
    ],
    [
      'a snapshot answered 300',
      'snapshot',
      { status: 300, json: { latest: thread('s-1') }, text: 'elsewhere' },
      'the sandbox did not apply the snapshot x: 300 elsewhere',
    ],
  ])('fails on the conversation itself for %s, every step skipped', async (_, kind, answer, failure) => {
    const { sandbox, sent } = midFlow(answer);
    const planned = kind === 'seed' ? fromSeed([customer('Hi'), bot()]) : fromSnapshot('x', [customer('Hi'), bot()]);
    const run = await runConversation(planned, { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run).toMatchObject({ sessionId: null, outcome: 'failed' });
    expect(run.failure).toEqual({ stepIndex: null, line: 9, message: failure });
    expect(run.steps.map((step) => step.outcome)).toEqual(['skipped', 'skipped']);
    expect(sent).toEqual([]);
  });
});

describe('a thread that agents hold when the run ends', () => {
  const routed: Event = {
    type: 'handover.routed',
    scope: 'thread',
    questionId: 5001n,
    agentId: 7n,
    agentName: 'Ann',
    matched: [],
    fromQueue: false,
  };
  const queued: Event = { type: 'handover.queued', scope: 'thread', questionId: 5001n, why: 'all matching agents are away or full' };
  const released: Event = { type: 'released', questions: 0, thread: true };

  /** A scripted sandbox that records each release asked of it, answering with `release`. */
  function withReleases(events: Event[], release?: () => Promise<never>) {
    const scripted = scriptedSandbox(() => [
      answer(3),
      ...events.map((event, i) => ({ ...event, afterMs: 4 + i }) as Event & { afterMs: number }),
    ]);
    const releases: string[] = [];
    const original = scripted.sandbox.release;
    scripted.sandbox.release = (sessionId) => (releases.push(sessionId), (release ?? original)(sessionId));
    return { ...scripted, releases };
  }

  it.each([
    ['routed to an agent', [routed], ['s-1']],
    ['queued', [queued], ['s-1']],
    ['routed, then released', [routed, released], []],
    ['never handed over', [], []],
  ] as [string, Event[], string[]][])('is given back to the bot (or not) when it was %s', async (_, events, releases) => {
    const scripted = withReleases(events);
    const run = await runConversation(plan([customer('Hi'), bot(), none(10)]), {
      sandbox: scripted.sandbox,
      stepTimeoutMs: NEVER,
      patterns,
    });
    expect(run.outcome).toBe('passed');
    expect(scripted.releases).toEqual(releases);
  });

  it('counts where the hand-over went', async () => {
    const { sandbox } = withReleases([queued]);
    const run = await runConversation(plan([customer('Hi'), bot(), none(10)]), { sandbox, stepTimeoutMs: NEVER, patterns });
    expect(run.coverage.get('queuedAwayOrFull')).toBe(1);
  });

  it('is not given back once the sandbox is stopped, and a release that fails changes nothing of the result', async () => {
    const stopped = withReleases([routed]);
    const controller = new AbortController();
    controller.abort();
    const run = await runConversation(plan([customer('Hi'), bot(), none(10)]), {
      sandbox: { ...stopped.sandbox, signal: controller.signal },
      stepTimeoutMs: NEVER,
      patterns,
    });
    expect(run.outcome).toBe('passed');
    expect(stopped.releases).toEqual([]);
    const failing = withReleases([routed], () => Promise.reject(new Error('connect ECONNREFUSED')));
    const kept = await runConversation(plan([customer('Hi'), bot(), none(10)]), {
      sandbox: failing.sandbox,
      stepTimeoutMs: NEVER,
      patterns,
    });
    expect(failing.releases).toEqual(['s-1']);
    expect(kept.outcome).toBe('passed');
  });
});

describe('a run that stops because the bot cannot be reached', () => {
  it('ends the step that waits at once when the webhook shows the bot down, and tells the watch of every attempt', async () => {
    const { sandbox } = scriptedSandbox(() => [attempt(null, 'ECONNREFUSED')]);
    const reach = new RunReach();
    const run = await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns, reach });
    expect(reach.stopped).toEqual({ kind: 'bot-down', errors: ['ECONNREFUSED'] });
    expect(run.outcome).toBe('failed');
    expect(run.failure?.stepIndex).toBe(1);
  });

  it('tells the watch that the bot spoke, so that a later failed delivery does not stop the run', async () => {
    for (const spoke of [answer(3), { ...refused('s-1', 200, ''), error: null }] as Event[]) {
      const { sandbox } = scriptedSandbox(() => [spoke, attempt(null, 'ECONNREFUSED')]);
      const reach = new RunReach();
      await runConversation(plan([customer('Hi'), none(10)]), { sandbox, stepTimeoutMs: NEVER, patterns, reach });
      expect(reach.stopped).toBeNull();
    }
  });

  it('stops listening for the stop once the run has ended', async () => {
    const { sandbox } = scriptedSandbox(() => [answer(3)]);
    const reach = new RunReach();
    let listening = 0;
    const signal = reach.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => (
      (listening += args[0] === 'abort' ? 1 : 0),
      add(...args)
    )) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => (
      (listening -= args[0] === 'abort' ? 1 : 0),
      remove(...args)
    )) as typeof remove;
    await runConversation(plan([customer('Hi'), bot()]), { sandbox, stepTimeoutMs: NEVER, patterns, reach });
    expect(listening).toBe(0);
  });
});
