import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentedNames, ENVIRONMENT } from '../../src/commands/help/environment.js';
import { repoRoot } from '../helpers/run.js';

/**
 * `core help environment` lists every variable core reads, and only those: the sources are read for
 * the ways core reads one (`env.NAME`, `env['NAME']`, `envValue(env, 'NAME')`, a variable name
 * written as a string, `tmpdir()`), and the names found must be the names documented. A variable
 * added to the code without a line in src/commands/help/environment.ts fails here, and so does a
 * line left for one the code no longer reads.
 */

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === 'page' ? [] : sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** The code of a file without its comments (a comment may name a variable core does not read). */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Every way the sources read a variable; each pattern's first group is its name. */
const READS = [
  /\benv\??\.([A-Z][A-Z0-9_]*)\b/g,
  /\benv\[['"]([A-Za-z_][A-Za-z0-9_]*)['"]\]/g,
  /\benv(?:Value|Secret)\([^,()]+,\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]/g,
  // Names held in lists and read in a loop: the proxy variables, the locale's.
  /['"]((?:CORE|XDG|LC|NO|FORCE)_[A-Z_]+|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY|LANG|TERM|REQUEST_METHOD|BROWSER)['"]/g,
];

/** Variables read for core by Node, found by the call that reads them. */
const THROUGH_NODE: Record<string, RegExp> = { TMPDIR: /\btmpdir\(\)/ };

function readInCode(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const note = (name: string, file: string) => found.set(name, [...(found.get(name) ?? []), relative(repoRoot, file)]);
  for (const file of sourceFiles(join(repoRoot, 'src'))) {
    // The help topic itself names every variable.
    if (file.endsWith(join('commands', 'help', 'environment.ts'))) continue;
    const text = code(file);
    for (const pattern of READS) for (const match of text.matchAll(pattern)) note(match[1]!, file);
    for (const [name, call] of Object.entries(THROUGH_NODE)) if (call.test(text)) note(name, file);
  }
  return found;
}

describe('core help environment', () => {
  it('documents exactly the variables the code reads', () => {
    const read = readInCode();
    const documented = documentedNames().filter((name) => {
      const variable = ENVIRONMENT.flatMap((group) => group.variables).find((candidate) => candidate.names.includes(name))!;
      // What a bundled library reads is documented, but no source of core's names it.
      return variable.readBy !== 'the editor prompt';
    });
    const missing = [...read.keys()]
      .filter((name) => !documented.includes(name))
      .map((name) => `${name} (read in ${read.get(name)!.join(', ')})`);
    const stale = documented.filter((name) => !read.has(name));
    expect(missing, 'read by the code, not in src/commands/help/environment.ts').toEqual([]);
    expect(stale, 'documented, not read by the code').toEqual([]);
  });

  it('finds the reads the patterns are for, so that it cannot pass by finding nothing', () => {
    const read = readInCode();
    for (const name of ['CORE_TOKEN', 'NO_COLOR', 'https_proxy', 'NO_PROXY', 'XDG_STATE_HOME', 'LC_ALL', 'TMPDIR', 'BROWSER']) {
      expect(read.has(name), name).toBe(true);
    }
  });

  it('names each variable once', () => {
    const names = documentedNames();
    expect(new Set(names).size).toBe(names.length);
  });
});
