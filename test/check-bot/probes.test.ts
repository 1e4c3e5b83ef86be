import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { CRAFTS, MAX_CHECK_ID, MAX_CHECK_MESSAGE } from '../../src/sandbox/probe.js';
import type { SandboxEvent } from '../../src/sandbox/server.js';
import { PROBE_CRAFTS } from '../../src/testing/check-bot/checks.js';
import { gate, startRecordingServer, type RecordedRequest } from '../helpers/recording-server.js';
import { call, errorMessage, eventOf, replyBody, sandbox, sendReply, startConversation } from '../sandbox/helpers.js';

/**
 * The sandbox's probes (docs/sandbox.md, "Probes"): the crafted deliveries of POST /_sandbox/probes,
 * read on the wire by a recording bot and checked against Standard Webhooks 1.0 written out here,
 * and the one-shot faults of POST /_sandbox/probes/faults.
 */

const SECRET = `whsec_${Buffer.from('a fixed key of thirty-two bytes!').toString('base64')}`;
const KEY = Buffer.from('a fixed key of thirty-two bytes!');

const sign = (id: string, timestamp: string, body: Buffer) =>
  createHmac('sha256', KEY).update(`${id}.${timestamp}.`).update(body).digest('base64');

async function platform(status = 200) {
  const bot = await startRecordingServer(() => ({ status, body: 'seen' }));
  onTestFinished(() => bot.close());
  const sb = await sandbox({ botUrl: `${bot.url}/webhook`, webhookSecret: SECRET });
  return { bot, sb };
}

const probe = (sb: { url: string }, body: Record<string, unknown>) => call(sb, '/_sandbox/probes', { body, token: null, tenant: null });

interface ProbeAnswer {
  craft: string;
  sessionId: string;
  questionId: bigint;
  questionIndex: bigint;
  deliveryId: string;
  attempt: { status: bigint | null; error: string | null; latencyMs: bigint; body: string };
}

/** One request with a Host header of the test's choosing (fetch cannot set one). */
function rawRequest(
  sb: { port: number },
  init: { method: string; path: string; host: string; contentType: string; body: string | undefined },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: sb.port,
        method: init.method,
        path: init.path,
        headers: { 'Content-Type': init.contentType },
        setHost: false,
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.setHeader('Host', init.host);
    req.on('error', reject);
    req.end(init.body);
  });
}

const header = (request: RecordedRequest, name: string) => request.headers[name] as string | undefined;
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('POST /_sandbox/probes sends one crafted delivery of a new question', () => {
  it('knows the crafts the battery asks for, and no other', () => {
    expect([...CRAFTS]).toEqual([...PROBE_CRAFTS]);
  });

  it('asks the question in the thread and answers with how the bot answered the delivery', async () => {
    const { bot, sb } = await platform(202);
    const { sessionId } = await startConversation(sb);
    const result = await probe(sb, { sessionId, craft: 'signed', text: 'Where is my order?' });
    expect(result.status).toBe(200);
    const answer = result.json as ProbeAnswer;
    expect(answer).toMatchObject({ craft: 'signed', sessionId, questionIndex: 1n, attempt: { status: 202n, error: null, body: 'seen' } });
    expect(answer.deliveryId).toMatch(/^msg_/);
    expect(bot.requests).toHaveLength(1);
    const webhook = parseJson(bot.requests[0]!.text) as { message: { questionId: bigint; text: string; sessionId: string } };
    expect(webhook.message).toMatchObject({ questionId: answer.questionId, text: 'Where is my order?', sessionId });
    // The attempt is recorded as any attempt is, once, with no retry.
    const attempt = await eventOf(sb, (e) => e.type === 'webhook.attempt', 'the attempt');
    expect(attempt).toMatchObject({
      sessionId,
      deliveryId: answer.deliveryId,
      status: 202,
      attempt: 1,
      outcome: 'delivered',
      retryInMs: null,
      craft: 'signed',
    });
  });

  it('records a refused crafted delivery as failed, and does not retry it', async () => {
    const { bot, sb } = await platform(401);
    const { sessionId } = await startConversation(sb);
    const answer = (await probe(sb, { sessionId, craft: 'unsigned' })).json as ProbeAnswer;
    expect(answer.attempt.status).toBe(401n);
    const attempt = await eventOf(sb, (e) => e.type === 'webhook.attempt', 'the attempt');
    expect(attempt).toMatchObject({ status: 401, outcome: 'failed', retryInMs: null, craft: 'unsigned' });
    expect(bot.requests).toHaveLength(1);
  });

  // `sent`: the seconds (Date.now, whole) between which the probe made the delivery.
  const crafts: [string, (request: RecordedRequest, original: Buffer, sent: { from: number; to: number }) => void][] = [
    [
      'signed',
      (request, _original, sent) => {
        const [id, ts] = [header(request, 'webhook-id')!, header(request, 'webhook-timestamp')!];
        expect(header(request, 'webhook-signature')).toBe(`v1,${sign(id, ts, request.body)}`);
        // Signed now: within the probe's call.
        expect(Number(ts)).toBeGreaterThanOrEqual(sent.from);
        expect(Number(ts)).toBeLessThanOrEqual(sent.to);
      },
    ],
    [
      'unsigned',
      (request) => {
        expect(Object.keys(request.headers).filter((name) => name.startsWith('webhook-'))).toEqual([]);
        expect(header(request, 'x-tenant-name')).toBe('sandbox');
        expect(header(request, 'content-type')).toBe('application/json');
      },
    ],
    [
      'tampered',
      (request, original) => {
        const [id, ts] = [header(request, 'webhook-id')!, header(request, 'webhook-timestamp')!];
        // Signed as the delivery was, and sent with the text changed.
        expect(header(request, 'webhook-signature')).toBe(`v1,${sign(id, ts, original)}`);
        expect(request.body.equals(original)).toBe(false);
        expect((parseJson(request.text) as { message: { text: string } }).message.text).toMatch(/ \(changed after signing\)$/);
      },
    ],
    [
      'wrong-secret',
      (request) => {
        const [id, ts] = [header(request, 'webhook-id')!, header(request, 'webhook-timestamp')!];
        const signature = header(request, 'webhook-signature')!;
        expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
        expect(signature).not.toBe(`v1,${sign(id, ts, request.body)}`);
      },
    ],
    [
      'rotation',
      (request) => {
        const [id, ts] = [header(request, 'webhook-id')!, header(request, 'webhook-timestamp')!];
        const entries = header(request, 'webhook-signature')!.split(' ');
        expect(entries).toHaveLength(2);
        expect(entries[0]).not.toBe(`v1,${sign(id, ts, request.body)}`);
        expect(entries[1]).toBe(`v1,${sign(id, ts, request.body)}`);
      },
    ],
    ...(['stale', 'future'] as const).map(
      (craft): [string, (request: RecordedRequest, original: Buffer, sent: { from: number; to: number }) => void] => [
        craft,
        (request, _original, sent) => {
          const [id, ts] = [header(request, 'webhook-id')!, header(request, 'webhook-timestamp')!];
          // Exactly ten minutes off the moment it was signed, which lies within the probe's call.
          const skew = craft === 'stale' ? -600 : 600;
          expect(Number(ts)).toBeGreaterThanOrEqual(sent.from + skew);
          expect(Number(ts)).toBeLessThanOrEqual(sent.to + skew);
          expect(header(request, 'webhook-signature')).toBe(`v1,${sign(id, ts, request.body)}`);
        },
      ],
    ),
    [
      'unknown-fields',
      (request, original) => {
        const [id, ts] = [header(request, 'webhook-id')!, header(request, 'webhook-timestamp')!];
        expect(header(request, 'webhook-signature')).toBe(`v1,${sign(id, ts, request.body)}`);
        expect(header(request, 'x-core-future-header')).toBe('a header a later version may add');
        const sent = parseJson(request.text) as Record<string, unknown> & { message: Record<string, unknown> };
        const before = parseJson(original.toString('utf8')) as Record<string, unknown> & { message: Record<string, unknown> };
        expect(Object.keys(sent)).toEqual([...Object.keys(before), 'futureField']);
        expect(Object.keys(sent.message)).toEqual([...Object.keys(before.message), 'futureField']);
        expect(sent.message.questionId).toBe(before.message.questionId);
      },
    ],
    [
      'raw-body',
      (request, original) => {
        const [id, ts] = [header(request, 'webhook-id')!, header(request, 'webhook-timestamp')!];
        // Signed over the bytes as sent, which hold the same value as the delivery...
        expect(header(request, 'webhook-signature')).toBe(`v1,${sign(id, ts, request.body)}`);
        expect(JSON.parse(request.text)).toEqual(JSON.parse(original.toString('utf8')));
        // ... in bytes that a parse and a write give back otherwise.
        expect(JSON.stringify(JSON.parse(request.text))).not.toBe(request.text);
        expect(request.text).toMatch(/^\{\n {2}"message" : \{\n/);
        expect(request.text).toContain('"questionIndex" : 1.0');
        expect(request.text).toContain('caf\\u00e9');
        expect(original.toString('utf8')).toContain('café');
      },
    ],
  ];

  it.each(crafts)('craft %s', async (craft, check) => {
    const { bot, sb } = await platform();
    const { sessionId } = await startConversation(sb);
    const from = nowSeconds();
    const result = await probe(sb, { sessionId, craft, text: 'Un café, please' });
    const to = nowSeconds();
    expect(result.status).toBe(200);
    // The delivery as the sandbox keeps it: its redelivery sends these bytes.
    const { deliveryId } = result.json as ProbeAnswer;
    await call(sb, `/_sandbox/deliveries/${deliveryId}/redeliver`, { body: {}, token: null, tenant: null });
    await bot.received(2);
    check(bot.requests[0]!, bot.requests[1]!.body, { from, to });
  });

  it('asks each large-ids question above 2^53, odd so that no double holds it, each its own; the questions after it keep their usual ids', async () => {
    const { bot, sb } = await platform();
    const { sessionId } = await call(sb, '/_sandbox/conversations', {
      body: { coreClientId: 9007199254740993n },
      token: null,
      tenant: null,
    }).then((answer) => answer.json as { sessionId: string });
    const ids: bigint[] = [];
    for (const craft of ['signed', 'large-ids', 'large-ids', 'signed']) {
      const answer = (await probe(sb, { sessionId, craft })).json as ProbeAnswer;
      ids.push(answer.questionId);
    }
    expect(ids).toEqual([5001n, 2n ** 53n + 1n, 2n ** 53n + 5n, 5002n]);
    for (const id of ids.slice(1, 3)) expect(BigInt(Number(id))).not.toBe(id);
    await bot.received(4);
    // The bytes on the wire hold the ids exactly.
    expect(bot.requests[1]!.text).toContain('"questionId":9007199254740993,');
    expect(bot.requests[1]!.text).toContain('"coreClientId":9007199254740993,');
  });

  it.each(['signed', 'replay'] as const)(
    'marks the delivery of a %s probe in flight while the bot has it: a redelivery meanwhile is 409, and 202 once it is answered',
    async (craft) => {
      const held = gate();
      const bot = await startRecordingServer((_, index) =>
        index === (craft === 'replay' ? 1 : 0) ? { status: 200, until: held.promise } : { status: 200 },
      );
      onTestFinished(() => bot.close());
      const sb = await sandbox({ botUrl: `${bot.url}/webhook`, webhookSecret: SECRET });
      const { sessionId } = await startConversation(sb);
      let deliveryId = '';
      if (craft === 'replay') deliveryId = ((await probe(sb, { sessionId, craft: 'signed' })).json as ProbeAnswer).deliveryId;
      const probing = probe(sb, craft === 'replay' ? { craft, deliveryId } : { sessionId, craft });
      await bot.received(craft === 'replay' ? 2 : 1);
      if (craft === 'signed') deliveryId = String(bot.requests[0]!.headers['webhook-id']);
      const meanwhile = await call(sb, `/_sandbox/deliveries/${deliveryId}/redeliver`, { body: {}, token: null, tenant: null });
      expect(meanwhile.status).toBe(409);
      held.open();
      expect((await probing).status).toBe(200);
      const after = await call(sb, `/_sandbox/deliveries/${deliveryId}/redeliver`, { body: {}, token: null, tenant: null });
      expect(after.status).toBe(202);
    },
  );

  it('replays a kept delivery: the same webhook-id and body, a new timestamp and a valid signature', async () => {
    const { bot, sb } = await platform();
    const { sessionId } = await startConversation(sb);
    const first = (await probe(sb, { sessionId, craft: 'signed' })).json as ProbeAnswer;
    const replay = await probe(sb, { craft: 'replay', deliveryId: first.deliveryId });
    expect(replay.status).toBe(200);
    expect(replay.json).toMatchObject({ craft: 'replay', sessionId, deliveryId: first.deliveryId, attempt: { status: 200n } });
    const [a, b] = bot.requests;
    expect(header(b!, 'webhook-id')).toBe(header(a!, 'webhook-id'));
    expect(b!.body.equals(a!.body)).toBe(true);
    const ts = header(b!, 'webhook-timestamp')!;
    expect(header(b!, 'webhook-signature')).toBe(`v1,${sign(header(b!, 'webhook-id')!, ts, b!.body)}`);
    // A second question was not asked.
    expect(sb.conversation(sessionId)?.questions).toBe(1);
    const attempts = sb.events({ sessionId }).filter((e) => e.type === 'webhook.attempt');
    expect(attempts.map((e) => (e as SandboxEvent & { redelivery: number }).redelivery)).toEqual([0, 1]);
  });

  it.each([
    [
      'an unknown craft',
      { craft: 'forged', sessionId: 's-x' },
      400,
      /^craft: "forged": use one of signed, unsigned, tampered, wrong-secret, rotation, stale, future, unknown-fields, raw-body, large-ids, replay, fuzz$/,
    ],
    ['no craft', { sessionId: 's-x' }, 400, /^craft: absent: use one of /],
    ['no sessionId', { craft: 'signed' }, 400, /^sessionId: must be a non-empty string$/],
    [
      'an unknown field',
      { craft: 'signed', sessionId: 's-x', extra: 1 },
      400,
      /^extra: unknown field; this probe takes craft, sessionId, text$/,
    ],
    [
      'a replay named by sessionId',
      { craft: 'replay', sessionId: 's-x' },
      400,
      /sessionId: unknown field; this probe takes craft, deliveryId, attachments, unknownFields, format; deliveryId: must be a non-empty string/,
    ],
    [
      'a text of 4,001 characters',
      { craft: 'signed', sessionId: 's-x', text: 'x'.repeat(4001) },
      400,
      /^text: must be a non-empty string of at most 4000 characters$/,
    ],
    ['an unknown conversation', { craft: 'signed', sessionId: 's-nothing' }, 404, /^no conversation with sessionId 's-nothing'$/],
    ['an unknown delivery', { craft: 'replay', deliveryId: 'msg_nothing' }, 404, /^no delivery 'msg_nothing'/],
  ])('refuses %s with %i', async (_, body, status, message) => {
    const { sb } = await platform();
    const result = await probe(sb, body);
    expect(result.status).toBe(status);
    expect(errorMessage(result)).toMatch(message);
  });

  it('takes a text of 4,000 characters (the limit; 4,001 is refused above)', async () => {
    const { sb } = await platform();
    const { sessionId } = await startConversation(sb);
    expect((await probe(sb, { sessionId, craft: 'signed', text: 'x'.repeat(4000) })).status).toBe(200);
  });

  it('refuses with 409 when no bot is connected', async () => {
    const sb = await sandbox();
    const { sessionId } = await startConversation(sb);
    const result = await probe(sb, { sessionId, craft: 'signed' });
    expect(result.status).toBe(409);
    expect(errorMessage(result)).toContain('no bot is connected');
  });

  it.each([
    ['POST', '/_sandbox/probes', 'a body that is not JSON', 'text/plain', null, 415],
    ['POST', '/_sandbox/probes', 'another Host', 'application/json', 'attacker.example', 403],
    ['POST', '/_sandbox/probes/faults', 'a body that is not JSON', 'text/plain', null, 415],
    ['POST', '/_sandbox/probes/faults', 'another Host', 'application/json', 'attacker.example', 403],
    ['GET', '/_sandbox/probes/faults/fault_x', 'another Host', 'application/json', 'attacker.example', 403],
  ])('%s %s: refuses %s, as every endpoint of the sandbox does', async (method, path, _, contentType, host, status) => {
    const { bot, sb } = await platform();
    const { sessionId } = await startConversation(sb);
    const result = await rawRequest(sb, {
      method,
      path,
      host: host === null ? `127.0.0.1:${sb.port}` : `${host}:${sb.port}`,
      contentType,
      body: method === 'POST' ? JSON.stringify({ sessionId, craft: 'signed' }) : undefined,
    });
    expect(result.status).toBe(status);
    expect(bot.requests).toHaveLength(0);
  });
});

describe('POST /_sandbox/probes/faults arms a one-shot fault on a thread', () => {
  const arm = (sb: { url: string }, body: Record<string, unknown>) =>
    call(sb, '/_sandbox/probes/faults', { body, token: null, tenant: null });

  it('answers the next answer naming the thread with 503 and Retry-After, once, and remembers its answerId', async () => {
    const sb = await sandbox();
    const { sessionId, coreClientId } = await startConversation(sb);
    const other = await startConversation(sb);
    const armed = await arm(sb, { sessionId });
    expect(armed.status).toBe(201);
    const { faultId } = armed.json as { faultId: string };
    expect(faultId).toMatch(/^fault_/);
    expect((await call(sb, `/_sandbox/probes/faults/${faultId}`)).json).toMatchObject({ triggered: false, answerId: null, status: 503n });

    // Another thread's answer is not touched.
    expect((await sendReply(sb, replyBody({ coreClientId: other.coreClientId, answerId: 'a-other' }))).status).toBe(200);
    const refused = await sendReply(sb, replyBody({ coreClientId, answerId: 'a-1' }));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(errorMessage(refused)).toMatch(
      /^injected fault: this answer is refused once with 503 \(fault_\S+, armed through POST \/_sandbox\/probes\/faults\); send it again with the same answerId$/,
    );
    const fired = (await call(sb, `/_sandbox/probes/faults/${faultId}`)).json;
    expect(fired).toMatchObject({ triggered: true, answerId: 'a-1', sessionId });
    // The refused request is on the conversation's record, and the next one goes through.
    const recorded = await eventOf(sb, (e) => e.sessionId === sessionId && (e as { status?: number }).status === 503, 'the refusal');
    expect(recorded).toMatchObject({ path: '/api/v1/chatbot' });
    expect((await sendReply(sb, replyBody({ coreClientId, answerId: 'a-1' }))).status).toBe(200);
  });

  it('names the thread by its sessionId, one of its questions or its client', async () => {
    const sb = await sandbox();
    const { sessionId } = await startConversation(sb);
    const asked = await call(sb, `/_sandbox/conversations/${sessionId}/messages`, { body: { text: 'hi' }, token: null, tenant: null });
    const { questionId, questionIndex } = asked.json as { questionId: bigint; questionIndex: bigint };
    for (const address of [{ questionId }, { sessionId, questionIndex }]) {
      await arm(sb, { sessionId });
      expect((await sendReply(sb, replyBody({ coreClientId: undefined, ...address }))).status).toBe(503);
    }
  });

  it.each([
    [{}, 400, /sessionId: must be a non-empty string/],
    [{ sessionId: 's-x', status: 404 }, 400, /^status: must be 429 or a status from 500 to 599/],
    [{ sessionId: 's-x', status: 600 }, 400, /^status: must be 429/],
    [{ sessionId: 's-x', when: 'now' }, 400, /^when: unknown field/],
    [{ sessionId: 's-nothing' }, 404, /^no conversation with sessionId 's-nothing'$/],
  ])('refuses %j with %i', async (body, status, message) => {
    const sb = await sandbox();
    const result = await arm(sb, body);
    expect(result.status).toBe(status);
    expect(errorMessage(result)).toMatch(message);
  });

  it.each([429, 500, 599])('takes status %i', async (status) => {
    const sb = await sandbox();
    const { sessionId, coreClientId } = await startConversation(sb);
    expect((await arm(sb, { sessionId, status })).status).toBe(201);
    expect((await sendReply(sb, replyBody({ coreClientId }))).status).toBe(status);
  });

  it('says 404 for a fault it does not know', async () => {
    const sb = await sandbox();
    const result = await call(sb, '/_sandbox/probes/faults/fault_nothing');
    expect(result.status).toBe(404);
    expect(errorMessage(result)).toBe("no fault 'fault_nothing'");
  });
});

describe('POST /_sandbox/probes/checks labels a conversation with the check it plays', () => {
  const label = (sb: { url: string }, body: Record<string, unknown>) =>
    call(sb, '/_sandbox/probes/checks', { body, token: null, tenant: null });
  const listedCheck = async (sb: { url: string }, sessionId: string) =>
    ((await call(sb, `/_sandbox/conversations/${sessionId}`, { token: null, tenant: null })).json as { conversation: { check: unknown } })
      .conversation.check;

  it('records a probe.check event, running first, then with the verdict, and lists the latest label with the conversation', async () => {
    const sb = await sandbox();
    const { sessionId } = await startConversation(sb);
    expect(await listedCheck(sb, sessionId)).toBeNull();
    const running = await label(sb, { sessionId, check: 'signature.tampered' });
    expect(running.status).toBe(200);
    expect(running.json).toMatchObject({ sessionId, check: 'signature.tampered', verdict: null, message: null });
    expect(await listedCheck(sb, sessionId)).toEqual({ check: 'signature.tampered', verdict: null, message: null });
    await label(sb, { sessionId, check: 'signature.tampered', verdict: 'fail', message: 'the bot accepted it (200)' });
    const event = await eventOf(sb, (e) => e.type === 'probe.check' && e.verdict !== null, 'the verdict');
    expect(event).toMatchObject({ type: 'probe.check', sessionId, check: 'signature.tampered', verdict: 'fail' });
    expect(await listedCheck(sb, sessionId)).toEqual({
      check: 'signature.tampered',
      verdict: 'fail',
      message: 'the bot accepted it (200)',
    });
  });

  it('keeps the label across a restart with a state file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-label-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'state.ndjson');
    const first = await sandbox({ state: file });
    const { sessionId } = await startConversation(first);
    await label(first, { sessionId, check: 'replay', verdict: 'pass', message: 'not answered again' });
    await first.close();
    const second = await sandbox({ state: file });
    expect(await listedCheck(second, sessionId)).toEqual({ check: 'replay', verdict: 'pass', message: 'not answered again' });
  });

  it.each([
    ['a check id of the longest length', { check: 'c'.repeat(MAX_CHECK_ID) }, 200],
    ['a check id one past it', { check: 'c'.repeat(MAX_CHECK_ID + 1) }, 400],
    ['a check id with a space', { check: 'signature tampered' }, 400],
    ['a message of the longest length', { message: 'm'.repeat(MAX_CHECK_MESSAGE), verdict: 'pass' }, 200],
    ['a message one past it', { message: 'm'.repeat(MAX_CHECK_MESSAGE + 1), verdict: 'pass' }, 400],
    ['a verdict that is neither pass nor fail', { verdict: 'maybe' }, 400],
    ['an unknown field', { craft: 'signed' }, 400],
    ['no sessionId', { sessionId: undefined }, 400],
  ])('takes or refuses %s', async (_, fields, status) => {
    const sb = await sandbox();
    const { sessionId } = await startConversation(sb);
    const body = Object.fromEntries(Object.entries({ sessionId, check: 'answers', ...fields }).filter(([, v]) => v !== undefined));
    expect((await label(sb, body)).status).toBe(status);
  });

  it('says 404 for a conversation it does not know', async () => {
    const sb = await sandbox();
    const result = await label(sb, { sessionId: 'no-such-session', check: 'answers' });
    expect(result.status).toBe(404);
    expect(errorMessage(result)).toContain("no conversation with sessionId 'no-such-session'");
  });
});
