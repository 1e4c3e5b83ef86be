import type { BotAnswerEvent, GreetingEvent, SandboxEvent } from './events.js';
import type { ConversationView, KeptTenant, Thread } from './model.js';
import { mergeBySeq, page, type Page } from './seq.js';

/** What GET /_sandbox/messages lists: the bot answers and greetings of the event log. */
export type MessageRecord = BotAnswerEvent | GreetingEvent;

const isMessage = (event: SandboxEvent): event is MessageRecord => event.type === 'bot.answer' || event.type === 'greeting';

export function messagesOf(events: Iterable<SandboxEvent>): MessageRecord[] {
  return [...events].filter(isMessage);
}

export function messagePageOf(events: Iterable<SandboxEvent>, after: number, limit: number): Page<MessageRecord> {
  return page(events, after, limit, isMessage) as Page<MessageRecord>;
}

function* withSeq(threads: Iterable<Thread>): Generator<{ seq: number; thread: Thread }> {
  for (const thread of threads) yield { seq: thread.startedSeq, thread };
}

/** A page of the kept threads of these tenants, in the order they started. */
export function conversationPage(tenants: readonly KeptTenant[], after: number, limit: number): Page<ConversationView> {
  const started = mergeBySeq(tenants.map((tenant) => withSeq(tenant.threads.values())));
  const result = page(started, after, limit, (item) => item.seq > after);
  return { items: result.items.map((item) => conversationView(item.thread)), next: result.next };
}

/** What GET /_sandbox/conversations shows of a thread. */
export function conversationView(thread: Thread): ConversationView {
  const questionsWithAgents: bigint[] = [];
  for (const question of thread.questions.after(0)) if (question.withAgents) questionsWithAgents.push(question.questionIndex);
  return {
    tenant: thread.tenant,
    sessionId: thread.sessionId,
    channel: thread.channel,
    subject: thread.subject,
    coreClientId: thread.client.coreClientId,
    clientId: thread.client.clientId,
    owner: thread.owner,
    handover: thread.handover,
    holder: thread.owner === 'bot' ? 'bot' : thread.agentId === null ? 'queue' : 'agent',
    agentId: thread.agentId,
    questionsWithAgents,
    questions: thread.questions.length,
    startedSeq: thread.startedSeq,
    startedAt: thread.startedAt,
    lastSeq: thread.lastSeq,
    lastBotMessage: thread.lastBotMessage,
    check: thread.check,
  };
}
