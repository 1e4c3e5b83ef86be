import { describe, expect, it } from 'vitest';
import { SandboxOptionsError, startSandbox } from '../../src/sandbox/server.js';
import { errorMessage, reasons, sandbox, updateReason } from './helpers.js';

const reason = (code: string, extra: Record<string, unknown> = {}) => ({
  code,
  reasons: [{ locale: 'en', name: `${code} name` }],
  ...extra,
});

describe('PUT /api/v1/inactivity/reasons', () => {
  it('starts every tenant with the built-in reasons, some active', async () => {
    const sb = await sandbox();
    const seeded = await reasons(sb);
    expect(seeded.map((r) => [r.code, r.reason.active])).toEqual([
      ['LUNCH', true],
      ['MEETING', true],
      ['TRAINING', false],
      ['OTHER', true],
    ]);
    expect(seeded.every((r) => r.reason.reasons.some((t) => t.locale === 'ru'))).toBe(true);
  });

  it('replaces the translations, colour and flags of an existing reason and answers 200 with no body', async () => {
    const sb = await sandbox();
    const update = { code: 'LUNCH', reasons: [{ locale: 'de', name: 'Mittagspause' }], color: '#ffffff', active: false, system: true };
    const result = await updateReason(sb, update);
    expect(result.status).toBe(200);
    expect(result.text).toBe('');

    const lunch = (await reasons(sb)).find((r) => r.code === 'LUNCH');
    expect(lunch?.reason).toEqual(update);
    expect(lunch?.requestId).toBe(result.headers.get('x-request-id'));
    expect(sb.lastApiLog()).toMatch(/ 200 \S+ reason updated code=LUNCH active=false$/);
  });

  it('drops a colour the update leaves out, since an update replaces the reason', async () => {
    const sb = await sandbox();
    expect((await updateReason(sb, reason('LUNCH'))).status).toBe(200);
    const lunch = (await reasons(sb)).find((r) => r.code === 'LUNCH');
    expect(lunch?.reason.color).toBeUndefined();
  });

  it('makes a reason active when the update leaves out active (the default is true)', async () => {
    const sb = await sandbox();
    expect((await updateReason(sb, reason('TRAINING'))).status).toBe(200);
    expect((await reasons(sb)).find((r) => r.code === 'TRAINING')?.reason.active).toBe(true);
  });

  it('answers 404 with a message naming an unknown code (reason rule 1)', async () => {
    const sb = await sandbox();
    const result = await updateReason(sb, reason('VACATION'));
    expect(result.status).toBe(404);
    expect(result.headers.get('content-type')).toBe('application/json');
    expect(errorMessage(result)).toContain('VACATION');
  });

  it('answers 409 when the update would exceed the limit of active reasons (reason rule 2), and changes nothing', async () => {
    const sb = await sandbox({ maxActiveReasons: 3 });
    const before = await reasons(sb);
    const result = await updateReason(sb, reason('TRAINING', { active: true }));
    expect(result.status).toBe(409);
    expect(errorMessage(result)).toMatch(/would make 4 active, the limit is 3/);
    expect(await reasons(sb)).toEqual(before);
  });

  it.each([
    { name: 'keeps an active reason active at the limit', update: reason('LUNCH', { active: true }), status: 200 },
    { name: 'deactivates a reason at the limit', update: reason('LUNCH', { active: false }), status: 200 },
    { name: 'activates one more past the limit', update: reason('TRAINING'), status: 409 },
  ])('with 3 of 3 active: $name', async ({ update, status }) => {
    const sb = await sandbox({ maxActiveReasons: 3 });
    expect((await updateReason(sb, update)).status).toBe(status);
  });

  it('answers 400 listing the problems of an invalid reason', async () => {
    const sb = await sandbox();
    const result = await updateReason(sb, { code: 'LUNCH', reasons: [{ locale: 'english', name: 'x'.repeat(51) }], color: 'red' });
    expect(result.status).toBe(400);
    const message = errorMessage(result);
    for (const path of ['reasons[0].locale', 'reasons[0].name', 'color']) expect(message).toContain(`${path}: `);
  });

  it('starts from the reasons given in the options', async () => {
    const sb = await sandbox({ reasons: [reason('BREAK', { active: false })] });
    expect((await reasons(sb)).map((r) => r.code)).toEqual(['BREAK']);
    expect((await updateReason(sb, reason('LUNCH'))).status).toBe(404);
    expect((await updateReason(sb, reason('BREAK'))).status).toBe(200);
  });

  it.each([
    { name: 'an invalid reason', seed: [{ code: 'X', reasons: [], color: 'blue' }], path: /reasons\[0\]\.color/ },
    { name: 'a code given twice', seed: [reason('A'), reason('A')], path: /reasons\[1\]\.code/ },
    { name: 'more active reasons than the limit', seed: [reason('A'), reason('B')], path: /2 reasons are active/, max: 1 },
  ])('refuses to start with $name', async ({ seed, path, max }) => {
    const start = startSandbox({ reasons: seed, maxActiveReasons: max ?? 10 });
    await expect(start).rejects.toBeInstanceOf(SandboxOptionsError);
    await expect(start).rejects.toThrow(path);
  });
});
