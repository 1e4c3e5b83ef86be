import { describe, expect, it } from 'vitest';
import { validateGreeting } from '../../src/payload/index.js';
import { expectOnly, expectValid, fullGreeting, problemsOf } from './fixtures.js';

const deprecated = { path: 'clientId', message: 'deprecated: use coreClientId, which fits every client' };
const priority = {
  path: 'clientId',
  message: "takes priority over coreClientId when both are given (the API's greet rule 3); send only coreClientId",
};

describe('a greeting', () => {
  it('passes with text and coreClientId, without warnings', () => {
    const result = validateGreeting({ text: 'Welcome!', coreClientId: 1n });
    expectValid(result);
    expect(result.warnings).toEqual([]);
  });

  it('passes with every field', () => {
    expectValid(validateGreeting({ ...fullGreeting(), receivedAt: '2026-01-31T09:30:00.000Z' }));
  });

  it('accepts settings.masked, which a greeting-style example sends', () => {
    expectValid(validateGreeting({ text: 'Hi', coreClientId: 1n, settings: { masked: true } }));
  });

  it.each([
    ['no text', { coreClientId: 1n }, 'text', 'required'],
    ['an empty text', { text: '', coreClientId: 1n }, 'text', 'must not be empty'],
    ['formattedText, which a greeting does not have', { formattedText: 'Hi', coreClientId: 1n }, 'formattedText', 'unknown field'],
  ])('fails with %s', (_, payload, path, message) => {
    expect(problemsOf(validateGreeting(payload))).toContainEqual({ path, message });
  });

  it('fails a receivedAt that is not a real date', () => {
    expectOnly(
      validateGreeting({ text: 'Hi', coreClientId: 1n, receivedAt: '2026-02-30T00:00:00.000Z' }),
      'receivedAt',
      'not a real date and time, got "2026-02-30T00:00:00.000Z"',
    );
  });
});

describe('the greeting addressee: clientId or coreClientId (rules 1 to 3)', () => {
  it('fails with neither, on the whole value', () => {
    expectOnly(
      validateGreeting({ text: 'Hi' }),
      '',
      "no addressee: give coreClientId (or the deprecated clientId) (the API's greet rule 1)",
    );
  });

  it('fails with neither even when only a sessionId is given, which a greeting does not know', () => {
    expect(problemsOf(validateGreeting({ text: 'Hi', sessionId: 's' }))).toEqual([
      { path: '', message: "no addressee: give coreClientId (or the deprecated clientId) (the API's greet rule 1)" },
      { path: 'sessionId', message: 'unknown field' },
    ]);
  });

  it('passes with coreClientId, without warnings', () => {
    expect(validateGreeting({ text: 'Hi', coreClientId: 5n })).toEqual({ ok: true, value: { text: 'Hi', coreClientId: 5n }, warnings: [] });
  });

  it('passes with clientId, warning that it is deprecated', () => {
    const result = validateGreeting({ text: 'Hi', clientId: 'ext-1' });
    expectValid(result);
    expect(result.warnings).toEqual([deprecated]);
  });

  it('passes with both, warning that clientId is deprecated and takes priority', () => {
    const result = validateGreeting({ text: 'Hi', clientId: 'ext-1', coreClientId: 5n });
    expectValid(result);
    expect(result.warnings).toEqual([deprecated, priority]);
  });

  it('fails an empty clientId, and still warns', () => {
    const result = validateGreeting({ text: 'Hi', clientId: '' });
    expectOnly(result, 'clientId', 'must not be empty');
    expect(result.warnings).toEqual([deprecated]);
  });

  it('fails a coreClientId out of range', () => {
    expectOnly(
      validateGreeting({ text: 'Hi', coreClientId: -1n }),
      'coreClientId',
      'expected an integer from 0 to 9,223,372,036,854,775,807, got -1',
    );
  });
});
