import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { estimateTokens, tokenUnits } from './tokens.js';

const PROSE =
  'The committee met on Tuesday to discuss the budget for the coming year. After a long debate, ' +
  'the members agreed to increase funding for public libraries and to review the transport plan in spring.';

describe('estimateTokens', () => {
  it('is 0 for the empty text and at least 1 for any other text', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens(' ')).toBe(1);
    expect(estimateTokens('a')).toBe(1);
    fc.assert(fc.property(fc.string({ minLength: 1, unit: 'binary' }), (s) => estimateTokens(s) >= 1));
  });

  it('counts English prose at about four characters per token, erring high', () => {
    const tokens = estimateTokens(PROSE);
    expect(tokens).toBeGreaterThanOrEqual(PROSE.length / 4);
    expect(tokens).toBeLessThanOrEqual(PROSE.length / 3);
  });

  it('counts code and punctuation-heavy text higher than prose of the same length', () => {
    const code = 'function add(a, b) { return a + b; }\nconst x = add(1, 2);\nif (x !== 3) { throw new Error("no"); }\n';
    expect(estimateTokens(code)).toBeGreaterThan(code.length / 3.2);
    const json = '{"a":[1,2,3],"b":{"c":null,"d":"e"}}';
    expect(estimateTokens(json)).toBeGreaterThan(json.length / 2.5);
  });

  it('counts at least one token per CJK character', () => {
    const zh = '机器学习是人工智能的一个分支，它使计算机能够从数据中学习。';
    expect(estimateTokens(zh)).toBeGreaterThanOrEqual([...zh].length);
    const ja = 'これは日本語の文章です。カタカナもあります。';
    expect(estimateTokens(ja)).toBeGreaterThanOrEqual([...ja].length);
    const ko = '한국어 문장입니다';
    expect(estimateTokens(ko)).toBeGreaterThanOrEqual(8);
  });

  it('counts accented and non-Latin letters higher than ASCII letters', () => {
    expect(estimateTokens('Привет, как дела у тебя сегодня?')).toBeGreaterThan(estimateTokens('Hello, how are you doing today?'));
    expect(estimateTokens('😀😀😀😀')).toBeGreaterThanOrEqual(4);
  });

  it('adds up exactly over texts that end with a newline (the chunker relies on it)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(tokenUnits(`${a}\n${b}`)).toBe(tokenUnits(`${a}\n`) + tokenUnits(b));
      }),
    );
  });

  it('never decreases when text is appended', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(estimateTokens(a + b)).toBeGreaterThanOrEqual(estimateTokens(a));
      }),
    );
  });
});
