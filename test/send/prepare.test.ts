import { describe, expect, it } from 'vitest';
import { prepareRequest, type RequestSettings } from '../../src/send/request.js';

const reply = { method: 'POST', path: '/api/v1/bot/reply' } as const;
const reason = { method: 'PUT', path: '/api/v1/inactivity/reasons' } as const;
const settings = (extra: Partial<RequestSettings> = {}): RequestSettings => ({
  baseUrl: 'https://chat.example.com/',
  tenant: 'acme',
  token: 'bot-token-123',
  headers: {},
  ...extra,
});

describe('a request prepared for the wire (src/send/request.ts)', () => {
  it('carries the method, the URL, the headers and the body of its payload', () => {
    const request = prepareRequest(reason, settings(), { code: 'LUNCH', n: 12345678901234567890n });
    expect(request).toMatchObject({
      method: 'PUT',
      url: 'https://chat.example.com/api/v1/inactivity/reasons',
      body: '{"code":"LUNCH","n":12345678901234567890}',
      tokenVariable: 'CORE_TOKEN',
      bearerFromToken: true,
    });
    expect(request.headers).toEqual({
      'Content-Type': 'application/json',
      Accept: 'application/json',
      'User-Agent': expect.stringMatching(/^core-cli\/\S+ node\/\S+$/),
      'X-Tenant-Name': 'acme',
      Authorization: 'Bearer bot-token-123',
    });
  });

  it('shares one frozen set of headers among the requests of one settings object, with and without a body apart', () => {
    const shared = settings();
    const first = prepareRequest(reason, shared, { code: 'A' });
    const second = prepareRequest(reason, shared, { code: 'B' });
    expect(second.headers).toBe(first.headers);
    expect(Object.isFrozen(first.headers)).toBe(true);
    expect([first.body, second.body]).toEqual(['{"code":"A"}', '{"code":"B"}']);
    const bodiless = prepareRequest({ method: 'GET', path: '/api/v1/inactivity/reasons' }, shared, undefined);
    expect(bodiless.headers).not.toHaveProperty('Content-Type');
    expect(bodiless.body).toBe('');
  });

  it('keeps operations apart within one settings object', () => {
    const shared = settings();
    expect(prepareRequest(reply, shared, {}).url).toBe('https://chat.example.com/api/v1/bot/reply');
    expect(prepareRequest(reason, shared, {}).url).toBe('https://chat.example.com/api/v1/inactivity/reasons');
    expect(prepareRequest(reply, shared, {}, 'CORE_INTEGRATOR_TOKEN').tokenVariable).toBe('CORE_INTEGRATOR_TOKEN');
  });

  it('lets a header of the profile replace one of its own, whatever its case, and an Authorization replace the token', () => {
    const request = prepareRequest(reason, settings({ headers: { accept: 'text/plain', AUTHORIZATION: 'Basic abc' } }), {});
    expect(request.headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': expect.any(String),
      'X-Tenant-Name': 'acme',
      accept: 'text/plain',
      AUTHORIZATION: 'Basic abc',
    });
    expect(request.bearerFromToken).toBe(false);
  });

  it('sends no Authorization without a token', () => {
    expect(prepareRequest(reason, settings({ token: null }), {}).headers).not.toHaveProperty('Authorization');
  });
});
