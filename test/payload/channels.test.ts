import { describe, expect, it } from 'vitest';
import { CHANNEL_LIST, CHANNEL_PATTERN, CHANNELS, channelNamed, channelOf, notAChannel } from '../../src/payload/channels.js';
import { jsonSchemaOf } from '../../src/schema/json-schema.js';
import { validateTestFile } from '../../src/testing/schema.js';
import { jsonSchemaValidator } from '../helpers/json-schema.js';

/**
 * The one reading of a channel's name (src/payload/channels.ts) that `core customer --channel`, a
 * `core test` file, the library and POST /_sandbox/conversations share: any case, the canonical
 * name out, and a refusal that lists the canonical names.
 */

const NAMED = [
  ['WEB', 'WEB'],
  ['web', 'WEB'],
  ['Web', 'WEB'],
  ['IM', 'IM'],
  ['im', 'IM'],
  ['iM', 'IM'],
  ['EMAIL', 'EMAIL'],
  ['email', 'EMAIL'],
  ['eMaIl', 'EMAIL'],
] as const;

const NOT_NAMED = [
  ['another channel', 'SMS'],
  ['an empty name', ''],
  ['a name with a space', ' IM'],
  ['a name with a line break', 'IM\n'],
  ['a part of a name', 'EMAI'],
  ['a name and more', 'IMS'],
  ['the dotless ı, which upper-cases to I', 'ım'],
  ['the dotted İ, which lower-cases to i and a dot', 'İM'],
  ['the long ſ, which upper-cases to S', 'ſms'],
] as const;

describe("a channel's name", () => {
  it.each(NAMED)('%s is the channel %s', (name, channel) => {
    expect(channelNamed(name)).toBe(channel);
    expect(channelOf(name)).toBe(channel);
  });

  it.each(NOT_NAMED)('%s (%j) names no channel', (_, name) => {
    expect(channelNamed(name)).toBeUndefined();
  });

  it.each([
    ['null', null],
    ['nothing', undefined],
    ['a number', 1n],
    ['a list', ['IM']],
    ['an object', { channel: 'IM' }],
  ])('%s is not a name', (_, value) => {
    expect(channelOf(value)).toBeUndefined();
  });

  it.each([
    ['SMS', '"SMS" is not a channel: use WEB, IM or EMAIL (in any case)'],
    [5n, '5 is not a channel: use WEB, IM or EMAIL (in any case)'],
    [null, 'null is not a channel: use WEB, IM or EMAIL (in any case)'],
    [['IM'], 'an array is not a channel: use WEB, IM or EMAIL (in any case)'],
  ])('refuses %s listing the canonical names', (value, message) => {
    expect(notAChannel(value)).toBe(message);
  });

  it('lists the channels in words from the one constant', () => {
    expect(CHANNELS).toEqual(['WEB', 'IM', 'EMAIL']);
    expect(CHANNEL_LIST).toBe('WEB, IM or EMAIL');
  });
});

describe("the test file's JSON Schema and core agree on a channel's name", () => {
  const validate = jsonSchemaValidator(jsonSchemaOf('test'));
  const file = (channel: string) => ({ channel, steps: [{ customer: 'Hi' }] });

  it.each([...NAMED.map(([name]) => [name] as const), ...NOT_NAMED.map(([, name]) => [name] as const)])('%j', (name) => {
    const core = validateTestFile(file(name)).ok;
    expect({ schema: validate(file(name)).length === 0, core }).toEqual({ schema: core, core: channelNamed(name) !== undefined });
    expect(new RegExp(CHANNEL_PATTERN).test(name)).toBe(core);
  });
});
