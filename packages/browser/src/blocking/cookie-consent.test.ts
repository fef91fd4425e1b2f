import { describe, expect, it } from '@jest/globals';
import { filterCompactRules, type Config } from '@duckduckgo/autoconsent';
import { encodeInitResponse, loadConsentAssets } from './cookie-consent.js';

describe('encodeInitResponse', () => {
  it('sends a frame its config and filtered rules as one JSON string, unchanged by the trip', async () => {
    // The rules reach the page as a string the page parses (cheap), not as an object argument
    // (Playwright's serialization of ~65 kB of rules held up the loading page).
    const { rules } = await loadConsentAssets();
    const compact = filterCompactRules(rules, { url: 'https://www.example.com/article', mainFrame: true });
    const config = { enabled: true, autoAction: 'optOut', detectRetries: 20 } as unknown as Config;
    const json = encodeInitResponse(config, compact);
    expect(typeof json).toBe('string');
    expect(JSON.parse(json)).toEqual({ type: 'initResp', config, rules: { autoconsent: [], compact } });
    expect(compact.r.length).toBeGreaterThan(0);
  });
});
