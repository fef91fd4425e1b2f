import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { splitUnits } from './text-units.js';

describe('splitUnits', () => {
  it('splits paragraphs into sentences and keeps headings, list items, table rows and code lines whole', () => {
    const md = [
      '# The Title',
      '',
      'First sentence here. Second one! Third? Yes.',
      '',
      '- item one. Still item one',
      '2. numbered item',
      '',
      '| a | b |',
      '|---|:---:|',
      '| 1 | 2 |',
      '',
      '```js',
      'const a = 1;',
      '',
      'call(a). next();',
      '```',
      '',
      '---',
      '> Quoted text. More quote.',
    ].join('\n');
    expect(splitUnits(md)).toEqual([
      { text: 'The Title', line: 0 },
      { text: 'First sentence here.', line: 2 },
      { text: 'Second one!', line: 2 },
      { text: 'Third?', line: 2 },
      { text: 'Yes.', line: 2 },
      { text: 'item one. Still item one', line: 4 },
      { text: 'numbered item', line: 5 },
      { text: '| a | b |', line: 7 },
      { text: '| 1 | 2 |', line: 9 },
      { text: 'const a = 1;', line: 12 },
      { text: 'call(a). next();', line: 14 },
      { text: 'Quoted text.', line: 18 },
      { text: 'More quote.', line: 18 },
    ]);
  });

  it('does not split on abbreviations, decimals, initials or inside links and code spans', () => {
    const md =
      'Dr. Smith paid 3.14 dollars, e.g. for tea in the U.S. Army canteen. See [the docs. Really](https://x.test/a.b?c=1. d) now. ' +
      'Call `a. B` here. J. R. R. Tolkien wrote it. Read No. 5 and p. 12 first. It costs approx. five euros. The end';
    expect(splitUnits(md).map((u) => u.text)).toEqual([
      'Dr. Smith paid 3.14 dollars, e.g. for tea in the U.S. Army canteen.',
      'See [the docs. Really](https://x.test/a.b?c=1. d) now.',
      'Call `a. B` here.',
      'J. R. R. Tolkien wrote it.',
      'Read No. 5 and p. 12 first.',
      'It costs approx. five euros.',
      'The end',
    ]);
  });

  it('keeps a footnote link that follows the terminator with its sentence', () => {
    expect(splitUnits('It was named so.[\\[16\\]](https://x.test/#cite-16) Later it changed.[1][2] End.').map((u) => u.text)).toEqual([
      'It was named so.[\\[16\\]](https://x.test/#cite-16)',
      'Later it changed.[1][2]',
      'End.',
    ]);
  });

  it('splits CJK sentences on full-width terminators and keeps closing quotes with the sentence', () => {
    expect(splitUnits('今日は晴れです。明日は雨？そうですね！').map((u) => u.text)).toEqual(['今日は晴れです。', '明日は雨？', 'そうですね！']);
    expect(splitUnits('He said "stop." Then he left.').map((u) => u.text)).toEqual(['He said "stop."', 'Then he left.']);
  });

  it('lets a sentence run across the lines of a paragraph and reports the line it starts on', () => {
    const md = 'Intro line\nwraps here. Next sentence\nends here.\n\nSetext title\n===\n\n| x | y |\n|---|---|\nbare | row';
    expect(splitUnits(md)).toEqual([
      { text: 'Intro line\nwraps here.', line: 0 },
      { text: 'Next sentence\nends here.', line: 1 },
      { text: 'Setext title', line: 4 },
      { text: '| x | y |', line: 7 },
      { text: 'bare | row', line: 9 },
    ]);
  });

  it('yields only non-empty verbatim substrings, each found at its line, in order', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom('# H', '- li', '| a | b |', '|---|---|', '```', 'A b. C d! E?', '', '> q. r.', 'x. y', '3.5 km.'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }).map((ps) => ps.join('\n')), (md) => {
        const lines = md.split('\n');
        let from = 0;
        for (const unit of splitUnits(md)) {
          expect(unit.text.trim()).toBe(unit.text);
          expect(unit.text).not.toBe('');
          const at = md.indexOf(unit.text, from);
          expect(at).toBeGreaterThanOrEqual(0);
          const lineStart = lines.slice(0, unit.line).reduce((n, l) => n + l.length + 1, 0);
          expect(md.indexOf(unit.text, lineStart)).toBeLessThan(lineStart + (lines[unit.line]?.length ?? 0) + 1);
          from = Math.max(from, lineStart);
        }
      }),
    );
  });
});
