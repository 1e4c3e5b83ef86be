import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/schema.js';
import type { Problem } from '../../src/errors.js';
import { stringifyJson, validateGreeting, validateReason, validateReply } from '../../src/payload/index.js';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { deep, hostile, jsonish, nested, shaped, validGreeting, validReason, validReply } from './arbitraries.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

/**
 * Hostile input, by property: whatever JSON value reaches a validator, it answers with a valid
 * payload or a list of problems, and never throws; valid payloads built from the API's bounds
 * are always accepted, and reach the service byte for byte as stringifyJson writes them.
 */

type Outcome = { ok: true } | { ok: false; problems: Problem[] };

const validators: Array<[string, (value: unknown) => Outcome]> = [
  ['validateReply', (value) => validateReply(value)],
  [
    'validateReply (email, limits)',
    (value) => validateReply(value, { email: true, limits: { maxQuickReplies: 2, maxQuickReplyLength: 20 } }),
  ],
  ['validateGreeting', (value) => validateGreeting(value)],
  ['validateReason', (value) => validateReason(value)],
  [
    'validateConfig',
    (value) => {
      const result = validateConfig(value);
      return result.config === undefined ? { ok: false, problems: result.problems } : { ok: true };
    },
  ],
];

/** A validator's answer is a value, or problems that each have a path and a message; no exception, no catch-all. */
function expectAnswer(outcome: Outcome): void {
  if (outcome.ok) return;
  expect(outcome.problems.length).toBeGreaterThan(0);
  for (const problem of outcome.problems) {
    expect(typeof problem.path).toBe('string');
    expect(typeof problem.message).toBe('string');
    expect(problem.message.length).toBeGreaterThan(0);
    // The catch-all of src/payload/validate.ts: a validator that threw inside.
    expect(problem.message).not.toMatch(/^could not be validated/);
  }
}

describe.each(validators)('%s on hostile input', (_name, validate) => {
  it('answers any JSON value (with bigints and odd keys) with a value or problems, never an exception', () => {
    fc.assert(
      fc.property(jsonish, (value) => expectAnswer(validate(value))),
      { numRuns: 400 },
    );
  });

  it("answers objects keyed by the payloads' own fields, holding hostile values", () => {
    fc.assert(
      fc.property(shaped, (value) => expectAnswer(validate(value))),
      { numRuns: 400 },
    );
  });

  it('answers deep nesting, at the top and inside every field', () => {
    fc.assert(
      fc.property(deep, (value) => expectAnswer(validate(value))),
      { numRuns: 20 },
    );
    for (const inObject of [false, true]) {
      const bottom = nested(50_000, inObject);
      expectAnswer(validate(bottom));
      for (const key of ['text', 'attachments', 'quickReplies', 'segmentationInfo', 'reasons', 'profiles', 'messageListPicker']) {
        expectAnswer(validate({ [key]: bottom }));
        expectAnswer(
          validate({
            text: 'x',
            coreClientId: 1n,
            code: 'x',
            [key]: [{ url: 'https://a.b/c', size: bottom, payload: bottom, type: 'TEXT', text: 'x' }],
          }),
        );
      }
    }
  });

  it('answers the config schema inside a profile, and the payloads inside a config', () => {
    fc.assert(
      fc.property(hostile, (value) => expectAnswer(validate({ profiles: { p: value }, defaultProfile: 'p' }))),
      { numRuns: 200 },
    );
  });
});

describe("valid payloads, generated from the API's bounds", () => {
  it.each<[string, fc.Arbitrary<Record<string, unknown>>, (value: unknown) => { ok: boolean; problems?: Problem[] }]>([
    ['bot answers', validReply, (value) => validateReply(value)],
    ['greetings', validGreeting, (value) => validateGreeting(value)],
    ['inactivity reasons', validReason, (value) => validateReason(value)],
  ])('are always accepted: %s', (_name, arbitrary, validate) => {
    fc.assert(
      fc.property(arbitrary, (payload) => {
        const result = validate(payload);
        expect(result.problems ?? []).toEqual([]);
        expect(result.ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('stay valid through the JSON the CLI writes and reads', async () => {
    const { parseJson } = await import('../../src/payload/json.js');
    fc.assert(
      fc.property(validReply, (payload) => {
        expect(validateReply(parseJson(stringifyJson(payload))).ok).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('valid payloads sent with -f FILE reach the service byte for byte', () => {
  let server: RecordingServer;
  let dir: string;
  beforeAll(async () => {
    server = await startRecordingServer();
    dir = mkdtempSync(join(tmpdir(), 'core-roundtrip-'));
  });
  afterAll(() => server.close());

  it.each<[string, fc.Arbitrary<Record<string, unknown>>, string[], number]>([
    ['core reply', validReply, ['reply'], 25],
    ['core greet', validGreeting, ['greet'], 10],
    ['core reason update', validReason, ['reason', 'update'], 10],
  ])('%s -f', async (_name, arbitrary, command, numRuns) => {
    const env = baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: 'roundtrip-token' });
    await fc.assert(
      fc.asyncProperty(arbitrary, async (payload) => {
        const file = join(dir, 'payload.json');
        const expected = stringifyJson(payload);
        writeFileSync(file, expected);
        const before = server.requests.length;
        const run = await runInProcess([...command, '-f', file, '--json'], { env, cwd: dir });
        expect(run.stderr.split('\n').filter((line) => line.startsWith('error'))).toEqual([]);
        expect(run.code).toBe(0);
        expect(server.requests.length).toBe(before + 1);
        expect(server.requests.at(-1)!.body.toString('utf8')).toBe(expected);
        expect(Buffer.compare(server.requests.at(-1)!.body, Buffer.from(expected, 'utf8'))).toBe(0);
      }),
      { numRuns },
    );
  });
});
