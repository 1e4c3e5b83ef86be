import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it, onTestFinished } from 'vitest';
import { messageDelivery } from '../../src/payload/message.js';
import { jsonSchemaOf } from '../../src/schema/json-schema.js';
import { jsonSchemaValidator } from '../helpers/json-schema.js';
import { startRecordingServer, type RecordedRequest } from '../helpers/recording-server.js';
import { repoRoot } from '../helpers/run.js';
import { customerSays, sandbox, sendReply, startConversation } from '../sandbox/helpers.js';

/**
 * The MESSAGE webhook's published contract (docs/schemas/message.schema.json, `webhooks.MESSAGE` of
 * docs/openapi.json) against real deliveries: a running sandbox delivers to a bot on loopback that
 * records each request as it came, one of every channel and kind (a typed text on WEB, IM and EMAIL,
 * EMAIL threads two questions deep, a pressed button with its quickReply, a picked list item with its
 * listItem), and each body and its headers are checked with ajv against the committed documents, as a
 * bot's own tests would read them.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
const readJson = (path: string): Any => JSON.parse(readFileSync(join(repoRoot, path), 'utf8'));

/** Deliveries of every channel and kind, as the bot received them. */
async function capturedDeliveries(): Promise<RecordedRequest[]> {
  const bot = await startRecordingServer(() => ({ status: 200 }));
  onTestFinished(() => bot.close());
  const sb = await sandbox({ botUrl: `${bot.url}/webhook` });
  let expected = 0;
  const say = async (sessionId: string, body: Record<string, unknown> | string) => {
    const asked = await customerSays(sb, sessionId, body);
    await bot.received(++expected);
    return asked;
  };
  const answer = async (body: Record<string, unknown>) => {
    const result = await sendReply(sb, { answerId: `a-${expected}`, text: 'Choose one', ...body });
    expect(result.status, result.text).toBe(200);
  };
  const web = await startConversation(sb, { channel: 'WEB' });
  const first = await say(web.sessionId, 'Where is my order? 🧑‍🤝‍🧑 שלום \u200f é\u0301');
  await answer({ questionId: first.questionId, quickReplies: [{ type: 'TEXT', text: 'Track it', shown_text: 'Track my parcel' }] });
  await say(web.sessionId, { press: 'Track it' });
  const im = await startConversation(sb, { channel: 'IM', clientId: 'client-42' });
  const asked = await say(im.sessionId, 'Which size?');
  await answer({
    questionId: asked.questionId,
    messageListPicker: { title: 'Sizes', sections: [{ items: [{ title: 'Large', identifier: 'size-l' }] }] },
  });
  await say(im.sessionId, { pick: 'size-l' });
  const email = await startConversation(sb, { channel: 'EMAIL' });
  const mail = await say(email.sessionId, 'Subject: invoice\n\nPlease send the invoice again.');
  await answer({ sessionId: email.sessionId, questionIndex: mail.questionIndex });
  await say(email.sessionId, 'And the receipt, please.');
  return bot.requests;
}

/** A local reference of the OpenAPI document, followed. */
function resolve(doc: Any, ref: string): Any {
  return ref
    .slice(2)
    .split('/')
    .reduce((node: Any, key) => node[key], doc);
}

describe('the MESSAGE webhook contract', () => {
  it('validates real deliveries of every channel and kind against the published JSON Schema and OpenAPI webhook', async () => {
    const deliveries = await capturedDeliveries();
    const bodies = deliveries.map((request) => JSON.parse(request.text) as Any);
    // Every channel and kind is there: typed texts on three channels, a press, a pick, an EMAIL thread two deep.
    expect(bodies.map((body) => [body.message.channel, body.message.type, body.message.questionIndex])).toEqual([
      ['WEB', 'TEXT', 1],
      ['WEB', 'TEXT', 2],
      ['IM', 'TEXT', 1],
      ['IM', 'TEXT', 2],
      ['EMAIL', 'EMAIL', 1],
      ['EMAIL', 'EMAIL', 2],
    ]);
    expect(bodies[1].message.quickReply).toEqual({ type: 'TEXT', text: 'Track it', shown_text: 'Track my parcel' });
    expect(bodies[1].message.text).toBe('Track my parcel');
    expect(bodies[3].message.listItem).toEqual({ identifier: 'size-l', title: 'Large' });

    const schema = jsonSchemaValidator(readJson('docs/schemas/message.schema.json'));
    const openapi = readJson('docs/openapi.json');
    const webhook = openapi.webhooks.MESSAGE.post;
    const bodySchema = resolve(openapi, webhook.requestBody.content['application/json'].schema.$ref);
    const inOpenApi = jsonSchemaValidator(bodySchema);
    const headers = webhook.parameters.map((parameter: Any) => ({
      name: String(parameter.name).toLowerCase(),
      check: jsonSchemaValidator(parameter.schema),
    }));
    for (const [index, request] of deliveries.entries()) {
      const body = bodies[index];
      expect(schema(body), `delivery ${index + 1} against message.schema.json`).toEqual([]);
      expect(inOpenApi(body), `delivery ${index + 1} against webhooks.MESSAGE`).toEqual([]);
      expect(request.headers['content-type']).toBe('application/json');
      for (const header of headers) {
        expect(header.check(request.headers[header.name]), `delivery ${index + 1}: header ${header.name}`).toEqual([]);
      }
    }
  });

  it.each([
    [
      'an unknown field at the top and in the message',
      (body: Any) => ({ ...body, later: 1, message: { ...body.message, later: true } }),
      true,
    ],
    ['a text of 4,000 characters', (body: Any) => ({ ...body, message: { ...body.message, text: 'x'.repeat(4000) } }), true],
    ['a text of 4,001 characters', (body: Any) => ({ ...body, message: { ...body.message, text: 'x'.repeat(4001) } }), false],
    [
      'an empty text with an attachment',
      (body: Any) => ({
        ...body,
        message: { ...body.message, text: '', attachments: [{ url: 'https://f.example/a.png', name: 'a.png' }] },
      }),
      true,
    ],
    ['an empty text without attachments', (body: Any) => ({ ...body, message: { ...body.message, text: '' } }), false],
    ['a questionId of 2^63 - 1', (body: Any) => ({ ...body, message: { ...body.message, questionId: 9223372036854775807n } }), true],
    ['a channel the platform has not', (body: Any) => ({ ...body, message: { ...body.message, channel: 'SMS' } }), false],
    ['no sessionId', (body: Any) => ({ ...body, message: { ...body.message, sessionId: undefined } }), false],
    ['a type other than MESSAGE', (body: Any) => ({ ...body, type: 'GREETING' }), false],
  ])('the schema the sandbox builds deliveries through, and the JSON Schema, agree on %s', (_what, change, valid) => {
    const example = readJson('docs/examples/message.json');
    example.message.questionId = BigInt(example.message.questionId);
    example.message.questionIndex = BigInt(example.message.questionIndex);
    example.message.coreClientId = BigInt(example.message.coreClientId);
    const body = change(example);
    const built = () => messageDelivery(body);
    if (valid) expect(built).not.toThrow();
    else expect(built).toThrow(/breaks its contract/);
    // The JSON Schema reads JSON numbers: the same body written as JSON, every integer exact on the wire.
    const plain = JSON.parse(JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value)));
    expect(jsonSchemaValidator(jsonSchemaOf('message'))(plain).length === 0).toBe(valid);
  });

  it('publishes docs/examples/message.json as the webhook example, valid against its schema', () => {
    const openapi = readJson('docs/openapi.json');
    const example = readJson('docs/examples/message.json');
    expect(openapi.webhooks.MESSAGE.post.requestBody.content['application/json'].example).toEqual(example);
    expect(jsonSchemaValidator(readJson('docs/schemas/message.schema.json'))(example)).toEqual([]);
  });

  it('docs/openapi.json passes an OpenAPI 3.1 validator, webhooks included', async () => {
    const validator = new Validator();
    const result = await validator.validate(readJson('docs/openapi.json'));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('the OpenAPI validator catches a broken webhook (a response map that is not one)', async () => {
    const broken = readJson('docs/openapi.json');
    broken.webhooks.MESSAGE.post.responses = 'none';
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });
});
