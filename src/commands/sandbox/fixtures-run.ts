import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { requestJson } from '../../platform/http.js';
import { client, done, type AgentCommonOptions } from '../sandbox-client.js';

/**
 * `core sandbox seed FILE` and `core sandbox snapshot save|restore|list` (docs/sandbox.md, "Fixtures"
 * and "Snapshots"): one request each to a running sandbox at --sandbox URL (default CORE_BASE_URL),
 * as `core agent` talks to it. A refusal is exit 4 with the sandbox's message (a seed's problems
 * named by their paths in the file), no sandbox at the URL exit 6, bad usage 2.
 */

export type FixtureOptions = AgentCommonOptions;

/** A count as the lossless reader gives it (a bigint) or a number, with its noun. */
const plural = (n: number | bigint, noun: string) => `${n} ${noun}${Number(n) === 1 ? '' : 's'}`;

const tenantQuery = (options: FixtureOptions) =>
  options.global.tenant === undefined ? '' : `?tenant=${encodeURIComponent(options.global.tenant)}`;

interface SeededThread {
  tenant: string;
  sessionId: string;
  channel: string;
  subject: string | null;
  owner: string;
  questions: number | bigint;
  questionId: bigint | null;
  questionIndex: bigint | null;
}

export async function runSeed(options: FixtureOptions & { file: string }, ctx: Context): Promise<number> {
  const { readSeedFile } = await import('../../input/seed-read.js');
  const seed = await readSeedFile(options.file, ctx.cwd, 'seed');
  const http = client(options, ctx);
  const answer = await requestJson(http, 'POST', '/_sandbox/seed', seed);
  return done(answer, 201, `the seed ${options.file}`, options, ctx, (json: { threads: SeededThread[]; events: number | bigint }) =>
    [
      ...json.threads.map(
        (thread) =>
          `${thread.sessionId}  ${thread.channel}  ${plural(thread.questions, 'question')}` +
          `  with ${thread.owner === 'bot' ? 'the bot' : 'agents'}` +
          (thread.subject === null ? '' : `  subject ${JSON.stringify(thread.subject)}`) +
          `  tenant ${thread.tenant}`,
      ),
      `seeded ${plural(json.threads.length, 'thread')} (${plural(json.events, 'event')})`,
    ].join('\n'),
  );
}

function checkedName(name: string): string {
  if (name.trim() === '') throw new UsageError('the snapshot needs a name, such as core sandbox snapshot save checkout');
  return name;
}

interface SnapshotSummary {
  name: string;
  tenant: string;
  savedAt: string;
  events: number | bigint;
  conversations: number | bigint;
}

const summaryLine = (snapshot: SnapshotSummary) =>
  `${snapshot.name}  tenant ${snapshot.tenant}  ${plural(snapshot.conversations, 'conversation')}` +
  `  ${plural(snapshot.events, 'event')}  saved ${snapshot.savedAt}`;

export async function runSnapshotSave(options: FixtureOptions & { name: string }, ctx: Context): Promise<number> {
  const name = checkedName(options.name);
  const http = client(options, ctx);
  const answer = await requestJson(http, 'POST', `/_sandbox/snapshots${tenantQuery(options)}`, { name });
  return done(
    answer,
    201,
    `the snapshot ${name}`,
    options,
    ctx,
    (json: SnapshotSummary & { replaced: boolean }) => `${json.replaced ? 'replaced' : 'saved'} ${summaryLine(json)}`,
  );
}

export async function runSnapshotRestore(options: FixtureOptions & { name: string }, ctx: Context): Promise<number> {
  const name = checkedName(options.name);
  const http = client(options, ctx);
  const answer = await requestJson(http, 'POST', `/_sandbox/snapshots/${encodeURIComponent(name)}/restore${tenantQuery(options)}`, {});
  return done(
    answer,
    200,
    `restoring the snapshot ${name}`,
    options,
    ctx,
    (json: SnapshotSummary & { conversations: { sessionId: string; channel: string }[] }) =>
      [
        ...json.conversations.map((conversation) => `${conversation.sessionId}  ${conversation.channel}`),
        `restored ${json.name} in tenant ${json.tenant}: ${plural(json.conversations.length, 'conversation')}`,
      ].join('\n'),
  );
}

export async function runSnapshotList(options: FixtureOptions, ctx: Context): Promise<number> {
  const http = client(options, ctx);
  const answer = await requestJson(http, 'GET', `/_sandbox/snapshots${tenantQuery(options)}`);
  return done(answer, 200, 'the list of snapshots', options, ctx, (json: { snapshots: SnapshotSummary[] }) =>
    json.snapshots.length === 0 ? 'no snapshots' : json.snapshots.map(summaryLine).join('\n'),
  );
}
