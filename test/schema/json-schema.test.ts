import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyNotes, jsonSchemaOf, SCHEMA_KINDS, type JsonSchema, type SchemaKind } from '../../src/schema/json-schema.js';
import { repoRoot, runInProcess } from '../helpers/run.js';

type Node = JsonSchema & {
  description?: string;
  properties?: Record<string, Node>;
  items?: Node;
  additionalProperties?: Node | boolean;
  anyOf?: Node[];
};

/** Every schema node that a user writes a value for, with a readable path. */
function nodes(schema: Node, path = ''): [string, Node][] {
  const out: [string, Node][] = [[path || '(root)', schema]];
  for (const [key, child] of Object.entries(schema.properties ?? {})) out.push(...nodes(child, `${path}.${key}`));
  if (schema.items) out.push(...nodes(schema.items, `${path}[]`));
  if (typeof schema.additionalProperties === 'object') out.push(...nodes(schema.additionalProperties, `${path}.*`));
  schema.anyOf?.forEach((branch, index) => out.push(...nodes(branch, `${path}|${index}`)));
  return out;
}

describe('jsonSchemaOf', () => {
  it.each(SCHEMA_KINDS)('gives the %s schema $schema 2020-12, an $id and a title, first', (kind) => {
    const schema = jsonSchemaOf(kind);
    expect(Object.keys(schema).slice(0, 4)).toEqual(['$schema', '$id', 'title', 'description']);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(`https://unpkg.com/core-cli/docs/schemas/${kind}.schema.json`);
    expect(schema.title).toEqual(expect.any(String));
    expect(schema.type).toBe('object');
    // What core reads refuses a field it does not know; the MESSAGE webhook, which core sends, promises bots it may grow.
    expect(schema.additionalProperties).toBe(kind !== 'message' ? false : true);
  });

  it.each(SCHEMA_KINDS)('describes every field of the %s schema, and every form of a field that has several', (kind) => {
    const undescribed = nodes(jsonSchemaOf(kind) as Node)
      .filter(([, node]) => !node.description)
      // The keys of a mapping are described by the mapping itself.
      .map(([path]) => path);
    expect(undescribed).toEqual([]);
  });

  // Each rule the descriptions state in words, and where: the rules a JSON Schema cannot express, and
  // those that tie fields together, which the schemas also express (test/schema/agreement.test.ts).
  it.each([
    ['reply', '', /text is required unless formattedText is given/],
    ['reply', '', /addressed by at least one of coreClientId, questionId, sessionId with questionIndex, or clientId/],
    ['reply', '', /sessionId and questionIndex go together/],
    ['reply', '', /came by email is answered by sessionId and questionIndex/],
    ['reply', '', /userIds, skillIds and unitIds are allowed only with code SWITCH_TO_HUMAN/],
    ['reply', '', /UTF-16 code units/],
    ['reply', 'messageListPicker', /at most 10 items across all sections/],
    ['reply', 'messageListPicker', /identifier unique across the whole message/],
    ['reply', 'quickRepliesHeaderFooter', /must not carry text, image, document and video all at once/],
    ['reply', 'quickReplies', /message\.max-quick-replies/],
    ['greet', '', /clientId or coreClientId must be given/],
    ['greet', '', /clientId takes priority/],
    ['greet', '', /UTF-16 code units/],
    ['greet', 'messageListPicker', /at most 10 items across all sections/],
    ['reason', '', /each locale at most once, compared without case/],
    ['reason', '', /UTF-16 code units/],
    ['config', '', /defaultProfile must name a profile/],
    ['config', '', /baseUrl must be an absolute http or https URL/],
    ['test', '', /each step is one of customer, press, bot, agent or release/],
    ['test', '', /the first step is customer/],
    ['test', '', /within goes only with bot, capture and handover only with bot: \{\.\.\.\}, agentId only with agent/],
    ['test', '', /every \$\{NAME\} is captured by an earlier step or is a key of every examples row/],
    ['test', '', /conversation names are unique/],
    ['test', '', /as a regular expression when written \/source\/flags/],
  ] as const)('states in the %s schema (%s) the rule %s', (kind, property, rule) => {
    const schema = jsonSchemaOf(kind as SchemaKind) as Node;
    const node = property === '' ? schema : schema.properties![property]!;
    expect(node.description).toMatch(rule);
  });

  it.each([
    ['reply', ''],
    ['reply', 'quickRepliesHeaderFooter'],
    ['greet', ''],
  ] as const)('does not call a rule the %s schema (%s) expresses one a JSON Schema cannot express', (kind, property) => {
    const schema = jsonSchemaOf(kind) as Node;
    const node = property === '' ? schema : schema.properties![property]!;
    expect(node.description).not.toMatch(/cannot express/);
  });

  it('writes longs as non-negative int64 integers, and sets of them with uniqueItems', () => {
    const reply = jsonSchemaOf('reply') as Node;
    for (const field of ['coreClientId', 'questionId', 'questionIndex']) {
      expect(reply.properties![field]).toMatchObject({ type: 'integer', format: 'int64', minimum: 0 });
    }
    for (const field of ['userIds', 'skillIds', 'unitIds']) {
      expect(reply.properties![field]).toMatchObject({ type: 'array', uniqueItems: true, items: { type: 'integer', format: 'int64' } });
    }
    expect((jsonSchemaOf('greet') as Node).properties!.coreClientId).toMatchObject({ type: 'integer', format: 'int64' });
  });

  it('carries the bounds of the payload schemas', () => {
    const reply = jsonSchemaOf('reply') as Node;
    const picker = reply.properties!.messageListPicker!;
    expect(picker.properties!.title).toMatchObject({ maxLength: 20, minLength: 1 });
    expect(picker.properties!.sections!.items!.properties!.items!.items!.properties!.subTitle).toMatchObject({ maxLength: 72 });
    expect(reply.properties!.quickReplies!.items!.properties!.callback_data).toMatchObject({ maxLength: 255 });
    expect(reply.properties!.quickReplies!.items!.required).toEqual(['type', 'text']);
    const reason = jsonSchemaOf('reason') as Node;
    expect(reason.properties!.code).toMatchObject({ maxLength: 256 });
    expect(reason.properties!.reasons!.items!.properties!.name).toMatchObject({ maxLength: 50 });
    expect(reason.required).toEqual(['code', 'reasons']);
  });

  it('returns a new object each time, so a caller may change it', () => {
    const first = jsonSchemaOf('reason');
    first.title = 'changed';
    expect(jsonSchemaOf('reason').title).not.toBe('changed');
  });

  it('refuses a description whose path names nothing, so a renamed config key cannot lose its words silently', () => {
    const schema = jsonSchemaOf('config');
    expect(() => applyNotes(schema, { 'profiles.*.tiemout': 'x' })).toThrow(/no schema at "profiles\.\*\.tiemout"/);
    applyNotes(schema, { 'profiles.*.token|1.env': 'the variable' });
    expect(JSON.stringify(schema)).toContain('"the variable"');
  });
});

describe('core schema', () => {
  it.each(SCHEMA_KINDS)('prints the %s schema exactly as docs/schemas holds it', async (kind) => {
    const result = await runInProcess(['schema', kind]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(readFileSync(join(repoRoot, 'docs/schemas', `${kind}.schema.json`), 'utf8'));
    expect(JSON.parse(result.stdout)).toEqual(jsonSchemaOf(kind));
  });

  it('refuses an unknown kind with exit 2 and names the ones there are', async () => {
    const result = await runInProcess(['schema', 'greeting']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Allowed choices are reply, greet, reason, config');
  });

  it('needs a kind', async () => {
    const result = await runInProcess(['schema']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing required argument 'kind'");
  });
});
