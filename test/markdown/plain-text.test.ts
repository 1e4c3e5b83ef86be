import { describe, expect, it } from 'vitest';
import { markdownToPlainText } from '../../src/markdown/plain-text.js';
import { dryRunBody } from '../helpers/dry-run.js';

/**
 * A reply's Markdown (formattedText) becomes the plain text sent in `text` (docs/api.md, answer rule
 * 1): the markup goes; link targets, list numbers and nesting, table rows and code stay.
 */
describe('Markdown to plain text', () => {
  it.each([
    ['emphasis, strong and strikethrough lose their markers', 'A *very* **good** ~~bad~~ day', 'A very good bad day'],
    ['a heading is its text', '# Your order\n\nIt has shipped.', 'Your order\n\nIt has shipped.'],
    ['a link keeps its target after its text', 'Track it [here](https://example.com/t/1).', 'Track it here (https://example.com/t/1).'],
    [
      'an autolink is its address once',
      'See <https://example.com/help> or https://example.com/faq',
      'See https://example.com/help or https://example.com/faq',
    ],
    ['a mail link is the address', 'Write to [support](mailto:help@example.com)', 'Write to support (help@example.com)'],
    ['an image is its alt text and address', '![the parcel](https://example.com/p.png)', 'the parcel (https://example.com/p.png)'],
    ['an ordered list keeps its numbers', '1. Open the app\n2. Tap *Orders*\n3. Pick one', '1. Open the app\n2. Tap Orders\n3. Pick one'],
    ['an ordered list keeps its start number', '3. third\n4. fourth', '3. third\n4. fourth'],
    ['an unordered list keeps a dash per item', '- milk\n- bread', '- milk\n- bread'],
    [
      'nested lists keep their nesting',
      '1. Fruit\n   - apple\n   - pear\n2. Bread\n   1. white\n   2. brown',
      '1. Fruit\n   - apple\n   - pear\n2. Bread\n   1. white\n   2. brown',
    ],
    ['a task list keeps its boxes', '- [x] paid\n- [ ] shipped', '- [x] paid\n- [ ] shipped'],
    ['inline code is its text', 'Run `core reply --help`', 'Run core reply --help'],
    ['a code block keeps its lines as written', '```sh\ncore reply \\\n  -t hi\n```', 'core reply \\\n  -t hi'],
    ['a table is its rows, cells between bars', '| Item | Qty |\n|---|---:|\n| Tea | 2 |\n| *Cake* | 1 |', 'Item | Qty\nTea | 2\nCake | 1'],
    ['a quote keeps its marker', '> Where is my order?\n\nOn its way.', '> Where is my order?\n\nOn its way.'],
    ['raw HTML loses its tags and keeps its text', 'Hello <b>there</b><!-- hidden -->', 'Hello there'],
    ['character references are decoded', 'Fish &amp; chips &lt;3 &#x1F600; &#65;', 'Fish & chips <3 😀 A'],
    ['escaped markup stays as the characters', 'A \\*literal\\* star and 2 \\* 3', 'A *literal* star and 2 * 3'],
    ['a hard line break is a new line', 'Line one  \nLine two', 'Line one\nLine two'],
    ['a thematic break is three dashes', 'Above\n\n---\n\nBelow', 'Above\n\n---\n\nBelow'],
  ])('%s', async (_name, markdown, text) => {
    expect(await markdownToPlainText(markdown)).toBe(text);
  });
});

describe('core reply --markdown', () => {
  it('fills text with the plain-text form, link targets and list numbers kept', async () => {
    const body = await dryRunBody(
      ['reply'],
      ['--core-client-id', '42', '--markdown', '1. Open [Orders](https://example.com/o)\n2. Pick *one*'],
    );
    expect(body.formattedText).toBe('1. Open [Orders](https://example.com/o)\n2. Pick *one*');
    expect(body.text).toBe('1. Open Orders (https://example.com/o)\n2. Pick one');
  });

  it('leaves a text given with -t as it is', async () => {
    const body = await dryRunBody(['reply'], ['--core-client-id', '42', '--markdown', '**Hi**', '-t', 'Hi there']);
    expect(body.text).toBe('Hi there');
  });
});
