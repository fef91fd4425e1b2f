import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ConfigError, envBoolean, envInt, envBaseUrl, envList, loadConfig } from './index.js';

const schema = z.object({
  FLAG: envBoolean(true),
  PORT: envInt(3002, { min: 0, max: 65535 }),
  BASE: envBaseUrl(),
  LIST: envList(),
});

describe('loadConfig', () => {
  it('applies defaults', () => {
    expect(loadConfig(schema, {})).toEqual({ FLAG: true, PORT: 3002, BASE: undefined, LIST: [] });
  });
  it('reads "false" as false and trims a trailing slash', () => {
    const c = loadConfig(schema, { FLAG: 'false', PORT: '80', BASE: 'https://x.example/api/', LIST: 'a, b,' });
    expect(c).toEqual({ FLAG: false, PORT: 80, BASE: 'https://x.example/api', LIST: ['a', 'b'] });
  });
  it('lists every bad variable', () => {
    expect(() => loadConfig(schema, { FLAG: 'maybe', PORT: '70000' })).toThrow(ConfigError);
    try {
      loadConfig(schema, { FLAG: 'maybe', PORT: '70000' });
    } catch (e) {
      expect((e as ConfigError).issues).toHaveLength(2);
      expect((e as ConfigError).message).toMatch(/FLAG/);
      expect((e as ConfigError).message).toMatch(/PORT/);
    }
  });
});
