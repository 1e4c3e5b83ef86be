import type { Settings } from '../../config/index.js';
import type { Context } from '../../context.js';
import { CoreError, ExitCode } from '../../errors.js';
import { collectChecks } from '../config-checks.js';
import { skip, type DoctorCheck, type DoctorOptions, type DoctorReport, type DoctorStatus } from './report.js';
import { configFiles, type FoundFile } from './files.js';
import { clockCheck } from './clock.js';
import { formatDuration } from '../../text/duration.js';

/**
 * `core doctor`: everything a run of core depends on, checked at once and each failure with its fix
 * (docs/doctor.md): Node, the config files and whether each is trusted, the profile and the source of
 * each setting, the tokens resolved (the variable read, the command run; never shown), the base URL
 * reached (its name resolved, TLS with the configured CA, the proxy), the service's clock against
 * this machine's, a sandbox's webhook secret and bot, and the folders core writes. Exit 0 when every
 * check passed, 1 when one failed (a check that does not apply is skipped).
 */

/** The oldest Node core runs on (package.json's engines). */
export const MIN_NODE = [20, 12] as const;

export type { DoctorCheck, DoctorOptions, DoctorReport } from './report.js';

export async function runDoctor(options: DoctorOptions, ctx: Context): Promise<number> {
  const report = await collectDoctor(options, ctx);
  ctx.out(options.json ? ctx.json(report, 2) : renderDoctor(report, ctx));
  return report.ok ? ExitCode.ok : ExitCode.internal;
}

export async function collectDoctor(options: DoctorOptions, ctx: Context): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [nodeCheck(process.versions.node)];
  for (const file of await configFiles(options.global, ctx)) checks.push(fileCheck(file));

  // The settings as a send resolves them: `core config check`'s checks (the tokens resolved and
  // registered as secrets), its config file line left out (listed above, each file).
  const checkOptions = {
    global: options.global,
    json: false,
    allowHttp: options.allowHttp,
    timeout: options.timeout,
    caFile: options.caFile,
  };
  const settingChecks = await collectChecks(checkOptions, ctx);
  for (const check of settingChecks.checks) {
    if (check.name === 'config file') continue;
    checks.push({
      id: idOf(check.name),
      name: check.name === 'connection' ? 'network rules' : check.name,
      status: check.ok ? 'pass' : 'fail',
      // config check tries no connection; the checks below do.
      message: check.name === 'connection' ? check.detail.replace(/ \(not tried: nothing is sent\)$/, '') : check.detail,
      ...(check.source ? { source: check.source } : {}),
      ...(!check.ok && check.hint ? { fix: check.hint } : {}),
    });
  }

  let settings: Settings | undefined;
  try {
    settings = await ctx.settings({});
  } catch (error) {
    if (!(error instanceof CoreError)) throw error;
    // Already a failed check above.
  }
  if (settings !== undefined) {
    checks.push(otherSettings(settings));
    const rulesFailed = checks.some((check) => check.id === 'network-rules' && check.status === 'fail');
    if (settings.baseUrl === null) {
      checks.push(skip('network.dns', 'name resolution', 'no base URL to reach'));
      checks.push(skip('network.connection', 'connection', 'no base URL to reach'));
      checks.push(skip('clock', 'clock', 'no service to compare with'));
      checks.push(skip('sandbox', 'sandbox', 'no base URL'));
    } else if (rulesFailed) {
      checks.push(skip('network.connection', 'connection', 'not tried: the network rules above refuse it'));
    } else {
      const { networkChecks } = await import('./network.js');
      const { checks: reached, probe, sandbox } = await networkChecks(settings, options, ctx);
      checks.push(...reached);
      checks.push(probe === null ? skip('clock', 'clock', 'not compared: the service was not reached') : clockCheck(probe));
      checks.push(...sandbox);
    }
  }
  const { folderChecks } = await import('./folders.js');
  checks.push(...(await folderChecks(ctx.env)));

  const count = (status: DoctorStatus) => checks.filter((check) => check.status === status).length;
  const failed = count('fail');
  return { ok: failed === 0, checks, summary: { checks: checks.length, passed: count('pass'), failed, skipped: count('skip') } };
}

/** `config check`'s names as ids. */
function idOf(name: string): string {
  return name === 'connection' ? 'network-rules' : name.toLowerCase().replace(/ /g, '-');
}

/** Node's version against the oldest core runs on. */
export function nodeCheck(version: string): DoctorCheck {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  const needed = `${MIN_NODE[0]}.${MIN_NODE[1]}`;
  return ok
    ? { id: 'node', name: 'node', status: 'pass', message: `${version} (core needs ${needed} or later)` }
    : {
        id: 'node',
        name: 'node',
        status: 'fail',
        message: `${version}: core needs Node.js ${needed} or later`,
        fix: `install Node.js ${needed} or later (https://nodejs.org), or run core with it`,
      };
}

/** A config file found, trusted or not, in use or not. */
function fileCheck(file: FoundFile): DoctorCheck {
  const base = { id: 'config.file', name: 'config file' };
  if (file.problem !== undefined)
    return {
      ...base,
      status: file.inUse ? 'fail' : 'pass',
      message: `${file.path}: ${file.problem}`,
      ...(file.fix ? { fix: file.fix } : {}),
    };
  return { ...base, status: 'pass', message: `${file.path}: ${file.note}`, ...(file.namedBy ? { source: file.namedBy } : {}) };
}

/** The settings a send uses besides the ones checked above, each with its source. */
function otherSettings(settings: Settings): DoctorCheck {
  const parts = [
    `timeout ${formatDuration(settings.timeoutMs.value)} (${settings.timeoutMs.source})`,
    `retries ${settings.retries.value} (${settings.retries.source})`,
    settings.proxy === null ? 'proxy none' : `proxy set (${settings.proxy.source})`,
    settings.caFile === null ? 'CA file none' : `CA file ${settings.caFile.value} (${settings.caFile.source})`,
    `headers ${Object.keys(settings.headers.value).length === 0 ? 'none' : Object.keys(settings.headers.value).join(', ')} (${settings.headers.source})`,
  ];
  return { id: 'settings', name: 'other settings', status: 'pass', message: parts.join('; ') };
}

/** The human view: a line a check (✓, ✗ or -), its source, and the fix under a failure; then the counts. */
export function renderDoctor(report: DoctorReport, ctx: Context): string {
  const color = ctx.color.stdout;
  const paint = (code: string, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const width = Math.max(...report.checks.map((check) => check.name.length));
  const lines = report.checks.map((check) => {
    const mark =
      check.status === 'pass' ? paint('32', ctx.glyphs.ok) : check.status === 'fail' ? paint('31', ctx.glyphs.fail) : paint('2', '-');
    const source = check.source ? `  ${paint('2', check.source)}` : '';
    const line = `${mark} ${check.name.padEnd(width)}  ${check.message}${source}`;
    return check.status === 'fail' && check.fix ? `${line}\n  ${' '.repeat(width)}  ${paint('33', `fix: ${check.fix}`)}` : line;
  });
  const { passed, failed, skipped } = report.summary;
  lines.push(
    '',
    `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}` +
      (failed === 0 ? ': core is ready.' : ': fix what is marked above, then run core doctor again.'),
  );
  return `${lines.join('\n')}\n`;
}
