/**
 * XML 1.0 text and attribute values, for the JUnit reports of `core test` and `core check-bot`.
 * XML allows tab, line feed, carriage return and the characters from U+0020 on, less the surrogates
 * and U+FFFE/U+FFFF; a bot's text may hold anything, so the rest is written as U+FFFD.
 */

// eslint-disable-next-line no-control-regex
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A value as XML character data. */
export function xmlText(value: string): string {
  return value.replace(NOT_XML, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A value inside a double-quoted attribute; line breaks and tabs kept as character references. */
export function xmlAttr(value: string): string {
  return xmlText(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
