import { describe, expect, it } from '@jest/globals';
import { detectContentKind } from './content-kind.js';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');
const kind = (bytes: Buffer, mimeType?: string): string =>
  detectContentKind(mimeType === undefined ? { bytes } : { bytes, mimeType }).kind;

const PDF = b('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n');
const DOCX = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), b('\x14\x00\x06\x00[Content_Types].xml...word/document.xml')]);
const XLSX = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), b('\x14\x00\x06\x00xl/workbook.xml')]);
const PLAIN_ZIP = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), b('\x14\x00\x00\x00photo.jpg')]);
const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);

describe('detectContentKind', () => {
  it('trusts the declared type for ordinary content', () => {
    expect(kind(b('<!doctype html><p>x'), 'text/html')).toBe('html');
    expect(kind(b('{"a":1}'), 'application/json')).toBe('json');
    expect(kind(b('{"a":1}'), 'application/ld+json')).toBe('json');
    expect(kind(b('<rss/>'), 'application/rss+xml')).toBe('xml');
    expect(kind(b('<a/>'), 'text/xml')).toBe('xml');
    expect(kind(b('body { }'), 'text/css')).toBe('text');
    expect(kind(b('a,b\n1,2'), 'text/csv')).toBe('text');
    expect(kind(PNG, 'image/png')).toBe('binary');
  });

  it('detects a PDF whatever the declared type, even after a short prefix', () => {
    expect(detectContentKind({ bytes: PDF, mimeType: 'text/html' })).toEqual({ kind: 'pdf', mimeType: 'text/html' });
    expect(kind(PDF)).toBe('pdf');
    expect(kind(Buffer.concat([b('\r\n\r\n  '), PDF]), 'application/octet-stream')).toBe('pdf');
  });

  it('does not take an HTML page quoting %PDF- for a PDF', () => {
    expect(kind(b('<html><body>files start with %PDF-1.4</body></html>'), 'text/html')).toBe('html');
  });

  it('treats a PDF or office type over an HTML error page as HTML', () => {
    expect(kind(b('<!DOCTYPE html><title>Not found</title>'), 'application/pdf')).toBe('html');
    expect(kind(b('garbage'), 'application/pdf')).toBe('pdf');
  });

  it('detects office documents by magic bytes and by type', () => {
    expect(kind(DOCX, 'application/octet-stream')).toBe('document');
    expect(kind(XLSX)).toBe('document');
    expect(kind(OLE2, 'text/html')).toBe('document');
    expect(kind(b('{\\rtf1\\ansi hello}'))).toBe('document');
    expect(kind(b('x'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document')).toBe('document');
    expect(kind(b('x'), 'application/vnd.oasis.opendocument.text')).toBe('document');
    expect(kind(b('x'), 'application/msword')).toBe('document');
    expect(kind(PLAIN_ZIP, 'application/zip')).toBe('binary');
  });

  it('detects XHTML', () => {
    const xhtml = b('<?xml version="1.0"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>');
    expect(kind(xhtml, 'application/xhtml+xml')).toBe('xhtml');
    expect(kind(xhtml, 'application/xml')).toBe('xhtml');
    expect(detectContentKind({ bytes: xhtml })).toEqual({ kind: 'xhtml', mimeType: 'application/xhtml+xml' });
    expect(kind(xhtml, 'text/plain')).toBe('xhtml');
  });

  it('sniffs HTML when the type is missing, generic or text/plain', () => {
    expect(detectContentKind({ bytes: Buffer.from('\ufeff  <!DOCTYPE HTML>\n<html>') })).toEqual({ kind: 'html', mimeType: 'text/html' });
    expect(kind(b('<html lang="en">'), 'text/plain')).toBe('html');
    expect(kind(b('\n<head><title>x</title>'), 'application/octet-stream')).toBe('html');
    expect(kind(b('<!-- c --><div>x</div>'))).toBe('html');
    expect(kind(b('plain words <b>not html at start</b>'), 'text/plain')).toBe('text');
  });

  it('sniffs JSON, XML, text and binary when the type is missing', () => {
    expect(kind(b('{"a": 1}'))).toBe('json');
    expect(kind(b('[1,2]'))).toBe('json');
    expect(kind(b('<?xml version="1.0"?><feed/>'))).toBe('xml');
    expect(kind(b('just some words'))).toBe('text');
    expect(detectContentKind({ bytes: PNG })).toEqual({ kind: 'binary', mimeType: 'application/octet-stream' });
    expect(kind(Buffer.alloc(0))).toBe('text');
  });
});
