import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/run.js';

/**
 * .github/workflows/release.yml as CONTRIBUTING.md, "Releasing", describes it: a version tag starts
 * it; the tests run as CI runs them; the tarball `npm pack` made is the one attached to the GitHub
 * release and published with provenance; only the publishing job may write.
 */

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  'runs-on': string;
  container?: string;
  needs?: string;
  permissions?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  on: { push: { tags: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
}

const workflow = parse(readFileSync(join(repoRoot, '.github', 'workflows', 'release.yml'), 'utf8')) as Workflow;
const runs = (job: Job) => job.steps.map((step) => step.run ?? '').join('\n');

describe('the release workflow', () => {
  it('starts on a version tag only, and checks that the tag names the version of package.json', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v*.*.*'] } });
    expect(runs(workflow.jobs['test-and-pack']!)).toMatch(/require\("\.\/package\.json"\)\.version[\s\S]*GITHUB_REF_NAME/);
  });

  it('runs the tests exactly as CI does, on Debian as root, before it packs', () => {
    const job = workflow.jobs['test-and-pack']!;
    expect(job.container).toMatch(/^node:20-bookworm/);
    const commands = runs(job);
    expect(commands).toMatch(/^\.ci\/run$/m);
    expect(commands.indexOf('.ci/run')).toBeLessThan(commands.indexOf('npm pack'));
    expect(job.steps.find((step) => step.uses?.startsWith('actions/upload-artifact@'))?.with).toMatchObject({ path: 'dist-release/*.tgz' });
  });

  it('attaches the tested tarball to a GitHub release, then publishes that same tarball with provenance', () => {
    const job = workflow.jobs.publish!;
    expect(job.needs).toBe('test-and-pack');
    const commands = runs(job);
    expect(commands).toMatch(/gh release create "\$GITHUB_REF_NAME" \.\/core-cli-\*\.tgz/);
    expect(commands).toMatch(/npm publish \.\/core-cli-\*\.tgz --provenance --access public/);
    expect(commands.indexOf('gh release create')).toBeLessThan(commands.indexOf('npm publish'));
    expect(commands).not.toMatch(/npm (run build|pack)/);
  });

  it('gives write access and an identity token to the publishing job alone', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(workflow.jobs['test-and-pack']!.permissions).toBeUndefined();
    expect(workflow.jobs.publish!.permissions).toEqual({ contents: 'write', 'id-token': 'write' });
  });
});
