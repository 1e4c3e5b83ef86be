import input from '@inquirer/input';
import { render as renderPrompt } from '@inquirer/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { makeStyle } from '../../src/output/style.js';
import { fieldPrompt } from '../../src/prompts/ask.js';
import {
  greetingFields,
  headerFooterFields,
  listFields,
  quickReplyFields,
  reasonFields,
  translationFields,
} from '../../src/prompts/schemas.js';
import { idFromFlag } from '../../src/input/fields.js';

/**
 * The composer's field prompts on inquirer's real input prompt, rendered by @inquirer/testing:
 * what the user sees while typing (the characters left) and after Enter (the validation message).
 */

const style = makeStyle(false);

/**
 * Every prompt a test renders, settled or not. A prompt still open when the test ends would be
 * rejected when the worker exits (ExitPromptError, through signal-exit), with nothing awaiting it:
 * an unhandled rejection, which fails the run. Each test's prompts are closed after it.
 */
const rendered: Array<Promise<unknown> & { cancel?: () => void }> = [];
afterEach(async () => {
  for (const answer of rendered.splice(0)) {
    answer.cancel?.();
    await answer.catch(() => undefined);
  }
});

const render: typeof renderPrompt = async (...args) => {
  const result = await renderPrompt(...args);
  rendered.push(result.answer);
  return result;
};
const quickReplyText = quickReplyFields({}).text;

describe('a field prompt on inquirer', () => {
  it('shows the limit in the message and the characters left as the user types', async () => {
    const { answer, events, getScreen } = await render(input, fieldPrompt({ label: 'Button 1 text', schema: quickReplyText }, style));
    expect(getScreen()).toBe('? Button 1 text (up to 4,000 characters) (4,000 left)');
    events.type('Yes please');
    expect(getScreen()).toBe('? Button 1 text (up to 4,000 characters) Yes please (3,990 left)');
    events.keypress('enter');
    await expect(answer).resolves.toBe('Yes please');
    expect(getScreen()).toBe('✔ Button 1 text (up to 4,000 characters) Yes please');
  });

  it('shows the limit message for a quick-reply text that is too long, and takes a fixed one', async () => {
    const {
      answer,
      events,
      getScreen,
      nextRender,
      input: stdin,
    } = await render(input, fieldPrompt({ label: 'Button 1 text', schema: quickReplyText }, style));
    // Pasted, as a long text would be: the line fills at once, then one keypress redraws the prompt.
    stdin.write('x'.repeat(4000));
    events.type('x');
    expect(getScreen()).toContain('(1 over the limit of 4,000)');
    events.keypress('enter');
    await nextRender();
    expect(getScreen()).toContain('> 4,001 characters, limit 4,000');
    events.keypress('backspace');
    events.keypress('enter');
    await expect(answer).resolves.toBe('x'.repeat(4000));
  });

  it("holds a quick-reply text to the profile's tighter maxQuickReplyLength", async () => {
    const schema = quickReplyFields({ maxQuickReplyLength: 10 }).text;
    const { events, getScreen, nextRender } = await render(input, fieldPrompt({ label: 'Button 1 text', schema }, style));
    expect(getScreen()).toContain('(up to 10 characters) (10 left)');
    events.type('Twelve chars');
    events.keypress('enter');
    await nextRender();
    expect(getScreen()).toContain("> 12 characters, limit 10 (the profile's maxQuickReplyLength)");
  });

  it.each([
    ['a header text', headerFooterFields.headerText, 61],
    ['a list button title', listFields.title, 20],
    ['a list item subtitle', listFields.itemSubTitle, 72],
    ["an inactivity reason's code", reasonFields.code, 256],
    ["an inactivity reason's name", translationFields.name, 50],
  ])('rejects %s one past its limit', async (_name, schema, limit) => {
    const { events, getScreen, nextRender } = await render(input, fieldPrompt({ label: 'Field', schema }, style));
    events.type('a'.repeat(limit + 1));
    events.keypress('enter');
    await nextRender();
    expect(getScreen()).toContain(`> ${(limit + 1).toLocaleString('en-US')} characters, limit ${limit}`);
  });

  it('rejects a coreClientId that is not a long, naming the range', async () => {
    const { events, getScreen, nextRender } = await render(
      input,
      fieldPrompt({ label: 'coreClientId', schema: greetingFields.coreClientId, parse: idFromFlag }, style),
    );
    expect(getScreen()).toBe('? coreClientId');
    events.type('12ab');
    events.keypress('enter');
    await nextRender();
    expect(getScreen()).toContain('> expected an integer from 0 to 9,223,372,036,854,775,807, got "12ab"');
  });

  it('lets an optional field be skipped with Enter', async () => {
    const { answer, events } = await render(
      input,
      fieldPrompt({ label: 'Footer text', schema: headerFooterFields.footerText, optional: true }, style),
    );
    events.keypress('enter');
    await expect(answer).resolves.toBe('');
  });

  it('offers the old value as the default when editing', async () => {
    const { answer, events, getScreen } = await render(
      input,
      fieldPrompt({ label: 'Button 1 text', schema: quickReplyText, current: 'Yes' }, style),
    );
    // The default is shown; the count appears once typing starts.
    expect(getScreen()).toBe('? Button 1 text (up to 4,000 characters) (Yes)');
    events.keypress('enter');
    await expect(answer).resolves.toBe('Yes');
  });
});
