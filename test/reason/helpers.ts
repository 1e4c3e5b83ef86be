import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonAnswer, type RecordedRequest, type ScriptedAnswer } from '../helpers/recording-server.js';
import { baseEnv } from '../helpers/run.js';

/** Helpers shared by the `core reason update` tests. */

export const SANDBOX_TOKEN = 'sandbox-token';

/** The environment alone (no config file), as CI runs it, pointed at `url`. */
export function envFor(url: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return baseEnv({ CORE_BASE_URL: url, CORE_TENANT: 'sandbox', CORE_TOKEN: SANDBOX_TOKEN, ...extra });
}

/** A valid reason with the given code. */
export function reason(code: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { code, reasons: [{ locale: 'en', name: `Name of ${code}` }], ...extra };
}

export function ndjson(items: unknown[]): string {
  return items.map((item) => JSON.stringify(item)).join('\n') + '\n';
}

/** Writes a file in a fresh temporary folder and returns its path. */
export function tempFile(name: string, content: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'core-reason-test-'));
  const path = join(folder, name);
  writeFileSync(path, content);
  return path;
}

/** Every non-empty line of NDJSON text, parsed. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export function readJsonLines(path: string): Record<string, unknown>[] {
  return jsonLines(readFileSync(path, 'utf8'));
}

/** The code of a recorded reason request, when its body is JSON with one. */
export function codeOf(request: RecordedRequest): string | undefined {
  try {
    const parsed = JSON.parse(request.text) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

/** An answer with the service's Error body (docs/api.md, "Error body"). */
export function errorAnswer(status: number, message: string, headers: Record<string, string> = {}): ScriptedAnswer {
  const answer = jsonAnswer(status, { timestamp: '2026-11-22T10:00:00.000Z', method: 'PUT', uri: '/api/v1/inactivity/reasons', message });
  return { ...answer, headers: { ...('headers' in answer ? answer.headers : {}), ...headers } };
}
