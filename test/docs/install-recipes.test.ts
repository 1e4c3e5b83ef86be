import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/run.js';

/**
 * The install lines of the README and the guides install what exists. core is not on the npm
 * registry yet (README, "Install"): `npm install -g core-cli` fails, so no recipe may run it; a
 * recipe installs the tarball of a release, at the address the release workflow gives it
 * (.github/workflows/release.yml: the tag vX.Y.Z, the file `npm pack` names core-cli-X.Y.Z.tgz),
 * for the version of package.json, or a tarball of the user's own making.
 */

const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const releaseTarball = `https://github.com/core-cli/core-cli/releases/download/v${version}/core-cli-${version}.tgz`;

const guides = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** Every line of a fenced code block of `file` that runs npm install (or npm i, npm add), with its place. */
function installLines(file: string): { where: string; line: string }[] {
  const text = readFileSync(join(repoRoot, file), 'utf8');
  const found: { where: string; line: string }[] = [];
  let inBlock = false;
  for (const [index, line] of text.split('\n').entries()) {
    if (/^\s*```/.test(line)) inBlock = !inBlock;
    else if (inBlock && /\bnpm (install|i|add)\b/.test(line)) found.push({ where: `${file}:${index + 1}`, line: line.trim() });
  }
  return found;
}

/** What one npm install line installs: its words that are not options (nor the npm words themselves). */
function packagesOf(line: string): string[] {
  const command = line.replace(/^-\s*run:\s*/, '').replace(/\s+#.*$/, '');
  const words = command.slice(command.search(/\bnpm (install|i|add)\b/)).split(/\s+/).slice(2);
  return words.filter((word) => word !== '' && !word.startsWith('-') && !/^(&&|\|\||;)$/.test(word));
}

describe('the install lines of the README and the guides', () => {
  const lines = guides.flatMap(installLines);

  it('are found: the CI recipes of docs/testing-bots.md, docs/reasons.md and docs/recipes.md among them', () => {
    const files = new Set(lines.map((found) => found.where.split(':')[0]));
    expect([...files]).toEqual(expect.arrayContaining(['README.md', 'docs/testing-bots.md', 'docs/reasons.md', 'docs/recipes.md']));
  });

  it('never install core-cli from the registry, where it is not yet', () => {
    const fromRegistry = lines.filter(({ line }) => packagesOf(line).some((name) => /^core-cli(@|$)/.test(name)));
    expect(fromRegistry).toEqual([]);
  });

  it('install core from a tarball: a release’s, at the address its workflow gives it for this version, or one made with npm pack', () => {
    const core = lines.filter(({ line }) => packagesOf(line).some((name) => /core-cli/.test(name)));
    expect(core.length).toBeGreaterThan(3);
    for (const { where, line } of core) {
      for (const name of packagesOf(line).filter((word) => /core-cli/.test(word))) {
        expect([releaseTarball, './core-cli-*.tgz', `./core-cli-${version}.tgz`, './core-cli-<version>.tgz'], `${where}: ${line}`).toContain(name);
      }
    }
  });

  it('name the release tarball as the release workflow publishes it: the tag v<version>, the file npm pack names', () => {
    const workflow = readFileSync(join(repoRoot, '.github', 'workflows', 'release.yml'), 'utf8');
    expect(workflow).toMatch(/tags: \['v\*\.\*\.\*'\]/);
    expect(workflow).toMatch(/gh release create "\$GITHUB_REF_NAME" \.\/core-cli-\*\.tgz/);
    expect(lines.filter(({ line }) => line.includes(releaseTarball)).map(({ where }) => where.split(':')[0])).toEqual(
      expect.arrayContaining(['docs/testing-bots.md', 'docs/reasons.md', 'docs/recipes.md']),
    );
  });
});
