import { getEventListeners } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SandboxConnection as TestClient } from '../../src/platform/connection.js';
import { inProcessConnection as inProcessClient } from '../../src/platform/in-process.js';
import { httpConnection as httpClient } from '../../src/platform/over-http.js';
import { startLocalSandbox, type LocalSandbox } from '../../src/sandbox/server.js';
import { listFiles, loadTests } from '../../src/testing/load.js';
import { runSuite, type ConversationSummary } from '../../src/testing/suite.js';
import { startRecordingServer } from '../helpers/recording-server.js';
import type { TestSandbox } from '../sandbox/helpers.js';
import { messageOf, reply, testFolder } from './platform.js';

/**
 * The two ways `core test` reaches the customer's side: directly on the handle of the sandbox it
 * started (--bot-url), and over HTTP (--sandbox URL). Played against the same bot, the same table
 * of conversations gives the same results either way; neither leaves a listener on the Ctrl-C
 * signal, however many conversations ran.
 */

async function platform() {
  let sb!: LocalSandbox;
  const bot = await startRecordingServer((request) => {
    const message = messageOf(request);
    const fields: Record<string, unknown> = /order/.test(message.text)
      ? { text: `Order ${message.questionId} is on its way.` }
      : /button/.test(message.text)
        ? { text: 'Pick one', quickReplies: [{ type: 'TEXT', text: 'Yes' }] }
        : /quiet/.test(message.text)
          ? {}
          : { text: `You said: ${message.text}` };
    if (Object.keys(fields).length === 0) return { status: 200 };
    return { status: 200, until: reply(sb as unknown as TestSandbox, message, fields) };
  });
  onTestFinished(() => bot.close());
  sb = await startLocalSandbox({ botUrl: `${bot.url}/webhook`, webhookBackoffMs: 0 });
  onTestFinished(() => sb.close());
  return sb;
}

const suite = `name: both ways
conversations:
  - name: an echo
    steps: [{customer: hi}, {bot: {text: "You said: hi"}}]
  - name: a wrong answer
    steps: [{customer: hi}, {bot: {text: "Goodbye"}}]
  - name: a capture, used later
    steps:
      - customer: my order
      - bot: {text: /^Order \\d+/}
        capture: {ORDER: /Order (\\d+)/}
      - customer: "where is \${ORDER}"
      - bot: {text: "You said: where is \${ORDER}"}
  - name: a press
    steps: [{customer: a button please}, {bot: {text: Pick one}}, {press: "Yes"}, {bot: {text: "You said: Yes"}}]
  - name: a press of a button not offered
    steps: [{customer: a button please}, {bot: {text: Pick one}}, {press: "No"}]
  - name: silence expected, an answer came
    steps: [{customer: hi}, {bot: none, within: 2s}]
  - name: silence
    steps: [{customer: quiet}, {bot: none, within: 100ms}]
  - name: an answer no step expects
    steps: [{customer: hi}]
`;

/** What a report shows of a conversation, without what differs from run to run (ids, times). */
function shown(summary: ConversationSummary) {
  const run = summary.shown;
  return {
    name: summary.name,
    runs: summary.runs,
    failedRuns: summary.failedRuns,
    latencies: summary.latency.n,
    failure: run.failure && { ...run.failure, message: run.failure.message.replace(/\d{3,}/g, 'N'), received: undefined },
    received: JSON.stringify(run.failure?.received, (_, value: unknown) => (typeof value === 'bigint' ? Number(value) : value))?.replace(
      /\d{3,}/g,
      'N',
    ),
    steps: run.steps.map((step) => [step.title.replace(/\d{3,}/g, 'N'), step.outcome]),
  };
}

async function play(client: TestClient, repeat = 1) {
  const folder = testFolder({ 'suite.yaml': suite });
  const [file] = await loadTests(await listFiles(['suite.yaml'], folder), folder);
  const result = await runSuite(file!.conversations, { runner: { sandbox: client, stepTimeoutMs: 10_000 }, concurrency: 4, repeat });
  return { summaries: result.summaries.map(shown), coverage: Object.fromEntries(result.coverage) };
}

describe('the customer side of core test, in process and over HTTP', () => {
  it('gives the same results on the same table of conversations', async () => {
    const sb = await platform();
    const signal = new AbortController().signal;
    const direct = inProcessClient(sb, signal);
    const overHttp = httpClient(sb.url, 30_000, signal, 4);
    try {
      const inProcess = await play(direct);
      const http = await play(overHttp);
      expect(inProcess.summaries.map((s) => [s.name, s.failedRuns])).toEqual([
        ['an echo', 0],
        ['a wrong answer', 1],
        ['a capture, used later', 0],
        ['a press', 0],
        ['a press of a button not offered', 1],
        ['silence expected, an answer came', 1],
        ['silence', 0],
        ['an answer no step expects', 1],
      ]);
      expect(http).toEqual(inProcess);
    } finally {
      direct.close();
      overHttp.close();
    }
  });

  it.each([
    ['in process', (sb: LocalSandbox, signal: AbortSignal) => inProcessClient(sb, signal)],
    ['over HTTP', (sb: LocalSandbox, signal: AbortSignal) => httpClient(sb.url, 30_000, signal, 4)],
  ])('%s, adds one listener to the Ctrl-C signal whatever the number of conversations, and none is left once closed', async (_, make) => {
    const sb = await platform();
    const controller = new AbortController();
    const client = make(sb, controller.signal);
    const counts: number[] = [];
    for (const repeat of [1, 5]) {
      await play(client, repeat);
      counts.push(getEventListeners(controller.signal, 'abort').length);
    }
    // 8 conversations, then 40, at 4 at once: the same listeners after either.
    expect(counts[1]).toBe(counts[0]);
    expect(counts[0]).toBeLessThanOrEqual(2);
    client.close();
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
  });
});
