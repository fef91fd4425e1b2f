import { describe, expect, it } from '@jest/globals';
import { splitUrls } from './extract.service.js';

describe('splitUrls', () => {
  it('keeps valid URLs (normalized), a trailing /* as the whole site, and lists invalid ones as given', () => {
    expect(splitUrls(['https://a.test/page', 'b.test/docs/*', 'https://c.test/*', 'ftp://x.test/', 'not a url', 'https://d.test//*'])).toEqual({
      valid: ['https://a.test/page', 'http://b.test/docs/*', 'https://c.test/*', 'https://d.test/*'],
      invalid: ['ftp://x.test/', 'not a url'],
    });
  });
});
