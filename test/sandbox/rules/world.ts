import type { Channel, Owner } from '../../../src/sandbox/events.js';
import type { Delivery, Handover, QueuedHandover, ReasonRecord, TenantView } from '../../../src/sandbox/model.js';
import { SeqQueue } from '../../../src/sandbox/seq.js';
import type {
  AgentState,
  ClientState as Client,
  QuestionState as Question,
  ThreadState as Thread,
} from '../../../src/sandbox/store/tenant.js';

/**
 * A tenant's state built by hand for the rules' unit tests: plain maps, no store, no server. Each
 * helper adds one thing and returns it; `view` is what a rule reads.
 */
export function world(name = 'acme') {
  const clients = new Map<bigint, Client>();
  const clientsByExternalId = new Map<string, Client>();
  const threads = new Map<string, Thread>();
  const questions = new Map<bigint, Question>();
  const answerIds = new Map<string, number>();
  const deliveries = new Map<string, Delivery>();
  const reasons = new Map<string, ReasonRecord>();
  const agents = new Map<bigint, AgentState>();
  const queue = new Map<string, QueuedHandover>();
  let activeCount = 0;
  let seq = 0;
  let nextQuestionId = 5001n;
  const view: TenantView = {
    name,
    clients,
    clientsByExternalId,
    threads,
    questions,
    answerIds,
    deliveries,
    reasons,
    get activeCount() {
      return activeCount;
    },
    agents,
    queue,
    nextClientId: 1001n,
    get nextQuestionId() {
      return nextQuestionId;
    },
    nextLargeQuestionId: 2n ** 53n + 1n,
  };
  return {
    view,
    client(coreClientId: bigint, clientId: string | null = null): Client {
      const client: Client = { coreClientId, clientId, lastSeq: (seq += 1), latest: null };
      clients.set(coreClientId, client);
      if (clientId !== null) clientsByExternalId.set(clientId, client);
      return client;
    },
    thread(client: Client, options: { sessionId?: string; channel?: Channel; owner?: Owner } = {}): Thread {
      seq += 1;
      const thread: Thread = {
        tenant: name,
        sessionId: options.sessionId ?? `s-${seq}`,
        channel: options.channel ?? 'WEB',
        subject: null,
        client,
        owner: options.owner ?? 'bot',
        handover: options.owner === 'agents' ? handover('SWITCH_TO_HUMAN') : null,
        agentId: null,
        questions: new SeqQueue(),
        nextIndex: 1n,
        startedSeq: seq,
        startedAt: '2026-01-01T00:00:00.000Z',
        lastSeq: seq,
        log: new SeqQueue(),
        lastBotMessage: null,
        check: null,
      };
      threads.set(thread.sessionId, thread);
      client.latest = thread;
      return thread;
    },
    /** A question asked in a thread: the thread's next questionIndex, the tenant's next questionId. */
    ask(thread: Thread, options: { answered?: boolean; withAgents?: boolean } = {}): Question {
      const question: Question = {
        seq: (seq += 1),
        questionId: nextQuestionId,
        questionIndex: thread.nextIndex,
        type: thread.channel === 'EMAIL' ? 'EMAIL' : 'TEXT',
        thread,
        answered: options.answered ?? false,
        withAgents: options.withAgents ? handover('UNCLEAR_QUESTION') : null,
        agentId: null,
      };
      nextQuestionId += 1n;
      thread.nextIndex += 1n;
      thread.questions.push(question);
      questions.set(question.questionId, question);
      return question;
    },
    /** Forgets the oldest question of a thread, as the store does when its customer message is dropped. */
    forgetOldest(thread: Thread): void {
      const question = thread.questions.shift();
      if (question) questions.delete(question.questionId);
    },
    claim(answerId: string): void {
      answerIds.set(answerId, (seq += 1));
    },
    /** An agent: online with room for two unless told, holding nothing. */
    agent(id: bigint, fields: Partial<Omit<AgentState, 'id' | 'assigned'>> = {}): AgentState {
      const agent: AgentState = {
        id,
        name: `Agent ${id}`,
        skills: [],
        units: [],
        status: 'online',
        reason: null,
        capacity: 2,
        ...fields,
        assigned: new Map(),
      };
      agents.set(id, agent);
      return agent;
    },
    /** A thread given to an agent, as a handover.routed event leaves it. */
    assign(agent: AgentState, thread: Thread): void {
      agent.assigned.set(thread.sessionId, {
        key: thread.sessionId,
        sessionId: thread.sessionId,
        scope: 'thread',
        questionId: null,
        seq: (seq += 1),
      });
      thread.owner = 'agents';
      thread.agentId = agent.id;
    },
    /** A hand-over waiting in the queue. */
    enqueue(thread: Thread, targets: Partial<QueuedHandover['targets']> = {}): QueuedHandover {
      const queued: QueuedHandover = {
        key: thread.sessionId,
        sessionId: thread.sessionId,
        scope: 'thread',
        questionId: null,
        seq: (seq += 1),
        targets: { userIds: [], skillIds: [], unitIds: [], ...targets },
      };
      queue.set(queued.key, queued);
      thread.owner = 'agents';
      return queued;
    },
    reason(code: string, active: boolean): ReasonRecord {
      const record: ReasonRecord = {
        tenant: name,
        code,
        reason: { code, reasons: [{ locale: 'en', name: code }], active, system: false } as ReasonRecord['reason'],
        updatedAt: null,
        requestId: null,
      };
      reasons.set(code, record);
      if (active) activeCount += 1;
      return record;
    },
  };
}

export function handover(code: Handover['code']): Handover {
  return { code, seq: 0, time: '2026-01-01T00:00:00.000Z', userIds: [], skillIds: [], unitIds: [] };
}
