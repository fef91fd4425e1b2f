import { describe, expect, it } from '@jest/globals';
import { scrapeCredits, withFormatCredits } from './credit-ledger.js';

describe('withFormatCredits', () => {
  it('adds the credits of each document transformer to the cost of the page', () => {
    expect(withFormatCredits(scrapeCredits({}), [4, 0], { lockdown: false })).toBe(5);
    expect(withFormatCredits(scrapeCredits({ proxyUsed: 'enhanced' }), [4], { lockdown: false })).toBe(9);
  });

  it('ignores negative declared credits', () => {
    expect(withFormatCredits(1, [-3, 2], { lockdown: false })).toBe(3);
  });

  it('bills a lockdown scrape its flat amount whatever formats it asked for (spec: 5 on a hit)', () => {
    expect(withFormatCredits(scrapeCredits({ lockdown: { hit: true } }), [4, 4], { lockdown: true })).toBe(5);
    expect(withFormatCredits(scrapeCredits({ lockdown: { hit: false } }), [4], { lockdown: true })).toBe(1);
  });
});
