import { describe, expect, it } from 'vitest';
import { deliveryProblem, newDelivery } from '../../../src/sandbox/store/delivery.js';
import { anEvent } from '../../helpers/events.js';

/**
 * The MESSAGE webhook of a customer message (src/sandbox/store/delivery.ts): its exact bytes, made
 * from the event alone, and what breaks the contract in one made of fields from outside.
 */

const asked = anEvent('customer.message', {
  seq: 2,
  tenant: 'acme',
  time: '2026-01-01T00:00:00.002Z',
  sessionId: 's-1',
  coreClientId: 9223372036854775807n,
  clientId: 'alice',
  questionId: 2n ** 53n + 1n,
  questionIndex: 3n,
  text: 'Grüße 👋',
  deliveryId: 'msg_1',
  noWebhook: null,
});

describe('the delivery of a customer message', () => {
  it('holds the MESSAGE webhook as UTF-8 JSON, its identifiers exact, timed at the message', () => {
    const delivery = newDelivery({ ...asked, deliveryId: 'msg_1' });
    expect(delivery.body.toString('utf8')).toBe(
      '{"type":"MESSAGE","tenant":"acme","timestamp":"2026-01-01T00:00:00.002Z","message":{' +
        '"questionId":9007199254740993,"questionIndex":3,"sessionId":"s-1","coreClientId":9223372036854775807,' +
        '"clientId":"alice","type":"TEXT","channel":"WEB","text":"Grüße 👋","receivedAt":"2026-01-01T00:00:00.002Z",' +
        '"quickReply":null,"listItem":null}}',
    );
    // ü and ß are two bytes each in UTF-8, the emoji four.
    expect(delivery.body.byteLength).toBe(delivery.body.toString('utf8').length + 2 + 2);
  });

  it('is in flight from the start, never redelivered yet, and names what it delivers', () => {
    expect(newDelivery({ ...asked, deliveryId: 'msg_1' })).toEqual({
      deliveryId: 'msg_1',
      tenant: 'acme',
      sessionId: 's-1',
      questionId: 2n ** 53n + 1n,
      body: expect.any(Buffer),
      seq: 2,
      redeliveries: 0,
      inFlight: true,
    });
  });

  it('is made from the event alone: the same event makes the same bytes', () => {
    expect(newDelivery({ ...asked, deliveryId: 'msg_1' }).body).toEqual(newDelivery({ ...asked, deliveryId: 'msg_1' }).body);
  });
});

describe('what breaks the contract in the delivery of a customer message', () => {
  it('is nothing for a message the contract takes', () => {
    expect(deliveryProblem(asked)).toBeUndefined();
  });

  it.each([
    ['an empty text', { text: '' }, /^message\.text: empty, and the message carries no attachments$/],
    [
      'an empty text and a channel the contract does not know',
      { text: '', channel: 'FAX' as never },
      /^message\.channel: [^;]+; message\.text: empty, and the message carries no attachments$/,
    ],
  ])('names each problem of %s, separated by semicolons', (_, fields, problem) => {
    expect(deliveryProblem({ ...asked, ...fields })).toMatch(problem);
  });

  it('is what makes the delivery refused: newDelivery throws on it', () => {
    expect(() => newDelivery({ ...asked, text: '', deliveryId: 'msg_1' })).toThrow(/message\.text: empty/);
  });
});
