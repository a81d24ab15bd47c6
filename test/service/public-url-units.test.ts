// What `publicUrl` may be: an http(s) origin, nothing more, since every route answers at its root.
import { describe, expect, it } from 'vitest';
import { publicOriginOf } from '../../src/service/routes/ws-origin.js';

describe('publicOriginOf', () => {
  it.each([
    ['https://browsers.example.com', 'https://browsers.example.com'],
    ['https://browsers.example.com/', 'https://browsers.example.com'],
    ['http://10.0.0.5:8340', 'http://10.0.0.5:8340'],
    ['HTTPS://Browsers.Example.com:443', 'https://browsers.example.com'],
  ])('takes %s as %s', (url, origin) => {
    expect(publicOriginOf(url)).toBe(origin);
  });

  it.each([
    ['browsers.example.com', 'is not a URL'],
    ['ftp://browsers.example.com', 'must be http:// or https://'],
    ['https://user:pw@browsers.example.com', 'must not carry credentials'],
    ['https://browsers.example.com/bcs', 'must be an origin only'],
    ['https://browsers.example.com/?a=1', 'must be an origin only'],
    ['https://browsers.example.com/#x', 'must be an origin only'],
  ])('refuses %s: %s', (url, says) => {
    expect(() => publicOriginOf(url)).toThrow(says);
  });
});
