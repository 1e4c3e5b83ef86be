import type { Context, MaskedText } from '../context.js';
import { neutralize } from '../output/terminal.js';

/**
 * The progress of a batch on standard error: done, failed, rate and time left. Shown only when
 * standard error is a terminal that can redraw a line (not TERM=dumb) (docs/reasons.md, "Output": no bar in a pipe or a CI log, where it
 * would only be noise); cli-progress is loaded only then, so a pipe or a CI log pays nothing for it.
 */
export interface Progress {
  /** One item finished. */
  tick(failed: boolean): void;
  /**
   * Prints a result line on standard output. When standard output is the same terminal as the
   * bar, the line is printed above the bar instead, so the two do not tear each other apart.
   */
  print(text: string | MaskedText): void;
  /** Prints a message on standard error, above the bar when there is one. */
  note(text: string): void;
  /** Removes the bar; every line printed above it is written first. */
  stop(): void;
}

export async function startProgress(ctx: Context, total: number): Promise<Progress> {
  // A dumb terminal (TERM=dumb: Emacs shells, some CI logs) cannot move the cursor to redraw a bar.
  if (ctx.streams.stderr.isTTY !== true || ctx.env.TERM === 'dumb' || total < 2) return plain(ctx);
  const mod = (await import('cli-progress')) as typeof import('cli-progress') & { default?: typeof import('cli-progress') };
  const { MultiBar, Presets } = mod.default ?? mod;
  const multibar = new MultiBar(
    {
      stream: ctx.streams.stderr,
      format: ' {bar} {percentage}% | {value}/{total} done | {failed} failed | {rate}/s | {eta_formatted} left',
      hideCursor: true,
      clearOnComplete: true,
      stopOnComplete: false,
      etaBuffer: 200,
      fps: 10,
      barsize: 30,
    },
    Presets.shades_classic,
  );
  const started = performance.now();
  let done = 0;
  let failed = 0;
  const bar = multibar.create(total, 0, { failed: 0, rate: '0' });
  const lineToTerminal = ctx.streams.stdout.isTTY === true;
  let stopped = false;
  return {
    tick(itemFailed) {
      done += 1;
      if (itemFailed) failed += 1;
      const seconds = (performance.now() - started) / 1000;
      const rate = seconds > 0 ? done / seconds : 0;
      bar.increment(1, { failed, rate: rate >= 10 ? rate.toFixed(0) : rate.toFixed(1) });
    },
    print(text) {
      if (lineToTerminal && !stopped) {
        const line = typeof text === 'string' ? neutralize(ctx.redact(text)) : text.text;
        multibar.log(line.endsWith('\n') ? line : `${line}\n`);
      } else ctx.out(text);
    },
    note(text) {
      if (!stopped) multibar.log(neutralize(ctx.redact(text.endsWith('\n') ? text : `${text}\n`)));
      else ctx.err(text);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      // Lines given to log() wait for the next redraw; draw once more so none is lost.
      multibar.update();
      multibar.stop();
    },
  };
}

function plain(ctx: Context): Progress {
  return { tick: () => {}, print: (text) => ctx.out(text), note: (text) => ctx.err(text), stop: () => {} };
}
