import { describe, expect, it } from '@jest/globals';
import { fontStyle } from './font-style.js';

describe('fontStyle', () => {
  it.each([
    ['ABCDEF+Arial-BoldMT', true, false],
    ['Calibri,Bold', true, false],
    ['Calibri,BoldItalic', true, true],
    ['TimesNewRomanPS-ItalicMT', false, true],
    ['NimbusRomNo9L-Medi', true, false],
    ['NimbusRomNo9L-MediItal', true, true],
    ['FrutigerLTPro-BlackCn', true, false],
    ['MinionPro-It', false, true],
    ['Helvetica-Oblique', false, true],
    ['SourceSansPro-Semibold', true, false],
    ['TimesNewRomanPSMT', false, false],
    ['Courier', false, false],
  ])('%s -> bold %s, italic %s', (name, bold, italic) => {
    expect(fontStyle(name)).toEqual({ bold, italic });
  });
  it('is plain without a name', () => expect(fontStyle(undefined)).toEqual({ bold: false, italic: false }));
});
