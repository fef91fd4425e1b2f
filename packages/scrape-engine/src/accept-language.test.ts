import { describe, expect, it } from '@jest/globals';
import { acceptLanguageFor } from './accept-language.js';

describe('acceptLanguageFor', () => {
  it('builds Accept-Language with base languages and decreasing q values', () => {
    expect(acceptLanguageFor(['de-DE'])).toBe('de-DE,de;q=0.9');
    expect(acceptLanguageFor(['fr-CH', 'en'])).toBe('fr-CH,fr;q=0.9,en;q=0.8');
  });
});
