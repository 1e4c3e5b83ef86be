import type { Context } from '../../context.js';
import { ConfigError } from '../../errors.js';
import { collectChecks, type CheckReport, type ConfigCheckOptions } from '../config-checks.js';

export type { Check, CheckReport, ConfigCheckOptions } from '../config-checks.js';

/**
 * `core config check`: resolves everything a send needs, as a send would (the config file, the
 * profile, the base URL and the network rules, the tenant, both tokens: the variable read, the token
 * command run), and reports each, every problem at once. Sends nothing. Exits 0 when a send could go
 * out, 2 otherwise (docs/configuration.md, "Checking a set-up").
 */
export async function runConfigCheck(options: ConfigCheckOptions, ctx: Context): Promise<number> {
  const report = await collectChecks(options, ctx);
  ctx.out(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderChecks(report, ctx));
  if (!report.ready) {
    const failed = report.checks.filter((check) => !check.ok).length;
    throw new ConfigError(`not ready to send: ${failed === 1 ? '1 problem' : `${failed} problems`} (listed above)`, {
      hint: 'fix them, then run core config check again; core config show lists every setting and its source',
    });
  }
  return 0;
}

/** The human view: one line a check, ✓ or ✗ (ok or x in ASCII), with the source dimmed and the hint under a failure. */
export function renderChecks(report: CheckReport, ctx: Context): string {
  const color = ctx.color.stdout;
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const width = Math.max(...report.checks.map((check) => check.name.length));
  const lines = report.checks.map((check) => {
    const mark = check.ok ? paint('32', ctx.glyphs.ok) : paint('31', ctx.glyphs.fail);
    const source = check.source ? `  ${paint('2', check.source)}` : '';
    const line = `${mark} ${check.name.padEnd(width)}  ${check.detail}${source}`;
    return !check.ok && check.hint ? `${line}\n  ${' '.repeat(width)}  ${paint('2', `hint: ${check.hint}`)}` : line;
  });
  lines.push(report.ready ? 'Ready: a send could go out (nothing was sent).' : 'Not ready: a send would stop at the problems above.');
  return `${lines.join('\n')}\n`;
}
