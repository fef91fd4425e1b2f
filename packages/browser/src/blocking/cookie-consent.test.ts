import { describe, expect, it, jest } from '@jest/globals';
import { filterCompactRules, type Config } from '@duckduckgo/autoconsent';
import { ConsentInitResponses, encodeInitResponse, loadConsentAssets } from './cookie-consent.js';

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

describe('ConsentInitResponses', () => {
  it("answers every frame what autoconsent's own filtering gives it, computing each distinct answer once", async () => {
    const { rules } = await loadConsentAssets();
    // URLs of sites some rules name (from their patterns, `^https?://(www\\.)?host/`), and sites none names.
    const named = rules.r.slice(...rules.index.specificRuleRange)
      .map((rule) => /^\^https\?:\/\/\(www\\\.\)\?([a-z0-9\\.-]+)\//.exec(rule[3])?.[1]?.replace(/\\/g, ''))
      .filter((host): host is string => host !== undefined)
      .slice(0, 40);
    expect(named.length).toBe(40);
    const urls = [
      ...named.flatMap((host) => [`https://www.${host}/`, `https://${host}/shop?x=1`]),
      'https://www.example.com/article', 'https://news.example/a', 'http://127.0.0.1:8001/documentation/', 'https://news.example/b',
    ];
    const configs = [{ enabled: true, enablePrehide: false } as unknown as Config, { enabled: true, enablePrehide: true } as unknown as Config];
    // Room for every case here (each named site is one). A copy of a configuration is the same case.
    configs.push({ ...configs[0] } as Config);
    const responses = new ConsentInitResponses(rules, 1000);
    const built = jest.spyOn(JSON, 'stringify');
    const encoded = () => built.mock.calls.filter(([value]) => (value as { type?: unknown } | null)?.type === 'initResp').length;
    let differ = 0;
    try {
      for (const round of [1, 2]) {
        for (const url of urls) {
          for (const mainFrame of [true, false]) {
            for (const config of configs) {
              const expected = encodeInitResponse(config, filterCompactRules(rules, { url, mainFrame }));
              const calls = encoded();
              const got = responses.get(url, mainFrame, config);
              expect([url, mainFrame, got === expected]).toEqual([url, mainFrame, true]);
              // Built once: the second round, and the copy of the first configuration, find it kept.
              if (round === 2 || config === configs[2]) expect(encoded()).toBe(calls);
            }
          }
          if (round === 1 && filterCompactRules(rules, { url, mainFrame: true }).r.length !== filterCompactRules(rules, { url: 'https://news.example/', mainFrame: true }).r.length) differ += 1;
        }
      }
    } finally {
      built.mockRestore();
    }
    // Many named sites' top frames do get rules of their own (others' rules run in frames only).
    expect(differ).toBeGreaterThan(20);
  });

  it('keeps a bounded number of answers, the least recently used dropped first', async () => {
    const { rules } = await loadConsentAssets();
    const responses = new ConsentInitResponses(rules, 2);
    const config = { enabled: true } as unknown as Config;
    const built = jest.spyOn(JSON, 'stringify');
    try {
      const encoded = () => built.mock.calls.filter(([value]) => (value as { type?: unknown } | null)?.type === 'initResp').length;
      const builds = (url: string) => {
        const before = encoded();
        responses.get(url, true, config);
        return encoded() - before;
      };
      // news.example's case (no site rule) is used again before coasthotels' comes: dropbox's is dropped.
      expect([builds('https://news.example/'), builds('https://www.dropbox.com/'), builds('https://news.example/a')]).toEqual([1, 1, 0]);
      expect(builds('https://www.coasthotels.com/')).toBe(1);
      expect([builds('https://news.example/b'), builds('https://www.dropbox.com/')]).toEqual([0, 1]);
    } finally {
      built.mockRestore();
    }
  });
});
