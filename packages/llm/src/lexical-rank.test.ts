import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { rankByQuery, stem } from './lexical-rank.js';

describe('rankByQuery', () => {
  const texts = [
    'The weather today is sunny and warm.',
    'Our prices: the basic plan is priced at 10 euros per month.',
    'Pricing of the enterprise plan depends on the number of seats.',
    'Contact us by email.',
  ];

  it('returns the best matching texts first, only those with a score', () => {
    expect(rankByQuery(texts, 'What is the price of the plan?', 10)).toEqual([1, 2]);
    expect(rankByQuery(texts, 'price', 1)).toEqual([1]);
    expect(rankByQuery(texts, 'nothing matches zebra', 10)).toEqual([]);
    expect(rankByQuery(texts, 'price', 0)).toEqual([]);
    expect(rankByQuery([], 'price', 3)).toEqual([]);
  });

  it('ignores stop words of the query unless it has nothing else', () => {
    // "the" is in three texts; without stop words only "email" counts.
    expect(rankByQuery(texts, 'the email', 10)).toEqual([3]);
    expect(rankByQuery(['to be', 'or not', 'x'], 'to be or not', 10)).toEqual([0, 1]);
  });

  it('folds case and accents and matches CJK by character bigrams', () => {
    expect(rankByQuery(['Café crème', 'cafe noir', 'thé'], 'CAFÉ', 10)).toEqual([0, 1]);
    expect(rankByQuery(['今日は天気がいいです', '東京の天気予報', '経済ニュース'], '天気予報', 10)).toEqual([1, 0]);
    expect(rankByQuery(['서울 날씨', '부산 뉴스'], '날씨', 10)).toEqual([0]);
  });

  it('prefers higher term frequency and shorter texts, and breaks ties by original order', () => {
    expect(rankByQuery(['apple', 'apple apple banana', 'banana apple'], 'apple', 10)[0]).toBe(0);
    expect(rankByQuery(['same text', 'other', 'same text'], 'same', 10)).toEqual([0, 2]);
  });

  it('returns distinct indices, at most limit, each with a matching term', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 30 }), { maxLength: 10 }), fc.string({ maxLength: 10 }), fc.nat(12), (ts, q, limit) => {
        const ranked = rankByQuery(ts, q, limit);
        expect(ranked.length).toBeLessThanOrEqual(limit);
        expect(new Set(ranked).size).toBe(ranked.length);
        for (const i of ranked) expect(i >= 0 && i < ts.length).toBe(true);
      }),
    );
  });
});

describe('stem', () => {
  it('joins plural, -ing and -ed forms', () => {
    for (const [a, b] of [['prices', 'price'], ['priced', 'pricing'], ['running', 'run'], ['stopped', 'stop'], ['boxes', 'box'], ['cities', 'city'], ['classes', 'class']]) {
      expect(stem(a ?? '')).toBe(stem(b ?? ''));
    }
    expect(stem('bus')).toBe('bus');
    expect(stem('analysis')).toBe('analysis');
  });
});
