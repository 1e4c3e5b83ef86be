import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateGreeting, validateReason, validateReply } from '../../src/payload/index.js';
import { jsonSchemaOf } from '../../src/schema/json-schema.js';
import { openApiDocument } from '../../scripts/docs/openapi.js';
import { repoRoot } from '../helpers/run.js';

/** The committed document, as a user loads it into Postman or a mock server (its examples hold only safe integers). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const doc = JSON.parse(readFileSync(join(repoRoot, 'docs/openapi.json'), 'utf8')) as Any;

const OPERATIONS = [
  ['/api/v1/chatbot', 'post', 'sendBotAnswer', 'BotAnswer'],
  ['/api/v1/chatbot/greet', 'post', 'sendGreeting', 'Greeting'],
  ['/api/v1/inactivity/reasons', 'put', 'updateInactivityReason', 'InactivityReason'],
] as const;

/** Follows a local reference such as `#/components/schemas/Error`; undefined when it leads nowhere. */
function resolveRef(ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function refs(node: unknown, path = '#'): [string, string][] {
  if (Array.isArray(node)) return node.flatMap((item, index) => refs(item, `${path}/${index}`));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' ? [[path, value] as [string, string]] : refs(value, `${path}/${key}`),
  );
}

/** An operation's parameters and responses, with references followed. */
function deref<T>(node: T): T {
  const ref = (node as { $ref?: string }).$ref;
  return (ref === undefined ? node : resolveRef(ref)) as T;
}

describe('docs/openapi.json', () => {
  it('is OpenAPI 3.1.0 with the JSON Schema 2020-12 dialect', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('has a server whose URL is the {base_url} variable', () => {
    expect(doc.servers).toEqual([
      expect.objectContaining({ url: '{base_url}', variables: { base_url: expect.objectContaining({ default: expect.any(String) }) } }),
    ]);
  });

  it('describes exactly the three operations of the API (docs/api.md)', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(OPERATIONS.map(([path]) => path).sort());
    for (const [path, method] of OPERATIONS) expect(Object.keys(doc.paths[path])).toEqual([method]);
  });

  it('resolves every $ref in the document', () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(10);
    expect(all.filter(([, ref]) => resolveRef(ref) === undefined)).toEqual([]);
  });

  it('gives the operations unique operationIds', () => {
    const ids = OPERATIONS.map(([path, method]) => doc.paths[path][method].operationId);
    expect(ids).toEqual(OPERATIONS.map(([, , id]) => id));
  });

  it.each(OPERATIONS)('%s %s (%s) requires X-Tenant-Name and a JSON body of the %s component', (path, method, _id, component) => {
    const operation = doc.paths[path][method];
    const parameters = operation.parameters.map(deref);
    expect(parameters).toContainEqual(expect.objectContaining({ name: 'X-Tenant-Name', in: 'header', required: true }));
    expect(operation.requestBody.required).toBe(true);
    expect(Object.keys(operation.requestBody.content)).toEqual(['application/json']);
    expect(operation.requestBody.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${component}` });
    expect(operation.description).toMatch(/Content-Type: application\/json/);
  });

  it.each(OPERATIONS)('%s %s answers 200 with an X-Request-Id UUID header and no body', (path, method) => {
    const ok = deref(doc.paths[path][method].responses['200']);
    expect(ok.content).toBeUndefined();
    expect(deref(ok.headers['X-Request-Id']).schema).toEqual({ type: 'string', format: 'uuid' });
  });

  it('answers the reason update 404 and 409 with the Error body', () => {
    const responses = doc.paths['/api/v1/inactivity/reasons'].put.responses;
    expect(Object.keys(responses).sort()).toEqual(['200', '404', '409']);
    for (const status of ['404', '409']) {
      const response = deref(responses[status]);
      expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    }
    expect(Object.keys(doc.components.schemas.Error.properties)).toEqual(['timestamp', 'method', 'uri', 'message']);
  });

  it('secures the bot operations with a bearer token, and notes that the integrator credential format is not shown', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/api/v1/chatbot'].post.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api/v1/chatbot/greet'].post.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api/v1/inactivity/reasons'].put.security).toEqual([{ integratorAuth: [] }]);
    expect(doc.components.securitySchemes.integratorAuth.description).toMatch(/does not show the credential's format/);
  });

  it('builds the body components from the JSON Schemas of the API body, without their standalone $schema and $id', () => {
    for (const [kind, component] of [
      ['reply', 'BotAnswer'],
      ['greet', 'Greeting'],
      ['reason', 'InactivityReason'],
    ] as const) {
      const { $schema: _schema, $id: _id, ...expected } = jsonSchemaOf(kind, 'body');
      expect(doc.components.schemas[component]).toEqual(expected);
    }
  });

  it("leaves out what only a payload file of core may hold: the editors' $schema key and receivedAt now", () => {
    for (const component of ['BotAnswer', 'Greeting', 'InactivityReason']) {
      expect(Object.keys(doc.components.schemas[component].properties)).not.toContain('$schema');
    }
    for (const component of ['BotAnswer', 'Greeting']) {
      const receivedAt = doc.components.schemas[component].properties.receivedAt;
      expect(receivedAt.anyOf).toBeUndefined();
      expect(new RegExp(receivedAt.pattern, 'u').test('now')).toBe(false);
      expect(new RegExp(receivedAt.pattern, 'u').test('2026-01-31T09:30:00.000Z')).toBe(true);
    }
  });

  it('shows request examples that pass the rules core checks', () => {
    const example = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].example;
    expect(validateReply(example('/api/v1/chatbot', 'post')).ok).toBe(true);
    expect(validateGreeting(example('/api/v1/chatbot/greet', 'post')).ok).toBe(true);
    expect(validateReason(example('/api/v1/inactivity/reasons', 'put')).ok).toBe(true);
  });

  it('is what openApiDocument makes, without examples when none are given', () => {
    const bare = openApiDocument({ version: '9.9.9' }) as Any;
    expect(bare.info.version).toBe('9.9.9');
    expect(bare.paths['/api/v1/chatbot'].post.requestBody.content['application/json'].example).toBeUndefined();
    expect(bare.components).toEqual(doc.components);
  });
});
