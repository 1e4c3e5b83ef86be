import type { Problem } from '../errors.js';
import { validateReply, type Reply } from '../payload/index.js';
import { ADDRESS_FIELDS } from '../payload/reply-fields.js';
import type { SeedFile, SeedStep, SeedThread } from '../payload/seed.js';
import type { Channel, ConversationStartedEvent } from './events.js';
import type { Thread } from './model.js';
import { startConversation } from './rules/conversation-client.js';
import { storedReason, isActive } from './seed.js';
import type { SandboxState } from './state.js';

/**
 * A seed applied to a sandbox (docs/sandbox.md, "Fixtures"): each thing it declares done through the
 * state's own operations, which record events as the API and the customer's side do (a thread
 * started, a customer message, a bot answer checked by the API's rules, a hand-over routed, an
 * agent's message, a release, an agent's status) or, for a reason, the reason.updated event a PUT
 * records. So a seed is events, journaled with --state like any other, and shown by every reader.
 *
 * A seed is first played on a copy of the state: when anything in it fails (a tenant not served, an
 * answer the rules refuse, a sessionId taken), nothing is applied, and every problem is named by its
 * path in the seed. No webhook is sent for a seeded message.
 */

/** Why a seeded message sent no webhook (the customer.message event's `noWebhook`). */
export const SEEDED = 'seeded (no webhook is sent for a message of a seed)';

/** A thread a seed made, with its last question: what `core test`'s `from: {seed}` continues. */
export interface SeededThread {
  tenant: string;
  sessionId: string;
  channel: Channel;
  subject: string | null;
  coreClientId: bigint;
  clientId: string | null;
  owner: 'bot' | 'agents';
  questions: number;
  /** The thread's last question, or null when it has none. */
  questionId: bigint | null;
  questionIndex: bigint | null;
}

export interface SeedResult {
  threads: SeededThread[];
  /** The events recorded. */
  events: number;
}

export type SeedOutcome = { ok: true; result: SeedResult } | { ok: false; problems: Problem[] };

export interface SeedOptions {
  /** The tenant of a seed's tenant without a name. */
  defaultTenant: string;
  /** A reply's formattedText as safe HTML, for the page (as the API's handler writes it). */
  renderMarkdown?: ((markdown: string) => string) | undefined;
}

/** Applies `seed` to `state`: all of it, or (with the problems) nothing. */
export function applySeed(state: SandboxState, seed: SeedFile, options: SeedOptions): SeedOutcome {
  const problems = staticProblems(state, seed, options);
  if (problems.length > 0) return { ok: false, problems };
  const trial = play(state.copy(), seed, options);
  if (!trial.ok) return trial;
  return play(state, seed, options);
}

/** What can be told without playing the seed: the tenants served and the agents the sandbox has. */
function staticProblems(state: SandboxState, seed: SeedFile, options: SeedOptions): Problem[] {
  const problems: Problem[] = [];
  seed.tenants.forEach((tenant, index) => {
    const name = tenant.name ?? options.defaultTenant;
    if (!state.hasTenant(name))
      problems.push({
        path: `tenants[${index}].name`,
        message: `'${name}' is not a tenant this sandbox serves (${state.tenantNames.join(', ')}); start it with --tenant ${name} or --seed`,
      });
  });
  const first = state.tenantNames[0];
  const agents = first === undefined ? new Map() : state.store.tenant(first).agents;
  seed.agents?.forEach((agent, index) => {
    if (!agents.has(agent.id))
      problems.push({
        path: `agents[${index}].id`,
        message: `the sandbox has no agent ${agent.id}: a seed's agents are the agents of a sandbox started with --seed; a running one must have them already`,
      });
  });
  return problems;
}

function play(state: SandboxState, seed: SeedFile, options: SeedOptions): SeedOutcome {
  const problems: Problem[] = [];
  const before = state.store.lastSeq;
  const threads: SeededThread[] = [];
  let requests = 0;
  seed.tenants.forEach((tenant, t) => {
    const name = tenant.name ?? options.defaultTenant;
    const at = `tenants[${t}]`;
    tenant.reasons?.forEach((reason, r) => {
      const view = state.store.tenant(name);
      const stored = storedReason(reason);
      const old = view.reasons.get(stored.code);
      const active = view.activeCount + (isActive(stored) ? 1 : 0) - (old !== undefined && isActive(old.reason) ? 1 : 0);
      if (active > state.maxActiveReasons) {
        problems.push({
          path: `${at}.reasons[${r}]`,
          message: `${active} reasons would be active, more than the limit of ${state.maxActiveReasons} active reasons`,
        });
        return;
      }
      state.store.recordOne(name, { type: 'reason.updated', sessionId: null, requestId: 'seed', code: stored.code, reason: stored });
    });
    tenant.agents?.forEach((agent, a) => {
      const changed = state.agentStatus(name, agent.id, agent.status, agent.reason ?? null);
      if (!changed.ok) problems.push({ path: `${at}.agents[${a}]`, message: changed.message });
    });
    tenant.clients?.forEach((client, c) => {
      let coreClientId = client.coreClientId;
      client.threads.forEach((thread, h) => {
        const path = `${at}.clients[${c}].threads[${h}]`;
        const started = startThread(state, name, thread, { coreClientId, clientId: client.clientId }, path);
        if (!started.ok) {
          problems.push(started.problem);
          return;
        }
        coreClientId = started.thread.client.coreClientId;
        let last: { questionId: bigint; questionIndex: bigint } | null = null;
        for (const [s, step] of thread.steps.entries()) {
          const done = playStep(state, started.thread, step, last, `${path}.steps[${s}]`, () => `seed-${(requests += 1)}`, options);
          if (!done.ok) {
            problems.push(...done.problems);
            break;
          }
          if (done.asked) last = done.asked;
        }
        threads.push(seededThread(state.thread(started.thread.sessionId)!));
      });
    });
  });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, result: { threads, events: state.store.lastSeq - before } };
}

/** A thread as a seed's answer and a snapshot's restore name it: with its last question. */
export function seededThread(thread: Thread): SeededThread {
  const last = thread.questions.last();
  return {
    tenant: thread.tenant,
    sessionId: thread.sessionId,
    channel: thread.channel,
    subject: thread.subject,
    coreClientId: thread.client.coreClientId,
    clientId: thread.client.clientId,
    owner: thread.owner,
    questions: thread.questions.length,
    questionId: last?.questionId ?? null,
    questionIndex: last?.questionIndex ?? null,
  };
}

function startThread(
  state: SandboxState,
  name: string,
  thread: SeedThread,
  client: { coreClientId: bigint | undefined; clientId: string | undefined },
  path: string,
): { ok: true; thread: Thread } | { ok: false; problem: Problem } {
  const ids = state.store.randomIds(name);
  const given = thread.sessionId;
  if (given !== undefined && state.thread(given) !== undefined)
    return {
      ok: false,
      problem: { path: `${path}.sessionId`, message: `'${given}' is the sessionId of a thread the sandbox has already` },
    };
  const channel = thread.channel ?? 'WEB';
  const decided = startConversation(
    state.store.tenant(name),
    { channel, ...client },
    given === undefined ? ids : { ...ids, sessionId: () => given },
  );
  if (!decided.ok) return { ok: false, problem: { path, message: decided.message } };
  const event: Omit<ConversationStartedEvent, 'seq' | 'time' | 'tenant'> = decided.event;
  if (thread.subject !== undefined) event.subject = thread.subject;
  state.store.recordOne(name, event);
  return { ok: true, thread: state.thread(event.sessionId)! };
}

type StepDone = { ok: true; asked?: { questionId: bigint; questionIndex: bigint } } | { ok: false; problems: Problem[] };

function playStep(
  state: SandboxState,
  thread: Thread,
  step: SeedStep,
  last: { questionId: bigint; questionIndex: bigint } | null,
  path: string,
  requestId: () => string,
  options: SeedOptions,
): StepDone {
  const now = state.thread(thread.sessionId)!;
  if (step.customer !== undefined) {
    const { event } = state.customerMessage(now, { text: step.customer, quickReply: null, listItem: null }, { noWebhook: SEEDED });
    return { ok: true, asked: { questionId: event.questionId, questionIndex: event.questionIndex } };
  }
  if (step.agent !== undefined) {
    const written = state.agentMessage(now, step.agent, null);
    return written.ok ? { ok: true } : { ok: false, problems: [{ path: `${path}.agent`, message: written.message }] };
  }
  if (step.release !== undefined) {
    return state.release(now) === null
      ? { ok: false, problems: [{ path: `${path}.release`, message: 'the thread is with the bot: there is nothing to give back' }] }
      : { ok: true };
  }
  if (last === null) return { ok: false, problems: [{ path, message: 'comes before any customer message of the thread' }] };
  return answer(state, now, step.bot!, last, `${path}.bot`, requestId(), options);
}

/** A bot answer to the thread's last question, addressed as the API's chatbot rule 2 wants on EMAIL, checked by the reply schema and rules. */
function answer(
  state: SandboxState,
  thread: Thread,
  bot: string | Record<string, unknown>,
  last: { questionId: bigint; questionIndex: bigint },
  path: string,
  requestId: string,
  options: SeedOptions,
): StepDone {
  const fields: Record<string, unknown> = typeof bot === 'string' ? { text: bot } : { ...bot };
  const named = ADDRESS_FIELDS.filter((field) => field in fields);
  if (named.length > 0)
    return {
      ok: false,
      problems: named.map((field) => ({ path: `${path}.${field}`, message: 'the seed fills in the address of an answer: leave it out' })),
    };
  const email = thread.channel === 'EMAIL';
  const body = email
    ? { sessionId: thread.sessionId, questionIndex: last.questionIndex, ...fields }
    : { questionId: last.questionId, ...fields };
  const validated = validateReply(body, { email });
  if (!validated.ok)
    return { ok: false, problems: validated.problems.map((problem) => ({ ...problem, path: joinPath(path, problem.path) })) };
  const reply: Reply = validated.value;
  const formattedText = (reply as { formattedText?: unknown }).formattedText;
  const outcome = state.reply(thread.tenant, reply, {
    requestId,
    body,
    warnings: validated.warnings,
    userAgent: 'core seed',
    formattedHtml: typeof formattedText === 'string' && options.renderMarkdown ? options.renderMarkdown(formattedText) : null,
  });
  if (outcome.status !== 200)
    return { ok: false, problems: [{ path, message: `the sandbox refused the answer (${outcome.status}): ${outcome.error}` }] };
  return { ok: true };
}

const joinPath = (base: string, inner: string) => (inner === '' ? base : inner.startsWith('[') ? `${base}${inner}` : `${base}.${inner}`);
