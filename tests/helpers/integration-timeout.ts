import { jest } from '@jest/globals';

// The integration project's default per-test limit (see jest.config.mjs); a test may still set its own.
jest.setTimeout(30_000);
