import type { Context } from '../context.js';
import { stringifyJson } from '../payload/json.js';
import { htmlSummary, statusText, type RequestResult } from './result.js';
import { makeStyle, type Style } from './style.js';
import { printable } from './terminal.js';

/** Renders one result: the JSON document on stdout with --json, else the human view. */
export function printResult(result: RequestResult, ctx: Context, json: boolean): void {
  if (json) {
    ctx.out(ctx.json(result));
    return;
  }
  // A success is the command's output; a failure is an error, so it goes where errors go.
  const toStdout = result.ok;
  const style = makeStyle(toStdout ? ctx.color.stdout : ctx.color.stderr, ctx.glyphs);
  const text = renderHuman(result, style);
  if (toStdout) ctx.out(text);
  else ctx.err(text);
}

export function renderHuman(result: RequestResult, style: Style): string {
  const lines: string[] = [];
  const { ok, fail } = style.glyphs;
  const target = printable(`${result.method} ${result.url}`);
  if (result.validationErrors) {
    lines.push(`${style.red(`${fail} invalid`)}  ${target}  (nothing sent)`);
    for (const p of result.validationErrors) lines.push(`  ${printable(p.path ? `${p.path}: ` : '')}${printable(p.message)}`);
    return `${lines.join('\n')}\n`;
  }
  if (result.skipped) {
    lines.push(`${style.yellow('- skipped')}  ${target}  (not sent)`);
    return `${lines.join('\n')}\n`;
  }
  if (result.status === null) {
    const err = result.error as { code?: string; message?: string } | null;
    lines.push(`${style.red(`${fail} no answer`)}  ${target}`);
    if (err?.message)
      lines.push(field('error', `${err.message}${err.code && !err.message.includes(err.code) ? ` (${err.code})` : ''}`, style));
  } else {
    const label = `${result.status} ${statusText(result.status)}`.trim();
    lines.push(`${result.ok ? style.green(`${ok} ${label}`) : style.red(`${fail} ${label}`)}  ${target}`);
  }
  if (result.warning !== undefined) lines.push(`  ${style.yellow(printable('warning').padEnd(10))}  ${printable(result.warning)}`);
  if (result.code !== undefined) lines.push(field('code', result.code, style));
  if (result.requestId) lines.push(field('request id', result.requestId, style));
  if (result.durationMs !== null) {
    const attempts = result.attempts && result.attempts > 1 ? ` (${result.attempts} attempts)` : '';
    lines.push(field('duration', `${result.durationMs} ms${attempts}`, style));
  } else if (result.attempts !== undefined && result.attempts > 1) {
    lines.push(field('attempts', String(result.attempts), style));
  }
  if (result.answerId !== undefined && result.answerId !== null) lines.push(field('answer id', result.answerId, style));
  if (result.status !== null && result.error) {
    const body = result.error as Record<string, unknown>;
    const keys = ['message', 'timestamp', 'method', 'uri'].filter((k) => body[k] !== undefined);
    for (const key of Object.keys(body)) if (!keys.includes(key)) keys.push(key);
    for (const key of keys) {
      // An HTML page (a proxy's 502 page) is said in one line, not printed raw.
      const value = key === 'message' && typeof body[key] === 'string' ? (htmlSummary(body[key]) ?? body[key]) : body[key];
      lines.push(field(key, display(value), style));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** One `name  value` line; both may come from the service, so neither may act on the terminal. */
function field(name: string, value: string, style: Style): string {
  return `  ${style.dim(printable(name).padEnd(10))}  ${printable(value)}`;
}

function display(value: unknown): string {
  return typeof value === 'string' ? value : stringifyJson(value);
}
