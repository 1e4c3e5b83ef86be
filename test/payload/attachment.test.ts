import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { attachmentSchema, validateReply } from '../../src/payload/index.js';

/** An attachment of a bot answer (src/payload/attachment.ts): its JSON Schema and its warning. */

const withAttachment = (attachment: unknown) => ({ text: 'Hi', coreClientId: 1n, attachments: [attachment] });
const NO_EXTENSION = (name: string) =>
  `the name ${JSON.stringify(name)} has no file extension and no type is given: an image may not display; add the extension or the MIME type`;
const NO_NAME = 'there is no name and no type is given: an image may not display; add the extension or the MIME type';

describe('the warning about an image that may not display', () => {
  it.each([
    ['an extension in the middle of the name only', 'photo.png copy', NO_EXTENSION('photo.png copy')],
    ['a dot at the end', 'photo.', NO_EXTENSION('photo.')],
    ['a hidden file in a folder', 'images/.png', NO_EXTENSION('images/.png')],
    ['a name that is not a string, even one written like a file', ['photo.png'], NO_NAME],
  ])('%s', (_, name, message) => {
    expect(validateReply(withAttachment({ url: 'https://x.io/a', name })).warnings).toEqual([{ path: 'attachments[0]', message }]);
  });

  it.each([['photo.png'], ['archive.tar.gz'], ['clip.mp4'], ['a.b']])('none for %s', (name) => {
    expect(validateReply(withAttachment({ url: 'https://x.io/a', name })).warnings).toEqual([]);
  });

  it('none for an attachment that is not an object, which is an error instead', () => {
    expect(validateReply(withAttachment(null))).toEqual({
      ok: false,
      problems: [{ path: 'attachments[0]', message: 'expected an object, got null' }],
      warnings: [],
    });
  });
});

describe('the JSON Schema', () => {
  it('gives the url the uri format', () => {
    const schema = z.toJSONSchema(attachmentSchema) as unknown as { properties: { url: Record<string, unknown> } };
    expect(schema.properties.url).toMatchObject({ type: 'string', format: 'uri', minLength: 1, maxLength: 4000 });
  });
});
