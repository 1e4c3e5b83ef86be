import { afterEach, describe, expect, it, vi } from 'vitest';
import { startProgress } from '../../src/batch/progress.js';
import { createContext } from '../../src/context.js';
import { maskedText } from '../../src/mask.js';
import { memoryStreams } from '../helpers/streams.js';

/**
 * The progress bar of a batch (src/batch/progress.ts): drawn on standard error only when it is a
 * terminal that can redraw a line and the batch has more than one item; lines printed while it is
 * drawn go above it.
 */

const SECRET = 'tok-progress-secret-1';

function terminal(options: { stderrTTY?: boolean; stdoutTTY?: boolean; term?: string } = {}) {
  const io = memoryStreams();
  if (options.stderrTTY ?? true) Object.assign(io.streams.stderr, { isTTY: true, columns: 120 });
  if (options.stdoutTTY) Object.assign(io.streams.stdout, { isTTY: true, columns: 120 });
  const env = options.term === undefined ? {} : { TERM: options.term };
  const ctx = createContext({ streams: io.streams, env, cwd: '/' });
  ctx.addSecret(SECRET);
  return { ctx, stdout: io.stdout, stderr: io.stderr };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('startProgress: where a bar is drawn', () => {
  it.each<[string, { stderrTTY?: boolean; term?: string }, number]>([
    ['standard error is not a terminal', { stderrTTY: false, term: 'xterm' }, 5],
    ['TERM=dumb', { term: 'dumb' }, 5],
    ['a batch of one item', { term: 'xterm' }, 1],
    ['a batch of no item', { term: 'xterm' }, 0],
  ])('draws none when %s: lines go to their streams as they are', async (_name, options, total) => {
    const { ctx, stdout, stderr } = terminal(options);
    const progress = await startProgress(ctx, total);
    progress.tick(false);
    progress.tick(true);
    progress.print(`result ${SECRET}\n`);
    progress.print(maskedText('{"json":1}\n'));
    progress.note(`note ${SECRET}\n`);
    progress.stop();
    progress.stop();
    expect(stdout()).toBe('result ********\n{"json":1}\n');
    expect(stderr()).toBe('note ********\n');
  });

  it.each<[string, string | undefined]>([
    ['TERM unset', undefined],
    ['an ordinary TERM', 'xterm-256color'],
  ])('draws one for a batch of two items on a terminal (%s), and counts what is done and failed', async (_name, term) => {
    const { ctx, stderr } = terminal(term === undefined ? {} : { term });
    const progress = await startProgress(ctx, 2);
    progress.tick(true);
    progress.stop();
    expect(stderr()).toMatch(/1\/2 done \| 1 failed \|/);
    expect(stderr()).toContain('\u001b[');
  });

  it('hides the cursor while it is drawn, is 30 characters wide, and clears itself away when stopped', async () => {
    const { ctx, stderr } = terminal({ term: 'xterm' });
    const progress = await startProgress(ctx, 4);
    progress.tick(false);
    progress.stop();
    const drawn = stderr();
    expect(drawn.startsWith('\u001b[?25l')).toBe(true);
    expect(drawn).toContain('\u001b[?25h');
    expect(drawn.endsWith('\u001b[0J')).toBe(true);
    expect(/ ([█░]+) 25% \| 1\/4 done \| 0 failed \| /.exec(drawn)?.[1]).toHaveLength(30);
  });

  it('starts at nothing done, nothing failed and no rate', async () => {
    const { ctx, stderr } = terminal({ term: 'xterm' });
    const progress = await startProgress(ctx, 3);
    progress.stop();
    expect(stderr()).toContain('0% | 0/3 done | 0 failed | 0/s |');
  });

  it('counts only failed items as failed', async () => {
    const { ctx, stderr } = terminal({ term: 'xterm' });
    const progress = await startProgress(ctx, 5);
    progress.tick(false);
    progress.tick(true);
    progress.tick(false);
    progress.stop();
    expect(stderr()).toMatch(/3\/5 done \| 1 failed \|/);
  });
});

describe('startProgress: the rate', () => {
  it.each<[string, number, number, string]>([
    ['no time yet', 1, 0, '0.0'],
    ['one item in two seconds', 1, 2000, '0.5'],
    ['just under ten a second, to a tenth', 99, 10_000, '9.9'],
    ['ten a second, whole', 10, 1000, '10'],
    ['more than ten a second, whole', 25, 2000, '13'],
  ])('%s: %d items in %d ms are %s/s', async (_name, items, ms, rate) => {
    let now = 1000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const { ctx, stderr } = terminal({ term: 'xterm' });
    const progress = await startProgress(ctx, 200);
    now += ms;
    for (let i = 0; i < items; i += 1) progress.tick(false);
    progress.stop();
    expect(stderr()).toContain(`| ${rate}/s |`);
  });
});

describe('startProgress: lines printed while the bar is drawn', () => {
  it('prints a result line above the bar when standard output is the same terminal, masked and with its end', async () => {
    const { ctx, stdout, stderr } = terminal({ stdoutTTY: true, term: 'xterm' });
    const progress = await startProgress(ctx, 3);
    progress.print(`ok ${SECRET} \u0007`);
    progress.print('second\n');
    progress.print(maskedText('{"masked":true}'));
    progress.stop();
    expect(stdout()).toBe('');
    expect(stderr()).toContain('ok ******** \\u0007\n');
    expect(stderr()).toContain('second\n');
    expect(stderr()).not.toContain('second\n\n');
    expect(stderr()).toContain('{"masked":true}\n');
    expect(stderr()).not.toContain(SECRET);
  });

  it('prints result lines on standard output when it is not the terminal of the bar', async () => {
    const { ctx, stdout, stderr } = terminal({ term: 'xterm' });
    const progress = await startProgress(ctx, 3);
    progress.print(`ok ${SECRET}\n`);
    progress.stop();
    expect(stdout()).toBe('ok ********\n');
    expect(stderr()).not.toContain('ok ');
  });

  it('prints a note above the bar, masked and with its end, and on standard error as it is once the bar is gone', async () => {
    const { ctx, stdout, stderr } = terminal({ stdoutTTY: true, term: 'xterm' });
    const progress = await startProgress(ctx, 3);
    progress.note(`stopping ${SECRET}`);
    progress.note('twice\n');
    progress.stop();
    const drawn = stderr();
    expect(drawn).toContain('stopping ********\n');
    expect(drawn).toContain('twice\n');
    expect(drawn).not.toContain('twice\n\n');
    progress.note('after');
    progress.print('late line\n');
    expect(stderr().slice(drawn.length)).toBe('after');
    expect(stdout()).toBe('late line\n');
  });

  it('draws once more when stopped, so a line printed just before is not lost, and stops only once', async () => {
    const { ctx, stderr } = terminal({ stdoutTTY: true, term: 'xterm' });
    const progress = await startProgress(ctx, 3);
    progress.print('last line');
    progress.stop();
    const once = stderr();
    expect(once).toContain('last line\n');
    progress.stop();
    expect(stderr()).toBe(once);
  });
});
