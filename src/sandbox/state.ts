import { randomBytes } from 'node:crypto';
import type { Problem } from '../errors.js';
import type { Greeting, Reason, Reply } from '../payload/index.js';
import { stringifyJson } from '../payload/json.js';
import {
  notDeliveredReasons,
  SeqQueue,
  mergeBySeq,
  page,
  type BotAnswerEvent,
  type Channel,
  type CustomerMessageEvent,
  type GreetingEvent,
  type HandoverEvent,
  type NewEvent,
  type NotDelivered,
  type Owner,
  type Page,
  type QuestionType,
  type ReleasedEvent,
  type SandboxEvent,
  type WebhookAttemptEvent,
} from './events.js';
import type { DuplicateMode } from './options.js';
import { isActive, storedReason } from './seed.js';

/**
 * The sandbox's memory, per tenant: clients, threads and their questions, the inactivity reasons,
 * and the event log. Nothing is shared between tenants (docs/api.md, "What the service does": every
 * request belongs to one tenant, named by X-Tenant-Name).
 *
 * Memory is bounded by the event log: at most `maxEvents` events (and `maxEventBytes` of bodies)
 * per tenant, the oldest dropped first. What no kept event refers to goes with them: a question
 * goes with the customer message that asked it, a thread and its client with their last event,
 * an answerId with the answer that claimed it, a delivery with its message (docs/sandbox.md, "Memory").
 *
 * Every method is synchronous. Node runs one callback at a time, so a check and the write that
 * follows it (answerId seen? then remember it) cannot interleave with another request: that is
 * what makes de-duplication safe under concurrent requests.
 */

export { notDeliveredReasons, type NotDelivered } from './events.js';
export type { SandboxEvent } from './events.js';

/** What GET /_sandbox/messages lists: the bot answers and greetings of the event log. */
export type MessageRecord = BotAnswerEvent | GreetingEvent;

export interface ReasonRecord {
  tenant: string;
  code: string;
  reason: Reason;
  /** null while the reason is as seeded. */
  updatedAt: string | null;
  /** The X-Request-Id of the last update; null while the reason is as seeded. */
  requestId: string | null;
}

export interface RequestMeta {
  requestId: string;
  body: unknown;
  /** The size of the request body, counted against maxEventBytes. */
  bodyBytes: number;
  warnings: Problem[];
  /** A reply's formattedText as safe HTML, for the page (BotAnswerEvent.formattedHtml); counted with the body. */
  formattedHtml?: string | null;
}

export type ReasonUpdate = { ok: true; record: ReasonRecord } | { ok: false; status: 404 | 409; message: string };

/** The hand-over of a thread (SWITCH_TO_HUMAN) or of a question (UNCLEAR_QUESTION) and its targets. */
export interface Handover {
  code: 'SWITCH_TO_HUMAN' | 'UNCLEAR_QUESTION';
  seq: number;
  time: string;
  userIds: bigint[];
  skillIds: bigint[];
  unitIds: bigint[];
}

/** The bot's last delivered message in a thread: what the customer can press or pick. */
export interface LastBotMessage {
  seq: number;
  quickReplies: Record<string, unknown>[];
  messageListPicker: Record<string, unknown> | null;
  /** List pickers are shown on IM threads only (docs/api.md, list rule 1). */
  listShown: boolean;
}

interface Client {
  coreClientId: bigint;
  clientId: string | null;
  /** The seq of the last event of this client or any of its threads; it is forgotten once that event is dropped. */
  lastSeq: number;
  /** Where an answer addressed by client goes: the client's most recent thread still kept. */
  latest: Thread | null;
}

interface Question {
  /** The seq of the customer message that asked it. */
  seq: number;
  questionId: bigint;
  questionIndex: bigint;
  type: QuestionType;
  thread: Thread;
  answered: boolean;
  withAgents: Handover | null;
}

export interface Thread {
  readonly tenant: string;
  readonly sessionId: string;
  readonly channel: Channel;
  readonly client: Client;
  owner: Owner;
  handover: Handover | null;
  readonly questions: SeqQueue<Question>;
  nextIndex: bigint;
  readonly startedSeq: number;
  readonly startedAt: string;
  lastSeq: number;
  readonly log: SeqQueue<SandboxEvent>;
  lastBotMessage: LastBotMessage | null;
}

/** A MESSAGE webhook to send: the exact bytes, kept for retries and redelivery. */
export interface Delivery {
  readonly deliveryId: string;
  readonly tenant: string;
  readonly sessionId: string;
  readonly questionId: bigint;
  readonly body: Buffer;
  /** The seq of the customer message; the delivery is forgotten with it. */
  readonly seq: number;
  redeliveries: number;
  inFlight: boolean;
}

/** What the state says about a thread: the summary GET /_sandbox/conversations lists. */
export interface ConversationView {
  tenant: string;
  sessionId: string;
  channel: Channel;
  coreClientId: bigint;
  clientId: string | null;
  owner: Owner;
  handover: Handover | null;
  /** Questions handed to agents with UNCLEAR_QUESTION, by questionIndex. */
  questionsWithAgents: bigint[];
  questions: number;
  startedSeq: number;
  startedAt: string;
  lastSeq: number;
  lastBotMessage: LastBotMessage | null;
}

interface TenantState {
  readonly name: string;
  readonly log: SeqQueue<SandboxEvent>;
  bytes: number;
  readonly clients: Map<bigint, Client>;
  readonly clientsByExternalId: Map<string, Client>;
  readonly threads: Map<string, Thread>;
  readonly questions: Map<bigint, Question>;
  /** answerIds of delivered answers (chatbot rule 6), with the seq of the answer that claimed each, in seq order. */
  readonly answerIds: Map<string, number>;
  readonly deliveries: Map<string, Delivery>;
  readonly reasons: Map<string, ReasonRecord>;
  /** How many of `reasons` are active, kept up to date so an update need not count the whole store. */
  activeCount: number;
  nextClientId: bigint;
  nextQuestionId: bigint;
}

export interface SandboxStateConfig {
  tenants: readonly string[];
  seedReasons: readonly Reason[];
  duplicates: DuplicateMode;
  maxActiveReasons: number;
  maxEvents: number;
  maxEventBytes: number;
  /** Whether customer messages go to a bot (`--bot-url`): they then get a delivery. */
  botConnected: boolean;
}

/** The identifiers the sandbox makes start here, in ranges apart, so a bot that mixes them up meets a 404. */
export const firstIds = { coreClientId: 1001n, questionId: 5001n } as const;

export { maxCustomerText } from './limits.js';

/** The size counted for an event besides the bodies it holds. */
const EVENT_OVERHEAD = 400;

export type ReplyOutcome = { status: 200; event: BotAnswerEvent } | { status: 400 | 404 | 409; error: string; event: BotAnswerEvent };

export type Listener = (event: SandboxEvent) => void;

export class SandboxState {
  private readonly tenants = new Map<string, TenantState>();
  /** Every kept thread by sessionId, across tenants: session ids are unique in the sandbox. */
  private readonly sessions = new Map<string, TenantState>();
  private readonly listeners = new Set<Listener>();
  private readonly sizes = new WeakMap<SandboxEvent, number>();
  private seq = 0;

  constructor(private readonly config: SandboxStateConfig) {
    for (const name of config.tenants) this.tenants.set(name, this.fresh(name));
  }

  get tenantNames(): string[] {
    return [...this.tenants.keys()];
  }

  /** The seq of the latest event (0 before the first). */
  get lastSeq(): number {
    return this.seq;
  }

  hasTenant(name: string): boolean {
    return this.tenants.has(name);
  }

  /** Tells `listener` of every event as it is recorded; returns the function that stops it. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- the customer's side -------------------------------------------------------------------

  /**
   * Starts a thread for a new client, or for the client named by coreClientId or clientId (made
   * when the sandbox does not know it). A coreClientId and a clientId of two different clients: 400.
   */
  startConversation(
    tenant: string,
    request: { channel: Channel; coreClientId?: bigint | undefined; clientId?: string | undefined },
  ): { ok: true; thread: Thread } | { ok: false; status: 400; message: string } {
    const state = this.state(tenant);
    const byCore = request.coreClientId === undefined ? undefined : state.clients.get(request.coreClientId);
    const byExternal = request.clientId === undefined ? undefined : state.clientsByExternalId.get(request.clientId);
    if (byCore && byExternal && byCore !== byExternal) {
      return {
        ok: false,
        status: 400,
        message: `coreClientId ${byCore.coreClientId} and clientId '${request.clientId}' are two different clients (clientId '${request.clientId}' is coreClientId ${byExternal.coreClientId})`,
      };
    }
    if (byCore && request.clientId !== undefined && byCore.clientId !== null && byCore.clientId !== request.clientId) {
      return {
        ok: false,
        status: 400,
        message: `coreClientId ${byCore.coreClientId} is the client with clientId '${byCore.clientId}', not '${request.clientId}'`,
      };
    }
    const client = byCore ?? byExternal ?? this.newClient(state, request.coreClientId, request.clientId);
    if (client.clientId === null && request.clientId !== undefined) {
      client.clientId = request.clientId;
      state.clientsByExternalId.set(request.clientId, client);
    }
    return { ok: true, thread: this.newThread(state, client, request.channel, 'customer') };
  }

  /** A kept thread, in any tenant. */
  thread(sessionId: string): Thread | undefined {
    return this.sessions.get(sessionId)?.threads.get(sessionId);
  }

  /**
   * A customer message in a thread: a new question (the next questionIndex; type EMAIL on an EMAIL
   * thread). It goes to the bot as a webhook only when a bot is connected and the thread is with the
   * bot; the delivery returned holds the exact bytes to send.
   */
  customerMessage(
    thread: Thread,
    message: { text: string; quickReply: Record<string, unknown> | null; listItem: { identifier: string; title: string } | null },
  ): { event: CustomerMessageEvent; delivery: Delivery | null } {
    const state = this.state(thread.tenant);
    const questionId = this.nextQuestionId(state);
    const questionIndex = thread.nextIndex;
    thread.nextIndex += 1n;
    const questionType: QuestionType = thread.channel === 'EMAIL' ? 'EMAIL' : 'TEXT';
    const noWebhook = !this.config.botConnected
      ? 'no bot is connected (start the sandbox with --bot-url)'
      : thread.owner === 'agents'
        ? 'the thread is with agents'
        : null;
    const deliveryId = noWebhook === null ? this.newDeliveryId(state) : null;
    const event = this.emit(
      state,
      {
        type: 'customer.message',
        sessionId: thread.sessionId,
        channel: thread.channel,
        coreClientId: thread.client.coreClientId,
        clientId: thread.client.clientId,
        questionId,
        questionIndex,
        questionType,
        text: message.text,
        quickReply: message.quickReply,
        listItem: message.listItem,
        deliveryId,
        noWebhook,
      },
      message.text.length * 2 + (message.quickReply ? 512 : 0),
      () => {
        const question: Question = {
          seq: this.seq,
          questionId,
          questionIndex,
          type: questionType,
          thread,
          answered: false,
          withAgents: null,
        };
        thread.questions.push(question);
        state.questions.set(questionId, question);
      },
    ) as CustomerMessageEvent;
    let delivery: Delivery | null = null;
    if (deliveryId !== null) {
      const body = {
        type: 'MESSAGE',
        tenant: thread.tenant,
        timestamp: new Date().toISOString(),
        message: {
          questionId,
          questionIndex,
          sessionId: thread.sessionId,
          coreClientId: thread.client.coreClientId,
          clientId: thread.client.clientId,
          type: questionType,
          channel: thread.channel,
          text: message.text,
          receivedAt: event.time,
          quickReply: message.quickReply,
          listItem: message.listItem,
        },
      };
      delivery = {
        deliveryId,
        tenant: thread.tenant,
        sessionId: thread.sessionId,
        questionId,
        body: Buffer.from(stringifyJson(body), 'utf8'),
        seq: event.seq,
        redeliveries: 0,
        inFlight: false,
      };
      state.deliveries.set(deliveryId, delivery);
    }
    return { event, delivery };
  }

  /** A delivery still kept, in any tenant. */
  delivery(deliveryId: string): Delivery | undefined {
    for (const state of this.tenants.values()) {
      const delivery = state.deliveries.get(deliveryId);
      if (delivery) return delivery;
    }
    return undefined;
  }

  /** Records one webhook attempt; the delivery's thread may be gone by now (reset, or dropped). */
  webhookAttempt(
    delivery: Delivery,
    attempt: Omit<WebhookAttemptEvent, 'seq' | 'time' | 'tenant' | 'type' | 'sessionId' | 'deliveryId' | 'questionId'>,
  ): void {
    const state = this.tenants.get(delivery.tenant);
    if (state === undefined) return;
    this.emit(
      state,
      {
        type: 'webhook.attempt',
        sessionId: delivery.sessionId,
        deliveryId: delivery.deliveryId,
        questionId: delivery.questionId,
        ...attempt,
      },
      attempt.body.length * 2,
    );
  }

  /** Gives a thread back to the bot, with the questions handed over in it. Null when nothing was with agents. */
  release(thread: Thread): ReleasedEvent | null {
    const state = this.state(thread.tenant);
    let questions = 0;
    for (const question of thread.questions.after(0)) {
      if (question.withAgents !== null) {
        question.withAgents = null;
        questions += 1;
      }
    }
    const wasWithAgents = thread.owner === 'agents';
    if (!wasWithAgents && questions === 0) return null;
    thread.owner = 'bot';
    thread.handover = null;
    return this.emit(state, { type: 'released', sessionId: thread.sessionId, questions, thread: wasWithAgents }) as ReleasedEvent;
  }

  // ---- the API -------------------------------------------------------------------------------

  /**
   * Handles a valid bot answer against the state (docs/sandbox.md, "Answers are checked against the
   * state"), in this order: the question it names must exist (404) and be one question (400); an
   * EMAIL question must be addressed by sessionId and questionIndex (chatbot rule 2, 400); a
   * repeated answerId is answered 200 and not delivered (chatbot rule 6), checked before the
   * rules below, so a retry of a delivered answer never meets them; a thread or question with agents
   * takes no bot answer (409); in strict mode a second answer to a question is refused (chatbot
   * rule 7, 409). Only delivered answers claim their answerId and question, so a refused answer can
   * be corrected and sent again under the same answerId.
   */
  reply(tenant: string, reply: Reply, meta: RequestMeta): ReplyOutcome {
    const state = this.state(tenant);
    const address = reply as ReplyFields;
    const answerId = address.answerId ?? null;
    const addressedBy = replyAddressing(address);
    const warnings = [...meta.warnings];
    const formattedHtml = meta.formattedHtml ?? null;
    const bodyBytes = meta.bodyBytes + (formattedHtml?.length ?? 0) * 2;

    const refuse = (status: 400 | 404 | 409, notDelivered: NotDelivered, error: string, sessionId: string | null, question?: Question) => {
      const event = this.emit(
        state,
        {
          type: 'bot.answer',
          kind: 'reply',
          sessionId,
          requestId: meta.requestId,
          status,
          error,
          answerId,
          addressedBy,
          delivered: false,
          notDelivered,
          questionAlreadyAnswered: question?.answered ?? false,
          coreClientId: question?.thread.client.coreClientId ?? null,
          questionId: question?.questionId ?? null,
          questionIndex: question?.questionIndex ?? null,
          warnings,
          body: meta.body,
          formattedHtml,
        },
        bodyBytes,
      ) as BotAnswerEvent;
      return { status, error, event };
    };

    // The question the answer names, by questionId and by sessionId with questionIndex.
    let byId: Question | undefined;
    let byIndex: Question | undefined;
    const namedThread = address.sessionId != null ? state.threads.get(address.sessionId) : undefined;
    if (address.questionId != null) {
      byId = state.questions.get(address.questionId);
      if (byId === undefined) {
        return refuse(
          404,
          notDeliveredReasons.unknownQuestion,
          `no question with questionId ${address.questionId} in tenant '${tenant}'${forgotten(this.config.maxEvents)}`,
          namedThread?.sessionId ?? null,
        );
      }
    }
    if (address.sessionId != null && address.questionIndex != null) {
      if (namedThread === undefined) {
        return refuse(
          404,
          notDeliveredReasons.unknownQuestion,
          `no thread with sessionId '${address.sessionId}' in tenant '${tenant}'${forgotten(this.config.maxEvents)}`,
          null,
          byId,
        );
      }
      byIndex = questionAt(namedThread, address.questionIndex);
      if (byIndex === undefined) {
        return refuse(
          404,
          notDeliveredReasons.unknownQuestion,
          `thread '${address.sessionId}' has no question with questionIndex ${address.questionIndex} (${describeQuestions(namedThread)})`,
          namedThread.sessionId,
          byId,
        );
      }
    }
    if (byId && byIndex && byId !== byIndex) {
      return refuse(
        400,
        notDeliveredReasons.conflictingAddress,
        `questionId ${byId.questionId} is question ${byId.questionIndex} of thread '${byId.thread.sessionId}', ` +
          `not question ${byIndex.questionIndex} of thread '${byIndex.thread.sessionId}': name one question`,
        byIndex.thread.sessionId,
        byIndex,
      );
    }
    const question = byId ?? byIndex;

    // An answer addressed only by client goes to the client's latest thread, made when there is none.
    let client: Client | undefined;
    let thread: Thread | undefined = question?.thread;
    if (question === undefined) {
      client =
        (address.coreClientId != null ? state.clients.get(address.coreClientId) : undefined) ??
        (address.clientId != null ? state.clientsByExternalId.get(address.clientId) : undefined);
      thread = client?.latest ?? undefined;
    } else {
      warnings.push(...clientMismatch(address, question));
    }

    // Chatbot rule 2: an answer to an EMAIL question is addressed by sessionId and questionIndex.
    const bySession = address.sessionId != null && address.questionIndex != null;
    if (question?.type === 'EMAIL' && !bySession) {
      return refuse(
        400,
        notDeliveredReasons.emailAddressing,
        `question ${question.questionId} came by EMAIL: address the answer by sessionId '${question.thread.sessionId}' ` +
          `and questionIndex ${question.questionIndex}, not by questionId alone (docs/api.md, chatbot rule 2)`,
        question.thread.sessionId,
        question,
      );
    }
    if (question === undefined && thread?.channel === 'EMAIL') {
      return refuse(
        400,
        notDeliveredReasons.emailAddressing,
        `the client's latest thread '${thread.sessionId}' is EMAIL: address the answer by sessionId and questionIndex ` +
          '(docs/api.md, chatbot rule 2; one email address can have several threads)',
        thread.sessionId,
      );
    }
    if (thread) warnings.push(...channelWarnings(reply, thread.channel));
    else warnings.push(...channelWarnings(reply, 'WEB'));

    const questionAlreadyAnswered = question?.answered ?? false;
    const sessionId = thread?.sessionId ?? null;
    const base = {
      type: 'bot.answer' as const,
      kind: 'reply' as const,
      requestId: meta.requestId,
      answerId,
      addressedBy,
      questionAlreadyAnswered,
      questionId: question?.questionId ?? null,
      questionIndex: question?.questionIndex ?? null,
      warnings,
      body: meta.body,
      formattedHtml,
    };

    if (answerId !== null && state.answerIds.has(answerId)) {
      const event = this.emit(
        state,
        {
          ...base,
          sessionId,
          coreClientId: thread?.client.coreClientId ?? client?.coreClientId ?? null,
          status: 200,
          error: null,
          delivered: false,
          notDelivered: notDeliveredReasons.duplicateAnswerId,
        },
        bodyBytes,
      ) as BotAnswerEvent;
      return { status: 200, event };
    }
    if (thread?.owner === 'agents') {
      return refuse(
        409,
        notDeliveredReasons.threadWithAgents,
        `the thread '${thread.sessionId}' is with agents since ${thread.handover?.code ?? 'a hand-over'}: a bot answer is not delivered ` +
          `until the thread is given back (POST /_sandbox/conversations/${thread.sessionId}/release)`,
        thread.sessionId,
        question,
      );
    }
    if (question?.withAgents) {
      return refuse(
        409,
        notDeliveredReasons.questionWithAgents,
        `question ${question.questionIndex} of thread '${question.thread.sessionId}' was passed to agents with UNCLEAR_QUESTION: ` +
          `a bot answer to it is not delivered until the thread is given back (POST /_sandbox/conversations/${question.thread.sessionId}/release)`,
        question.thread.sessionId,
        question,
      );
    }
    if (question && questionAlreadyAnswered && this.config.duplicates === 'strict') {
      return refuse(
        409,
        notDeliveredReasons.strictDuplicate,
        `the question (${questionLabels(address).join('; ')}) already has a bot answer; ` +
          'in strict duplicate mode a second answer is rejected and not delivered',
        question.thread.sessionId,
        question,
      );
    }

    // Delivered: make the client and thread an answer by client needs, then claim answerId and question.
    if (thread === undefined) {
      client ??= this.newClient(state, address.coreClientId ?? undefined, address.clientId ?? undefined);
      thread = this.newThread(state, client, 'WEB', 'reply');
    }
    const target = thread;
    const event = this.emit(
      state,
      {
        ...base,
        sessionId: target.sessionId,
        coreClientId: target.client.coreClientId,
        status: 200,
        error: null,
        delivered: true,
        notDelivered: null,
      },
      bodyBytes,
      () => {
        if (answerId !== null) state.answerIds.set(answerId, this.seq);
        if (question) question.answered = true;
        target.lastBotMessage = lastBotMessage(reply, this.seq, target.channel);
      },
    ) as BotAnswerEvent;
    this.handOver(state, target, question, reply, meta.requestId);
    return { status: 200, event };
  }

  /**
   * Handles a valid greeting: always delivered, addressed by clientId when given (greet rules 1–3),
   * into the client's latest thread, or a new WEB thread. A client the sandbox does not know is made.
   */
  greeting(tenant: string, greeting: Greeting, meta: RequestMeta): GreetingEvent {
    const state = this.state(tenant);
    const address = greeting as { clientId?: string | null; coreClientId?: bigint | null };
    const addressedBy = address.clientId != null ? ['clientId'] : address.coreClientId != null ? ['coreClientId'] : [];
    let client =
      address.clientId != null
        ? state.clientsByExternalId.get(address.clientId)
        : address.coreClientId != null
          ? state.clients.get(address.coreClientId)
          : undefined;
    if (client === undefined) {
      const core = address.coreClientId != null && !state.clients.has(address.coreClientId) ? address.coreClientId : undefined;
      client = this.newClient(state, core, address.clientId ?? undefined);
    }
    const thread = client.latest ?? this.newThread(state, client, 'WEB', 'greeting');
    return this.emit(
      state,
      {
        type: 'greeting',
        kind: 'greeting',
        sessionId: thread.sessionId,
        requestId: meta.requestId,
        status: 200,
        error: null,
        answerId: null,
        addressedBy,
        delivered: true,
        notDelivered: null,
        questionAlreadyAnswered: false,
        coreClientId: client.coreClientId,
        warnings: [...meta.warnings, ...channelWarnings(greeting, thread.channel)],
        body: meta.body,
      },
      meta.bodyBytes,
      () => {
        thread.lastBotMessage = lastBotMessage(greeting, this.seq, thread.channel);
      },
    ) as GreetingEvent;
  }

  /** Records an API request that ended before a bot answer, greeting or reason update was recorded. */
  apiRequest(
    tenant: string,
    request: {
      method: string;
      path: string;
      status: number;
      requestId: string;
      error: string | null;
      sessionId: string | null;
      bodyBytes: number;
    },
  ): void {
    const state = this.state(tenant);
    const { bodyBytes, ...fields } = request;
    this.emit(state, { type: 'api.request', ...fields }, Math.min(bodyBytes, 2048));
  }

  /**
   * The thread a request body seems to be about, for the record of a request refused before it was
   * understood (an invalid body, say): by sessionId, questionId or client, as far as the state knows.
   */
  sessionOf(tenant: string, body: unknown): string | null {
    const state = this.tenants.get(tenant);
    if (state === undefined || typeof body !== 'object' || body === null) return null;
    const fields = body as Record<string, unknown>;
    if (typeof fields.sessionId === 'string' && state.threads.has(fields.sessionId)) return fields.sessionId;
    if (typeof fields.questionId === 'bigint') {
      const question = state.questions.get(fields.questionId);
      if (question) return question.thread.sessionId;
    }
    const client =
      (typeof fields.coreClientId === 'bigint' ? state.clients.get(fields.coreClientId) : undefined) ??
      (typeof fields.clientId === 'string' ? state.clientsByExternalId.get(fields.clientId) : undefined);
    return client?.latest?.sessionId ?? null;
  }

  /**
   * Replaces an existing reason: translations, colour and flags all come from the update, and an
   * absent `active` means true (docs/api.md, reason field rule 4). Unknown code: 404 naming it
   * (reason rule 1). More active reasons than the limit: 409 (reason rule 2).
   */
  updateReason(tenant: string, update: Reason, meta: { requestId: string }): ReasonUpdate {
    const state = this.state(tenant);
    const current = state.reasons.get(update.code);
    if (current === undefined) {
      return { ok: false, status: 404, message: `no inactivity reason with code '${update.code}'` };
    }
    const next = storedReason(update);
    const active = state.activeCount - (isActive(current.reason) ? 1 : 0) + (isActive(next) ? 1 : 0);
    if (active > this.config.maxActiveReasons && active > state.activeCount) {
      return {
        ok: false,
        status: 409,
        message:
          `too many active inactivity reasons: activating '${update.code}' would make ${active} active, ` +
          `the limit is ${this.config.maxActiveReasons}`,
      };
    }
    const record: ReasonRecord = {
      tenant,
      code: update.code,
      reason: next,
      updatedAt: new Date().toISOString(),
      requestId: meta.requestId,
    };
    state.reasons.set(update.code, record);
    state.activeCount = active;
    this.emit(state, { type: 'reason.updated', sessionId: null, requestId: meta.requestId, code: update.code, reason: next });
    return { ok: true, record };
  }

  // ---- reading ---------------------------------------------------------------------------------

  /** Every kept bot answer and greeting in seq order, of one tenant or all. */
  messages(tenant?: string): MessageRecord[] {
    return [...this.eventSource(tenant, 0)].filter(isMessage);
  }

  /** A page of the kept bot answers and greetings after `after`. */
  messagePage(tenant: string | undefined, after: number, limit: number): Page<MessageRecord> {
    return page(this.eventSource(tenant, after), after, limit, isMessage) as Page<MessageRecord>;
  }

  /** Kept events after `after` in seq order, of one tenant or all, optionally of one thread. */
  events(filter: { tenant?: string | undefined; sessionId?: string | undefined; after?: number | undefined } = {}): Iterable<SandboxEvent> {
    const after = filter.after ?? 0;
    if (filter.sessionId !== undefined) {
      const thread = this.thread(filter.sessionId);
      if (thread === undefined || (filter.tenant !== undefined && thread.tenant !== filter.tenant)) return [];
      return thread.log.after(after);
    }
    return this.eventSource(filter.tenant, after);
  }

  /** A page of a thread's events after `after`. */
  threadEventPage(thread: Thread, after: number, limit: number): Page<SandboxEvent> {
    return page(thread.log.after(after), after, limit);
  }

  /** A page of the kept threads, in the order they started, of one tenant or all. */
  conversationPage(tenant: string | undefined, after: number, limit: number): Page<ConversationView> {
    const sources = this.selected(tenant).map((state) => state.threads.values());
    const started = mergeBySeq(sources.map((threads) => withSeq(threads)));
    const result = page(started, after, limit, (item) => item.seq > after);
    return { items: result.items.map((item) => this.view(item.thread)), next: result.next };
  }

  view(thread: Thread): ConversationView {
    const questionsWithAgents: bigint[] = [];
    for (const question of thread.questions.after(0)) if (question.withAgents) questionsWithAgents.push(question.questionIndex);
    return {
      tenant: thread.tenant,
      sessionId: thread.sessionId,
      channel: thread.channel,
      coreClientId: thread.client.coreClientId,
      clientId: thread.client.clientId,
      owner: thread.owner,
      handover: thread.handover,
      questionsWithAgents,
      questions: thread.questions.length,
      startedSeq: thread.startedSeq,
      startedAt: thread.startedAt,
      lastSeq: thread.lastSeq,
      lastBotMessage: thread.lastBotMessage,
    };
  }

  /** Every reason, of one tenant or all, tenant by tenant. */
  reasons(tenant?: string): ReasonRecord[] {
    return this.selected(tenant).flatMap((state) => [...state.reasons.values()]);
  }

  /** How much the state holds, for tests and the bench: counts per tenant. */
  sizesOf(tenant: string): Record<'events' | 'bytes' | 'clients' | 'threads' | 'questions' | 'answerIds' | 'deliveries', number> {
    const state = this.state(tenant);
    return {
      events: state.log.length,
      bytes: state.bytes,
      clients: state.clients.size,
      threads: state.threads.size,
      questions: state.questions.size,
      answerIds: state.answerIds.size,
      deliveries: state.deliveries.size,
    };
  }

  /** Returns one tenant, or all, to the start state: no events, clients or threads, the seed reasons. */
  reset(tenant?: string): string[] {
    const names = tenant === undefined ? this.tenantNames : [tenant];
    for (const name of names) {
      const old = this.state(name);
      for (const sessionId of old.threads.keys()) this.sessions.delete(sessionId);
      const state = this.fresh(name);
      this.tenants.set(name, state);
      this.emit(state, { type: 'sandbox.reset', sessionId: null });
    }
    return names;
  }

  // ---- inside ----------------------------------------------------------------------------------

  private eventSource(tenant: string | undefined, after: number): Iterable<SandboxEvent> {
    const logs = this.selected(tenant).map((state) => state.log.after(after));
    return logs.length === 1 ? logs[0]! : mergeBySeq(logs);
  }

  /**
   * Appends an event: gives it its seq and time, adds it to its thread's log, keeps its thread and
   * client alive, runs `apply` (the state change that goes with it, which may read this.seq), tells
   * the listeners, then drops the oldest events past the bounds.
   */
  private emit(state: TenantState, fields: NewEvent, bodyBytes = 0, apply?: () => void): SandboxEvent {
    this.seq += 1;
    const event = { seq: this.seq, tenant: state.name, time: new Date().toISOString(), ...fields } as SandboxEvent;
    const size = EVENT_OVERHEAD + bodyBytes;
    this.sizes.set(event, size);
    state.log.push(event);
    state.bytes += size;
    const thread = event.sessionId === null ? undefined : state.threads.get(event.sessionId);
    if (thread) {
      thread.log.push(event);
      thread.lastSeq = event.seq;
      thread.client.lastSeq = event.seq;
    }
    if ('coreClientId' in event && event.coreClientId !== null) {
      const client = state.clients.get(event.coreClientId);
      if (client) client.lastSeq = event.seq;
    }
    apply?.();
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener (an event stream whose client went away, say) must not break the request that recorded the event.
      }
    }
    while (state.log.length > this.config.maxEvents || (state.bytes > this.config.maxEventBytes && state.log.length > 1)) {
      this.drop(state);
    }
    return event;
  }

  /** Drops the oldest event of a tenant, and whatever no kept event refers to any more. */
  private drop(state: TenantState): void {
    const event = state.log.shift();
    if (event === undefined) return;
    state.bytes -= this.sizes.get(event) ?? EVENT_OVERHEAD;
    const thread = event.sessionId === null ? undefined : state.threads.get(event.sessionId);
    if (thread) {
      while ((thread.log.first()?.seq ?? Infinity) <= event.seq) thread.log.shift();
      if (event.type === 'customer.message') {
        while ((thread.questions.first()?.seq ?? Infinity) <= event.seq) {
          const question = thread.questions.shift();
          if (question) state.questions.delete(question.questionId);
        }
      }
      if (thread.lastSeq <= event.seq) this.forgetThread(state, thread);
    }
    if (event.type === 'customer.message' && event.deliveryId !== null) state.deliveries.delete(event.deliveryId);
    for (const [answerId, seq] of state.answerIds) {
      if (seq > event.seq) break;
      state.answerIds.delete(answerId);
    }
    if ('coreClientId' in event && event.coreClientId !== null) {
      const client = state.clients.get(event.coreClientId);
      if (client && client.lastSeq <= event.seq) this.forgetClient(state, client);
    }
  }

  private forgetThread(state: TenantState, thread: Thread): void {
    state.threads.delete(thread.sessionId);
    this.sessions.delete(thread.sessionId);
    for (const question of thread.questions.after(0)) state.questions.delete(question.questionId);
    if (thread.client.latest === thread) thread.client.latest = null;
    if (thread.client.lastSeq <= thread.lastSeq) this.forgetClient(state, thread.client);
  }

  private forgetClient(state: TenantState, client: Client): void {
    if (state.clients.get(client.coreClientId) === client) state.clients.delete(client.coreClientId);
    if (client.clientId !== null && state.clientsByExternalId.get(client.clientId) === client)
      state.clientsByExternalId.delete(client.clientId);
  }

  private handOver(state: TenantState, thread: Thread, question: Question | undefined, reply: Reply, requestId: string): void {
    const fields = reply as ReplyFields;
    const code = fields.code;
    if (code !== 'SWITCH_TO_HUMAN' && code !== 'UNCLEAR_QUESTION') return;
    // UNCLEAR_QUESTION passes the question answered, or, for an answer addressed by client, the thread's latest question.
    const passed = code === 'UNCLEAR_QUESTION' ? (question ?? thread.questions.last()) : question;
    if (code === 'UNCLEAR_QUESTION' && passed === undefined) return;
    const targets = {
      userIds: [...(fields.userIds ?? [])],
      skillIds: [...(fields.skillIds ?? [])],
      unitIds: [...(fields.unitIds ?? [])],
    };
    this.emit(
      state,
      {
        type: 'handover',
        sessionId: thread.sessionId,
        scope: code === 'SWITCH_TO_HUMAN' ? 'thread' : 'question',
        code,
        questionId: passed?.questionId ?? null,
        questionIndex: passed?.questionIndex ?? null,
        ...targets,
        requestId,
      },
      0,
      () => {
        const handover: Handover = { code, seq: this.seq, time: new Date().toISOString(), ...targets };
        if (code === 'SWITCH_TO_HUMAN') {
          thread.owner = 'agents';
          thread.handover = handover;
        } else if (passed) passed.withAgents = handover;
      },
    ) as HandoverEvent;
  }

  private newClient(state: TenantState, coreClientId: bigint | undefined, clientId: string | undefined): Client {
    let id = coreClientId;
    if (id === undefined) {
      while (state.clients.has(state.nextClientId)) state.nextClientId += 1n;
      id = state.nextClientId;
      state.nextClientId += 1n;
    }
    const client: Client = { coreClientId: id, clientId: clientId ?? null, lastSeq: this.seq, latest: null };
    state.clients.set(id, client);
    if (clientId !== undefined) state.clientsByExternalId.set(clientId, client);
    return client;
  }

  private newThread(state: TenantState, client: Client, channel: Channel, by: 'customer' | 'reply' | 'greeting'): Thread {
    let sessionId: string;
    do sessionId = `s-${randomBytes(6).toString('hex')}`;
    while (this.sessions.has(sessionId));
    const thread: Thread = {
      tenant: state.name,
      sessionId,
      channel,
      client,
      owner: 'bot',
      handover: null,
      questions: new SeqQueue(),
      nextIndex: 1n,
      startedSeq: this.seq + 1,
      startedAt: new Date().toISOString(),
      lastSeq: this.seq + 1,
      log: new SeqQueue(),
      lastBotMessage: null,
    };
    state.threads.set(sessionId, thread);
    this.sessions.set(sessionId, state);
    client.latest = thread;
    this.emit(state, {
      type: 'conversation.started',
      sessionId,
      channel,
      coreClientId: client.coreClientId,
      clientId: client.clientId,
      by,
    });
    return thread;
  }

  private nextQuestionId(state: TenantState): bigint {
    while (state.questions.has(state.nextQuestionId)) state.nextQuestionId += 1n;
    const id = state.nextQuestionId;
    state.nextQuestionId += 1n;
    return id;
  }

  private newDeliveryId(state: TenantState): string {
    let id: string;
    do id = `msg_${randomBytes(12).toString('hex')}`;
    while (state.deliveries.has(id));
    return id;
  }

  private fresh(name: string): TenantState {
    const reasons = new Map<string, ReasonRecord>();
    for (const reason of this.config.seedReasons) {
      // A copy per tenant, so an update in one tenant can never show in another.
      reasons.set(reason.code, { tenant: name, code: reason.code, reason: structuredClone(reason), updatedAt: null, requestId: null });
    }
    let activeCount = 0;
    for (const record of reasons.values()) if (isActive(record.reason)) activeCount += 1;
    return {
      name,
      log: new SeqQueue(),
      bytes: 0,
      clients: new Map(),
      clientsByExternalId: new Map(),
      threads: new Map(),
      questions: new Map(),
      answerIds: new Map(),
      deliveries: new Map(),
      reasons,
      activeCount,
      nextClientId: firstIds.coreClientId,
      nextQuestionId: firstIds.questionId,
    };
  }

  private state(tenant: string): TenantState {
    const state = this.tenants.get(tenant);
    if (state === undefined) throw new RangeError(`unknown tenant '${tenant}'`);
    return state;
  }

  private selected(tenant: string | undefined): TenantState[] {
    return tenant === undefined ? [...this.tenants.values()] : [this.state(tenant)];
  }
}

// The fields of a reply the sandbox's rules read; a structural view so this file states its needs.
interface ReplyFields {
  answerId?: string | null | undefined;
  clientId?: string | null | undefined;
  coreClientId?: bigint | null | undefined;
  questionId?: bigint | null | undefined;
  sessionId?: string | null | undefined;
  questionIndex?: bigint | null | undefined;
  code?: string | null | undefined;
  userIds?: Iterable<bigint> | null | undefined;
  skillIds?: Iterable<bigint> | null | undefined;
  unitIds?: Iterable<bigint> | null | undefined;
}

const isMessage = (event: SandboxEvent): event is MessageRecord => event.type === 'bot.answer' || event.type === 'greeting';

function* withSeq(threads: Iterable<Thread>): Generator<{ seq: number; thread: Thread }> {
  for (const thread of threads) yield { seq: thread.startedSeq, thread };
}

function forgotten(maxEvents: number): string {
  return ` (the sandbox keeps the last ${maxEvents} events of a tenant, and forgets what they no longer mention)`;
}

function questionAt(thread: Thread, index: bigint): Question | undefined {
  const first = thread.questions.first();
  if (first === undefined) return undefined;
  return thread.questions.at(Number(index - first.questionIndex));
}

function describeQuestions(thread: Thread): string {
  const first = thread.questions.first();
  const last = thread.questions.last();
  if (first === undefined || last === undefined) return 'it has no questions yet';
  return first === last ? `it has question ${first.questionIndex}` : `it has questions ${first.questionIndex} to ${last.questionIndex}`;
}

/** The labels of the question an answer names, for messages: as the answer named it. */
function questionLabels(address: ReplyFields): string[] {
  const labels: string[] = [];
  if (address.questionId != null) labels.push(`questionId ${address.questionId}`);
  if (address.sessionId != null && address.questionIndex != null) {
    labels.push(`sessionId ${address.sessionId} with questionIndex ${address.questionIndex}`);
  }
  return labels;
}

function replyAddressing(address: ReplyFields): string[] {
  const ways: string[] = [];
  if (address.coreClientId != null) ways.push('coreClientId');
  if (address.questionId != null) ways.push('questionId');
  if (address.sessionId != null && address.questionIndex != null) ways.push('sessionId+questionIndex');
  if (address.clientId != null) ways.push('clientId');
  return ways;
}

/** An answer naming a question and also a client that is not the question's: answered, with a warning. */
function clientMismatch(address: ReplyFields, question: Question): Problem[] {
  const client = question.thread.client;
  const problems: Problem[] = [];
  if (address.coreClientId != null && address.coreClientId !== client.coreClientId) {
    problems.push({
      path: 'coreClientId',
      message: `question ${question.questionId} is of coreClientId ${client.coreClientId}, not ${address.coreClientId}: the sandbox answers the question`,
    });
  }
  if (address.clientId != null && address.clientId !== client.clientId) {
    problems.push({
      path: 'clientId',
      message: `question ${question.questionId} is of clientId ${client.clientId === null ? '(none)' : `'${client.clientId}'`}, not '${address.clientId}': the sandbox answers the question`,
    });
  }
  return problems;
}

/**
 * Where a message breaks a rule of the thread's channel: the interactive list and the header and
 * footer are for the instant-messenger channel only (docs/api.md, list rule 1, header-footer rule 1).
 * The message is delivered; the customer does not see those parts.
 */
export function channelWarnings(message: unknown, channel: Channel): Problem[] {
  if (channel === 'IM' || typeof message !== 'object' || message === null) return [];
  const fields = message as Record<string, unknown>;
  const problems: Problem[] = [];
  if (fields.messageListPicker != null) {
    problems.push({
      path: 'messageListPicker',
      message: `the list is shown on IM threads only (docs/api.md, list rule 1); this thread is ${channel}, so the customer does not see it`,
    });
  }
  if (fields.quickRepliesHeaderFooter != null) {
    problems.push({
      path: 'quickRepliesHeaderFooter',
      message: `the header and footer are shown on IM threads only (docs/api.md, header-footer rule 1); this thread is ${channel}, so the customer does not see them`,
    });
  }
  return problems;
}

function lastBotMessage(message: unknown, seq: number, channel: Channel): LastBotMessage {
  const fields = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
  const quickReplies = Array.isArray(fields.quickReplies)
    ? (fields.quickReplies.filter((q) => typeof q === 'object' && q !== null) as Record<string, unknown>[])
    : [];
  const picker = fields.messageListPicker;
  return {
    seq,
    quickReplies,
    messageListPicker: typeof picker === 'object' && picker !== null ? (picker as Record<string, unknown>) : null,
    listShown: channel === 'IM',
  };
}
