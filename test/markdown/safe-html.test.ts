import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSafeHtmlRenderer, markdownToSafeHtml, SAFE_ATTRIBUTES, SAFE_SCHEMES, SAFE_TAGS } from '../../src/markdown/safe-html.js';

/**
 * A reply's Markdown (formattedText) as the sandbox's page draws it: HTML with an allow-list of tags
 * and attributes, links only to http, https and mailto, everything else escaped text
 * (docs/sandbox.md, "The page", and docs/security.md).
 */

/**
 * Every piece of markup in `html`, checked against the allow-list: each `<` starts a tag of
 * SAFE_TAGS with only its SAFE_ATTRIBUTES (double-quoted values without `<` or `"`), and each href is
 * an absolute URL of a safe scheme. Throws naming the first thing that is not.
 */
function checkMarkup(html: string): void {
  const tag = /<(\/?)([a-z0-9]+)((?: [a-z]+="[^"<>]*")*)>/y;
  for (let i = html.indexOf('<'); i !== -1; i = html.indexOf('<', i + 1)) {
    tag.lastIndex = i;
    const match = tag.exec(html);
    if (match === null) throw new Error(`markup that is not an allowed tag at ${i}: ${html.slice(i, i + 40)}`);
    const [, closing, name, attributes] = match as unknown as [string, string, string, string];
    if (!(SAFE_TAGS as readonly string[]).includes(name)) throw new Error(`tag <${name}> is not allowed`);
    for (const [, attribute, value] of attributes.matchAll(/ ([a-z]+)="([^"]*)"/g)) {
      if (closing || !(SAFE_ATTRIBUTES[name] ?? []).includes(attribute!)) throw new Error(`attribute ${attribute} on <${name}>`);
      if (attribute === 'href' && !SAFE_SCHEMES.includes(new URL(value!.replaceAll('&amp;', '&')).protocol)) {
        throw new Error(`href ${value}`);
      }
    }
  }
  // No character reference written by the Markdown survives as markup: only our own escapes.
  expect(html).not.toMatch(/&(?!amp;|lt;|gt;|quot;|#39;)/);
}

describe('Markdown to safe HTML', () => {
  it.each([
    [
      'emphasis, strong and strikethrough',
      'A *very* **good** ~~bad~~ day',
      '<p>A <em>very</em> <strong>good</strong> <del>bad</del> day</p>',
    ],
    ['a heading is a bold paragraph', '# Your order', '<p><strong>Your order</strong></p>'],
    [
      'an http link opens in a new tab, without the opener or a referrer',
      'Track it [here](https://example.com/t/1).',
      '<p>Track it <a href="https://example.com/t/1" rel="noopener noreferrer" target="_blank">here</a>.</p>',
    ],
    [
      'a mailto link',
      '[support](mailto:help@example.com)',
      '<p><a href="mailto:help@example.com" rel="noopener noreferrer" target="_blank">support</a></p>',
    ],
    [
      'an autolink',
      'See https://example.com/faq?a=1&b=2',
      '<p>See <a href="https://example.com/faq?a=1&amp;b=2" rel="noopener noreferrer" target="_blank">https://example.com/faq?a=1&amp;b=2</a></p>',
    ],
    [
      'an image is a link to it, named by its alt text',
      '![the parcel](https://example.com/p.png)',
      '<p><a href="https://example.com/p.png" rel="noopener noreferrer" target="_blank">the parcel</a></p>',
    ],
    ['an ordered list keeps its start', '3. third\n4. fourth', '<ol start="3"><li>third</li><li>fourth</li></ol>'],
    ['an unordered list', '- milk\n- *bread*', '<ul><li>milk</li><li><em>bread</em></li></ul>'],
    ['a task list shows its boxes as characters', '- [x] paid\n- [ ] shipped', '<ul><li>\u2611 paid</li><li>\u2610 shipped</li></ul>'],
    ['inline code is escaped as written', 'Run `a<b && c`', '<p>Run <code>a&lt;b &amp;&amp; c</code></p>'],
    ['a code block ignores its language', '```html\n<b>x</b>\n```', '<pre><code>&lt;b&gt;x&lt;/b&gt;</code></pre>'],
    [
      'a table',
      '| Item | Qty |\n|---|---:|\n| Tea | 2 |',
      '<table><thead><tr><th>Item</th><th>Qty</th></tr></thead><tbody><tr><td>Tea</td><td>2</td></tr></tbody></table>',
    ],
    ['a quote', '> Where is my order?', '<blockquote><p>Where is my order?</p></blockquote>'],
    ['character references are read once and escaped again', 'Fish &amp; chips &lt;3 &#65;', '<p>Fish &amp; chips &lt;3 A</p>'],
    ['a hard line break', 'Line one  \nLine two', '<p>Line one<br>Line two</p>'],
    ['a thematic break', 'Above\n\n---\n\nBelow', '<p>Above</p><hr><p>Below</p>'],
  ])('%s', async (_name, markdown, html) => {
    expect(await markdownToSafeHtml(markdown)).toBe(html);
  });
});

describe('hostile Markdown', () => {
  it.each([
    ['a script element is shown as text', '<script>window.pwned = 1</script>', '<p>&lt;script&gt;window.pwned = 1&lt;/script&gt;</p>'],
    ['an inline script element is shown as text', 'Hi <script>alert(1)</script>', '<p>Hi &lt;script&gt;alert(1)&lt;/script&gt;</p>'],
    ['an image with onerror is shown as text', '<img src=x onerror="alert(1)">', '<p>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</p>'],
    [
      'an element with an event handler is shown as text',
      'a <b onmouseover=alert(1)>b</b>',
      '<p>a &lt;b onmouseover=alert(1)&gt;b&lt;/b&gt;</p>',
    ],
    ['a javascript: link is its text', '[click](javascript:alert(1))', '<p>click</p>'],
    ['a javascript: link in mixed case is its text', '[click](JaVaScRiPt:alert(1))', '<p>click</p>'],
    ['a javascript: link behind spaces is its text', '[click](<  javascript:alert(1)>)', '<p>click</p>'],
    ['a javascript: autolink is its text', '<javascript:alert(1)>', '<p>javascript:alert(1)</p>'],
    ['a data: link is its text', '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)', '<p>click</p>'],
    ['a vbscript: link is its text', '[click](vbscript:msgbox(1))', '<p>click</p>'],
    ['a relative link is its text', '[home](/_sandbox/reset)', '<p>home</p>'],
    ['a javascript: image is its alt text', '![x](javascript:alert(1))', '<p>x</p>'],
    [
      'a quote in a link target cannot close the attribute',
      '[x](https://example.com/"onmouseover="alert(1))',
      '<p><a href="https://example.com/%22onmouseover=%22alert(1)" rel="noopener noreferrer" target="_blank">x</a></p>',
    ],
    [
      'a link title is not written',
      '[x](https://example.com "t\\" onclick=\\"alert(1)")',
      '<p><a href="https://example.com/" rel="noopener noreferrer" target="_blank">x</a></p>',
    ],
    [
      'escaped references that spell a tag stay text',
      '&lt;script&gt;alert(1)&lt;/script&gt;',
      '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    ],
    [
      'an HTML comment is shown as text',
      '<!-- <script>alert(1)</script> -->',
      '<p>&lt;!-- &lt;script&gt;alert(1)&lt;/script&gt; --&gt;</p>',
    ],
    [
      'an iframe is shown as text',
      '<iframe src="https://evil.example"></iframe>',
      '<p>&lt;iframe src=&quot;https://evil.example&quot;&gt;&lt;/iframe&gt;</p>',
    ],
  ])('%s', async (_name, markdown, html) => {
    const out = await markdownToSafeHtml(markdown);
    expect(out).toBe(html);
    checkMarkup(out);
  });

  it('writes only allowed tags, attributes and link schemes, whatever the Markdown', async () => {
    const render = await loadSafeHtmlRenderer();
    const pieces = [
      '<script>',
      '</script>',
      '<img src=x onerror=alert(1)>',
      '[a](javascript:alert(1))',
      '[a](https://e.example/"x)',
      '![i](data:image/png;base64,AA)',
      '<a href="javascript:x">',
      '**',
      '*',
      '`',
      '```',
      '\n',
      '\n\n',
      '- ',
      '1. ',
      '> ',
      '| a | b |\n|---|---|\n',
      '&lt;',
      '&#60;',
      '&amp;',
      '"',
      "'",
      '<',
      '>',
      '&',
      'onerror=',
      ' ',
      'text',
      '<https://e.example>',
      '<mailto:a@b.c>',
      'www.e.example',
      '\\',
      '~~',
    ];
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 6 })), { maxLength: 30 }), (parts) => {
        checkMarkup(render(parts.join('')));
      }),
      { numRuns: 500 },
    );
  });
});
