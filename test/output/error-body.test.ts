import { describe, expect, it } from 'vitest';
import { errorBodyOf, htmlSummary } from '../../src/output/result.js';

/**
 * An error body that is an HTML page is said in one line in the human view (src/output/render.ts,
 * with htmlSummary of src/output/result.ts); the JSON result keeps the raw body cut to 2 KB, as the
 * contract says of a body that is not JSON.
 */

describe('an HTML error body', () => {
  it.each<[string, string, string | undefined, string | undefined]>([
    [
      "nginx's 502 page",
      '<html>\n<head><title>502 Bad Gateway</title></head>\n<body><h1>502 Bad Gateway</h1></body></html>',
      undefined,
      'an HTML page from the server: 502 Bad Gateway',
    ],
    [
      'a doctype, entities in the title',
      '<!DOCTYPE html><html><title>Service &amp; more &#8212; down&nbsp;now</title></html>',
      undefined,
      'an HTML page from the server: Service & more — down now',
    ],
    [
      'no title: the first heading',
      '<html><body><h1>Gateway <em>Timeout</em></h1></body></html>',
      undefined,
      'an HTML page from the server: Gateway Timeout',
    ],
    [
      'an empty title: the first heading',
      '<html><title>  </title><h1>Bad Gateway</h1></html>',
      undefined,
      'an HTML page from the server: Bad Gateway',
    ],
    ['neither title nor heading', '<html><body><p>oops</p></body></html>', undefined, 'an HTML page from the server (no title)'],
    ['a fragment sent as text/html', '<p>Sign in</p>', 'text/html; charset=utf-8', 'an HTML page from the server (no title)'],
    ['a 200-character title, whole', `<title>${'a'.repeat(200)}</title>`, 'text/html', `an HTML page from the server: ${'a'.repeat(200)}`],
    ['a 201-character title, cut', `<title>${'a'.repeat(201)}</title>`, 'text/html', `an HTML page from the server: ${'a'.repeat(200)}…`],
    ['plain text', 'upstream connect error', 'text/plain', undefined],
    ['text that mentions <html> further on', 'error: got <html> where JSON was due', undefined, undefined],
    ['JSON', '{"message":"no"}', 'application/json', undefined],
  ])('%s', (_name, body, type, expected) => {
    expect(htmlSummary(body, type)).toBe(expected);
  });

  it('keeps the raw page in the result, and a JSON Error body as it is', () => {
    const page = { body: '<html><title>502 Bad Gateway</title></html>', truncated: false, headers: { 'content-type': 'text/html' } };
    expect(errorBodyOf(page)).toEqual({ message: '<html><title>502 Bad Gateway</title></html>' });
    expect(errorBodyOf({ body: '{"message":"no such question"}', truncated: false })).toEqual({ message: 'no such question' });
  });
});
