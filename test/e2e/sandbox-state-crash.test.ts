import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../src/payload/json.js';
import { baseEnv, ensureBuilt, killStillRunning, startBuilt, type BuiltProcess } from '../helpers/run.js';
import { happens } from '../helpers/wait.js';

/**
 * `core sandbox --state FILE` killed with SIGKILL at random moments of a burst of customer messages
 * and bot answers: after each restart, every request that was answered is there (its conversation,
 * its question, its bot answer), and no id is handed out twice. The moments are the n-th answer of
 * the round, n drawn from a seeded generator: events, never delays.
 */

const ROUNDS = 20;
const WORKERS = 8;

/** A small seeded generator (mulberry32), so that a failing round can be run again. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Answered {
  conversations: Map<string, bigint>;
  /** questionId -> sessionId */
  questions: Map<bigint, string>;
  /** answerId -> sessionId */
  answers: Map<string, string>;
}

async function request(url: string, path: string, body?: unknown, api = false): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (api) {
    headers.Authorization = 'Bearer sandbox-token';
    headers['X-Tenant-Name'] = 'sandbox';
  }
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body: body === undefined ? undefined : stringifyJson(body),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : parseJson(text) };
}

async function start(file: string, cwd: string): Promise<{ sandbox: BuiltProcess; url: string }> {
  const sandbox = startBuilt(['sandbox', '--state', file], { env: baseEnv(), cwd });
  const listening = /listening on (http:\/\/\S+)/;
  await happens(
    Promise.race([
      sandbox.printed('stdout', listening),
      sandbox.exited.then((code) => Promise.reject(new Error(`exited ${code}: ${sandbox.stderr()}`))),
    ]),
    'the sandbox listens',
    30_000,
  );
  return { sandbox, url: listening.exec(sandbox.stdout())![1]! };
}

/**
 * One worker of the burst: conversations, each with questions the bot answers, until the sandbox
 * dies. Records what was answered; calls `onAnswer` after each answer.
 */
async function worker(url: string, answered: Answered, onAnswer: () => void): Promise<void> {
  try {
    for (;;) {
      const started = await request(url, '/_sandbox/conversations', { channel: 'WEB' });
      expect(started.status).toBe(201);
      const { sessionId, coreClientId } = started.json as { sessionId: string; coreClientId: bigint };
      answered.conversations.set(sessionId, coreClientId);
      onAnswer();
      for (let turn = 0; turn < 3; turn += 1) {
        const asked = await request(url, `/_sandbox/conversations/${sessionId}/messages`, { text: `Question ${turn}` });
        expect(asked.status).toBe(201);
        const { questionId } = asked.json as { questionId: bigint };
        answered.questions.set(questionId, sessionId);
        onAnswer();
        const answerId = randomUUID();
        const reply = await request(url, '/api/v1/chatbot', { questionId, answerId, text: `Answer ${turn}` }, true);
        expect(reply.status).toBe(200);
        answered.answers.set(answerId, sessionId);
        onAnswer();
      }
    }
  } catch (error) {
    // The sandbox was killed: a request cut off is one that was not answered.
    if (error instanceof TypeError) return;
    throw error;
  }
}

/** Every answered request's events, read back from the restarted sandbox; no id seen twice. */
async function checkAllThere(url: string, answered: Answered): Promise<void> {
  const bySession = new Map<string, { questions: Set<bigint>; answers: Set<string>; coreClientId: bigint }>();
  const seqs = new Set<bigint>();
  const sessionIds = [...new Set([...answered.conversations.keys(), ...answered.questions.values(), ...answered.answers.values()])];
  // Read a few at a time (the reads change nothing), then checked one by one in order.
  const read = new Map<string, { status: number; json: unknown }>();
  const queue = [...sessionIds];
  const reader = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift())
      read.set(id, await request(url, `/_sandbox/conversations/${id}?limit=1000`));
  };
  await Promise.all(Array.from({ length: WORKERS }, reader));
  for (const sessionId of sessionIds) {
    const shown = read.get(sessionId)!;
    expect(shown.status, `conversation ${sessionId}`).toBe(200);
    const { conversation, events } = shown.json as {
      conversation: { coreClientId: bigint };
      events: { seq: bigint; type: string; questionId?: bigint; answerId?: string }[];
    };
    const seen = { questions: new Set<bigint>(), answers: new Set<string>(), coreClientId: conversation.coreClientId };
    for (const event of events) {
      expect(seqs.has(event.seq), `seq ${event.seq} twice`).toBe(false);
      seqs.add(event.seq);
      if (event.type === 'customer.message') seen.questions.add(event.questionId!);
      if (event.type === 'bot.answer' && event.answerId) seen.answers.add(event.answerId);
    }
    bySession.set(sessionId, seen);
  }
  for (const [sessionId, coreClientId] of answered.conversations) expect(bySession.get(sessionId)?.coreClientId).toBe(coreClientId);
  for (const [questionId, sessionId] of answered.questions)
    expect(bySession.get(sessionId)?.questions.has(questionId), `question ${questionId}`).toBe(true);
  for (const [answerId, sessionId] of answered.answers)
    expect(bySession.get(sessionId)?.answers.has(answerId), `answer ${answerId}`).toBe(true);
}

describe('core sandbox --state, killed with SIGKILL', () => {
  beforeAll(() => ensureBuilt());
  afterEach(() => killStillRunning());

  it(`loses no answered request and hands out no id twice, over ${ROUNDS} rounds killed at random moments of a burst`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-state-crash-'));
    const file = join(dir, 'state.ndjson');
    const random = generator(36);
    const answered: Answered = { conversations: new Map(), questions: new Map(), answers: new Map() };
    const clients: bigint[] = [];
    const questionIds: bigint[] = [];
    let killed = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const { sandbox, url } = await start(file, dir);
      await checkAllThere(url, answered);
      const before = { conversations: answered.conversations.size, questions: answered.questions.size };
      const killAt = 1 + Math.floor(random() * 60);
      let answers = 0;
      let kill!: () => void;
      const due = new Promise<void>((resolve) => (kill = resolve));
      const onAnswer = () => {
        answers += 1;
        if (answers === killAt) kill();
      };
      const workers = Array.from({ length: WORKERS }, () => worker(url, answered, onAnswer));
      await happens(due, `answer ${killAt} of round ${round}`, 60_000);
      sandbox.child.kill('SIGKILL');
      expect(await sandbox.exited).toBe(128 + 9);
      killed += 1;
      await Promise.all(workers);
      clients.push(...[...answered.conversations.values()].slice(before.conversations));
      questionIds.push(...[...answered.questions.keys()].slice(before.questions));
    }
    const { sandbox, url } = await start(file, dir);
    await checkAllThere(url, answered);
    sandbox.child.kill('SIGTERM');
    await sandbox.exited;
    expect(killed).toBe(ROUNDS);
    // Ids go on where they stopped: none answered twice across every restart.
    expect(new Set(clients).size).toBe(clients.length);
    expect(new Set(questionIds).size).toBe(questionIds.length);
    expect(answered.questions.size).toBeGreaterThan(ROUNDS);
  });
});
