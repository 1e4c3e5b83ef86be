/**
 * What the editor prompt (@inquirer/external-editor) uses of iconv-lite, on Node's own decoder: it
 * asks whether an encoding exists and decodes the edited file with the encoding chardet detected.
 * Node's TextDecoder (with the full ICU every official Node build has) knows the encodings chardet
 * names (UTF-8, UTF-16, ISO-8859-x, windows-125x, KOI8-R, Shift_JIS, EUC-JP, EUC-KR, GB18030, Big5),
 * so the prompt keeps its behaviour without the 500 KB of tables iconv-lite would add to the package.
 * tsup.config.ts puts this module in iconv-lite's place for that one importer.
 */

function decoderFor(encoding: string): InstanceType<typeof TextDecoder> | undefined {
  try {
    return new TextDecoder(encoding);
  } catch {
    return undefined;
  }
}

export function encodingExists(encoding: string): boolean {
  return decoderFor(encoding) !== undefined;
}

export function decode(bytes: Uint8Array, encoding: string): string {
  if (WINDOWS_1252.test(encoding)) return decodeWindows1252(bytes);
  return (decoderFor(encoding) ?? new TextDecoder('utf-8')).decode(bytes);
}

const WINDOWS_1252 = /^(windows-?1252|cp-?1252|x-cp1252)$/i;

/**
 * Node's TextDecoder reads windows-1252 as Latin-1, so bytes 0x80 to 0x9F (the euro sign, curly
 * quotes, dashes) would come back as control characters: they are mapped by hand, as iconv-lite does.
 */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

function decodeWindows1252(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += byte >= 0x80 && byte <= 0x9f ? CP1252_HIGH[byte - 0x80] : String.fromCharCode(byte);
  return text;
}

export default { encodingExists, decode };
