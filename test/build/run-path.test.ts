import { describe, expect, it } from 'vitest';
import { MAX_RUN_PATHS, pathsToRecord, runPath } from '../../src/compile-cache.js';

/**
 * A compile cache file holds the functions that the runs which wrote it compiled; it records which
 * paths through the code those runs took (src/compile-cache.ts), so that a run of another path adds
 * its code once and the runs after it leave the file alone.
 */
describe('the path a run takes, as the compile cache records it', () => {
  const cases: Array<[string, string[], string]> = [
    ['a command and its options', ['reply', '-t', 'Hello', '--core-client-id', '42'], 'reply'],
    ['a dry run of it', ['reply', '-t', 'Hello', '--core-client-id', '42', '--dry-run'], 'reply --dry-run'],
    ['its help', ['reply', '--help'], 'reply --help'],
    ['its help with -h', ['reply', '-h'], 'reply --help'],
    ['a command and its subcommand', ['reason', 'update', '--code', 'A'], 'reason update'],
    ['a subcommand and a dry run', ['reason', 'update', '-f', 'x.ndjson', '--dry-run'], 'reason update --dry-run'],
    ['root options with values before the command', ['--profile', 'prod', '-p', 'x', '--config', 'c.yaml', 'greet'], 'greet'],
    ['a root option without a value before the command', ['--no-color', 'customer', 'say', 'hi'], 'customer say'],
    ['a word that is not a plain name', ['test', 'tests/'], 'test *'],
    ['a command that is not a plain name', ['Some/Thing'], '*'],
    ['a word longer than 32 characters', ['a'.repeat(33)], '*'],
    ['a word of 32 characters', ['a'.repeat(32)], 'a'.repeat(32)],
    ['nothing', [], ''],
    ['help alone', ['--help'], '--help'],
    ['words after --', ['--', 'reply'], ''],
  ];
  it.each(cases)('%s', (_name, argv, path) => {
    expect(runPath(argv)).toBe(path);
  });
});

describe('what a cache file records after a run', () => {
  const full = Array.from({ length: MAX_RUN_PATHS }, (_, i) => `p${i}`);
  const cases: Array<[string, string[] | undefined, string, string[] | undefined]> = [
    ['no usable file: the run compiled its path only', undefined, 'reply', ['reply']],
    ['a file recording this path: left as it is', ['greet', 'reply'], 'reply', undefined],
    ['a file recording other paths: theirs and this one', ['greet'], 'reply', ['greet', 'reply']],
    ['a file one path short of the limit: this one added', full.slice(1), 'reply', [...full.slice(1), 'reply']],
    ['a file at the limit: left as it is', full, 'reply', undefined],
  ];
  it.each(cases)('%s', (_name, recorded, path, expected) => {
    expect(pathsToRecord(recorded, path)).toEqual(expected);
  });
});
