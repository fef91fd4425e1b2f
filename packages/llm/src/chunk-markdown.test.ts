import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { chunkMarkdown, chunkMarkdownParts } from './chunk-markdown.js';
import { estimateTokens } from './tokens.js';

const sentence = (i: number): string => `Sentence number ${i} says something about the topic at hand in plain words.`;
const paragraph = (from: number, count: number): string =>
  Array.from({ length: count }, (_, k) => sentence(from + k)).join(' ');

describe('chunkMarkdown', () => {
  it('returns the markdown as one chunk when it fits', () => {
    const md = '# Title\n\nShort text.\n';
    expect(chunkMarkdown(md, { maxTokens: 100, overlapTokens: 10 })).toEqual([md]);
    expect(chunkMarkdown('', { maxTokens: 100, overlapTokens: 10 })).toEqual(['']);
  });

  it('starts chunks at headings of the highest level present', () => {
    const section = (h: string, i: number): string => `${h}\n\n${paragraph(i, 3)}\n\n`;
    const md = [section('# One', 0), section('## One.a', 10), section('# Two', 20), section('## Two.a', 30)].join('');
    const sectionTokens = estimateTokens(section('# One', 0));
    const parts = chunkMarkdownParts(md, { maxTokens: sectionTokens * 2 + 10, overlapTokens: 0 });
    expect(parts.map((p) => p.body.split('\n')[0])).toEqual(['# One', '# Two']);
  });

  it('goes down to lower heading levels when a section is too large', () => {
    const md = `# Top\n\nIntro.\n\n## A\n\n${paragraph(0, 4)}\n\n## B\n\n${paragraph(10, 4)}\n\n### B.1\n\n${paragraph(20, 1)}\n`;
    const parts = chunkMarkdownParts(md, { maxTokens: estimateTokens(`## B\n\n${paragraph(10, 4)}\n\n`) + 5, overlapTokens: 0 });
    const firstLines = parts.map((p) => p.body.split('\n')[0]);
    // "# Top" and "## A" fit together; "## B" with its "### B.1" does not, so it is cut at "### B.1".
    expect(firstLines).toEqual(['# Top', '## B', '### B.1']);
  });

  it('starts the section after a section too large for a chunk at its heading', () => {
    const md = `## Big\n\n${paragraph(0, 6)}\n\n${paragraph(10, 1)}\n\n## Small\n\nShort.\n\n## Small too\n\nShort.\n`;
    const parts = chunkMarkdownParts(md, { maxTokens: estimateTokens(paragraph(0, 6)) + 10, overlapTokens: 0 });
    expect(parts.map((p) => p.body.split('\n')[0])).toEqual(['## Big', paragraph(10, 1), '## Small']);
  });

  it('packs the end of a cut paragraph with the paragraphs after it, and blank lines with the text before them', () => {
    const md = `${paragraph(0, 12)}\n\n\n${paragraph(20, 1)}\n\n${paragraph(30, 1)}\n`;
    const parts = chunkMarkdownParts(md, { maxTokens: 100, overlapTokens: 0 });
    expect(parts.map((p) => p.body).join('')).toBe(md);
    expect(parts.every((p) => p.body.trim() !== '')).toBe(true);
    const last = parts[parts.length - 1]?.body ?? '';
    expect(last.endsWith(`${paragraph(30, 1)}\n`)).toBe(true);
    expect(last.includes(paragraph(20, 1))).toBe(true);
    // Hard cuts fall after a sentence.
    for (const p of parts.slice(0, -1)) expect(p.body).toMatch(/\.\s*$/);
  });

  it('keeps a fenced code block and a table whole when they fit', () => {
    const fence = '```js\n' + Array.from({ length: 8 }, (_, i) => `const v${i} = compute(${i});\n\n`).join('') + '```\n';
    const table = '| name | price |\n|---|---|\n' + Array.from({ length: 8 }, (_, i) => `| item ${i} | ${i}.99 |\n`).join('');
    const md = `${paragraph(0, 3)}\n\n${fence}\n${paragraph(10, 3)}\n\n${table}\n${paragraph(20, 3)}\n`;
    const max = Math.max(estimateTokens(fence), estimateTokens(table)) + 8;
    const parts = chunkMarkdownParts(md, { maxTokens: max, overlapTokens: 0 });
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.some((p) => p.body.includes(fence))).toBe(true);
    expect(parts.some((p) => p.body.includes(table))).toBe(true);
    expect(parts.map((p) => p.body).join('')).toBe(md);
  });

  it('splits a block larger than a chunk by lines, and a line larger than a chunk by characters', () => {
    const fence = '```\n' + Array.from({ length: 40 }, (_, i) => `line ${i} of code;\n`).join('') + '```\n';
    const parts = chunkMarkdownParts(fence, { maxTokens: 30, overlapTokens: 0 });
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.every((p) => p.body.endsWith('\n'))).toBe(true);
    const long = 'word '.repeat(300) + '😀'.repeat(50);
    const cut = chunkMarkdownParts(long, { maxTokens: 25, overlapTokens: 0 });
    expect(cut.map((p) => p.body).join('')).toBe(long);
    for (const p of cut) {
      expect(estimateTokens(p.body)).toBeLessThanOrEqual(25);
      expect(p.body.charCodeAt(0) >= 0xdc00 && p.body.charCodeAt(0) <= 0xdfff).toBe(false);
    }
  });

  it('starts each following chunk with the end of the previous one, whole lines where possible', () => {
    const md = Array.from({ length: 30 }, (_, i) => `- item ${i} with a few words\n`).join('');
    const parts = chunkMarkdownParts(md, { maxTokens: 60, overlapTokens: 15 });
    expect(parts.length).toBeGreaterThan(1);
    expect(parts[0]?.overlap).toBe('');
    for (let i = 1; i < parts.length; i++) {
      const p = parts[i];
      expect(p?.overlap).not.toBe('');
      expect(p?.overlap.endsWith('\n')).toBe(true);
      expect(p?.overlap.startsWith('- item')).toBe(true);
    }
    // One long paragraph line: the overlap is its last words.
    const prose = `${paragraph(0, 10)}\n\n${paragraph(20, 10)}\n`;
    const proseParts = chunkMarkdownParts(prose, { maxTokens: 200, overlapTokens: 20 });
    expect(proseParts[1]?.overlap).toMatch(/^[A-Za-z]/);
    expect(estimateTokens(proseParts[1]?.overlap ?? '')).toBeLessThanOrEqual(20);
  });

  const block = fc.oneof(
    fc.integer({ min: 1, max: 4 }).map((l) => `${'#'.repeat(l)} Heading ${l}`),
    fc.integer({ min: 0, max: 30 }).chain((i) => fc.integer({ min: 1, max: 6 }).map((n) => paragraph(i, n))),
    fc.array(fc.string({ unit: 'grapheme', maxLength: 30 }), { minLength: 1, maxLength: 6 }).map((ls) => '```\n' + ls.join('\n') + '\n```'),
    fc.integer({ min: 1, max: 6 }).map((n) => '| a | b |\n|---|---|\n' + '| x | y |\n'.repeat(n).trimEnd()),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.constant(''),
    fc.constant('😀字😀 漢字 テキスト'),
  );
  const markdown = fc.tuple(fc.array(block, { maxLength: 25 }), fc.constantFrom('\n', '\n\n', '\r\n')).map(([bs, sep]) => bs.join(sep));

  it('keeps every property: size, order, no loss, suffix overlaps, no cut surrogates, determinism', () => {
    fc.assert(
      fc.property(markdown, fc.integer({ min: 4, max: 300 }), fc.integer({ min: 0, max: 100 }), (md, maxTokens, overlapTokens) => {
        const parts = chunkMarkdownParts(md, { maxTokens, overlapTokens });
        expect(parts.map((p) => p.body).join('')).toBe(md);
        const chunks = chunkMarkdown(md, { maxTokens, overlapTokens });
        expect(chunks).toEqual(parts.map((p) => p.overlap + p.body));
        expect(chunkMarkdown(md, { maxTokens, overlapTokens })).toEqual(chunks);
        chunks.forEach((chunk, i) => {
          expect(estimateTokens(chunk)).toBeLessThanOrEqual(maxTokens);
          const p = parts[i];
          if (p === undefined) return;
          if (i > 0) expect(p.body).not.toBe('');
          if (p.overlap !== '') {
            expect(chunks[i - 1]?.endsWith(p.overlap)).toBe(true);
            expect(estimateTokens(p.overlap)).toBeLessThanOrEqual(overlapTokens);
          }
          const first = p.body.charCodeAt(0);
          expect(first >= 0xdc00 && first <= 0xdfff && i > 0 && isHigh(md, p)).toBe(false);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('never puts two halves of a surrogate pair in different chunks', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 4, max: 40 }), (text, maxTokens) => {
        const parts = chunkMarkdownParts(text, { maxTokens, overlapTokens: 0 });
        for (const p of parts) {
          const last = p.body.charCodeAt(p.body.length - 1);
          expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
        }
      }),
    );
  });
});

/** Whether the body's first low surrogate follows a high surrogate in the input (a cut pair). */
function isHigh(md: string, part: { body: string }): boolean {
  const at = md.indexOf(part.body);
  const before = md.charCodeAt(at - 1);
  return at > 0 && before >= 0xd800 && before <= 0xdbff;
}
