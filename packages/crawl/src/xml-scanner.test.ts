import { describe, expect, it } from '@jest/globals';
import { decodeXmlEntities, scanXml, xmlAttribute } from './xml-scanner.js';

function events(src: string): string[] {
  const out: string[] = [];
  scanXml(src, {
    open: (name, attributes, selfClosing) => out.push(`open ${name}${selfClosing ? '/' : ''}${attributes.trim() === '' ? '' : ` [${attributes.trim()}]`}`),
    text: (text, cdata) => {
      if (text.trim() !== '') out.push(`${cdata ? 'cdata' : 'text'} ${text.trim()}`);
    },
    close: (name) => out.push(`close ${name}`),
  });
  return out;
}

describe('scanXml', () => {
  it('reports local names in lowercase, attributes, self-closing tags, text and CDATA', () => {
    expect(events('<a:Root x="1"><b/>hi<![CDATA[<raw>]]></a:Root>')).toEqual([
      'open root [x="1"]', 'open b/', 'close b', 'text hi', 'cdata <raw>', 'close root',
    ]);
  });

  it('does not end a tag at a > inside a quoted attribute', () => {
    expect(events(`<link href="https://e.com/?a>b" rel='x>y'/>`)).toEqual([`open link/ [href="https://e.com/?a>b" rel='x>y']`, 'close link']);
  });

  it('skips comments, processing instructions and DOCTYPEs, and reads a stray < as text', () => {
    expect(events('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "v">]><!-- <no/> --><x>1 < 2</x>')).toEqual([
      'open x', 'text 1', 'text <', 'text 2', 'close x',
    ]);
  });

  it('stops at an unterminated tag without throwing', () => {
    expect(events('<x>ok</x><y attr="never closed>')).toEqual(['open x', 'text ok', 'close x']);
  });
});

describe('decodeXmlEntities', () => {
  it('decodes the XML entities and valid character references only', () => {
    expect(decodeXmlEntities('&amp;&lt;&gt;&quot;&apos;&#65;&#x42;&#X43;')).toBe('&<>"\'ABC');
    expect(decodeXmlEntities('&nbsp;&#0;&#x110000;&#xD800;&amp')).toBe('&nbsp;&#0;&#x110000;&#xD800;&amp');
  });
});

describe('xmlAttribute', () => {
  it('finds an attribute by local name, case-insensitively, decoded', () => {
    expect(xmlAttribute(' rdf:about="https://e.com/?a=1&amp;b=2" REL=\'alternate\'', 'about')).toBe('https://e.com/?a=1&b=2');
    expect(xmlAttribute(' REL=\'alternate\'', 'rel')).toBe('alternate');
    expect(xmlAttribute(' href="x"', 'rel')).toBeUndefined();
  });
});
