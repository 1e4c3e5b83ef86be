import { describe, expect, it } from 'vitest';
import { decode, encodingExists } from '../../src/vendor/iconv-lite-stand-in.js';

/**
 * The editor prompt (-i, a long text) reads back the file the user's editor saved, in the encoding
 * chardet detects; Node's TextDecoder stands in for iconv-lite there (tsup.config.ts). These are the
 * encodings chardet names, each read back as the editor wrote it.
 */
describe("the editor prompt's decoding of the edited file", () => {
  it.each([
    ['UTF-8', Buffer.from('Grüße 👋', 'utf8'), 'Grüße 👋'],
    ['UTF-16LE', Buffer.from('Grüße', 'utf16le'), 'Grüße'],
    ['ISO-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'café'],
    ['windows-1252', Buffer.from([0x80, 0x20, 0x35, 0x20, 0x93, 0x71, 0x94, 0x20, 0x96, 0x20, 0xe9]), '€ 5 “q” – é'],
    ['windows-1251', Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]), 'Привет'],
    ['KOI8-R', Buffer.from([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]), 'Привет'],
    ['Shift_JIS', Buffer.from([0x82, 0xb1, 0x82, 0xf1, 0x82, 0xc9, 0x82, 0xbf, 0x82, 0xcd]), 'こんにちは'],
    ['EUC-KR', Buffer.from([0xbe, 0xc8, 0xb3, 0xe7]), '안녕'],
    ['GB18030', Buffer.from([0xc4, 0xe3, 0xba, 0xc3]), '你好'],
    ['Big5', Buffer.from([0xa7, 0x41, 0xa6, 0x6e]), '你好'],
  ])('reads %s', (encoding, bytes, text) => {
    expect(encodingExists(encoding)).toBe(true);
    expect(decode(bytes, encoding)).toBe(text);
  });

  it('says an unknown encoding does not exist, and reads it as UTF-8 if asked anyway', () => {
    expect(encodingExists('x-no-such-encoding')).toBe(false);
    expect(decode(Buffer.from('plain'), 'x-no-such-encoding')).toBe('plain');
  });
});
