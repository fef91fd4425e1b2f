import { describe, expect, it } from '@jest/globals';
import { waitFor } from './wait-for.js';

describe('waitFor', () => {
  it('resolves with the first truthy value of the check', async () => {
    let calls = 0;
    const value = await waitFor(() => (++calls >= 3 ? { calls } : undefined), { what: 'three calls', intervalMs: 1 });
    expect(value).toEqual({ calls: 3 });
  });

  it('names what it waited for and the last value past its deadline', async () => {
    await expect(waitFor(async () => 0, { what: 'a miracle', timeoutMs: 20, intervalMs: 5 })).rejects.toThrow(/waiting for a miracle \(last: 0\)/);
  });
});
