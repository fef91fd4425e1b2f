import { describe, expect, it } from '@jest/globals';
import { buildPdf } from './pdf-writer.js';

describe('buildPdf', () => {
  it('writes an xref whose offsets point at their objects', () => {
    const pdf = buildPdf([[{ text: 'Hello (world)', y: 100, size: 20, bold: true }], [{ text: 'Page two', y: 100 }]], { title: 'T' });
    const text = pdf.toString('latin1');
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    const startxref = Number(/startxref\n(\d+)/.exec(text)![1]);
    expect(text.slice(startxref, startxref + 4)).toBe('xref');
    const entries = text.slice(startxref).split('\n').slice(3).filter((l) => / n $/.test(l));
    entries.forEach((line, i) => {
      const at = Number(line.slice(0, 10));
      expect(text.slice(at, at + `${i + 1} 0 obj`.length)).toBe(`${i + 1} 0 obj`);
    });
    expect(text).toContain('/Count 2');
    expect(text).toContain('(Hello \\(world\\)) Tj');
  });
});
