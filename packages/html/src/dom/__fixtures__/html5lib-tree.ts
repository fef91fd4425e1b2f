import fs from 'node:fs';
import path from 'node:path';
import type { AnyNode, Document, Element, ParentNode } from 'domhandler';

/*
 * Test support (not exported by the package): reads the html5lib tree-construction suite
 * (test-fixtures/html5lib, MIT) and serialises a domhandler tree in its `| <tag>` format.
 */

/** One case of a tree-construction `.dat` file. */
export interface TreeCase {
  readonly file: string;
  /** 1-based index of the case in its file. */
  readonly index: number;
  readonly data: string;
  readonly expected: string;
  /** Context element of a fragment case. */
  readonly fragment?: string;
  readonly scripting?: 'on' | 'off';
}

export const HTML5LIB_DIR = path.resolve(import.meta.dirname, '../../../test-fixtures/html5lib');

const HEADERS = new Set(['#data', '#errors', '#new-errors', '#document-fragment', '#script-off', '#script-on', '#document']);

/** The cases of one `.dat` file (format: test-fixtures/html5lib/README.md). */
export function readDatFile(file: string): TreeCase[] {
  const text = fs.readFileSync(path.join(HTML5LIB_DIR, file), 'utf8');
  const cases: TreeCase[] = [];
  let section = '';
  let sections: Record<string, string[]> = {};
  const flush = (): void => {
    if (sections['#data'] === undefined) return;
    const doc = [...(sections['#document'] ?? [])];
    while (doc.length > 0 && doc[doc.length - 1] === '') doc.pop();
    const c: TreeCase = {
      file,
      index: cases.length + 1,
      data: (sections['#data'] ?? []).join('\n'),
      expected: doc.join('\n'),
      ...(sections['#document-fragment'] ? { fragment: sections['#document-fragment'].join('\n') } : {}),
      ...(sections['#script-off'] ? { scripting: 'off' as const } : {}),
      ...(sections['#script-on'] ? { scripting: 'on' as const } : {}),
    };
    cases.push(c);
  };
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    // A new case starts at `#data` at the start of the file or after the blank separator line.
    if (line === '#data' && (i === 0 || (section === '#document' && lines[i - 1] === ''))) {
      flush();
      sections = {};
    }
    if (HEADERS.has(line) && (section !== '#data' || line === '#errors') && (section !== '#document' || line === '#data')) {
      section = line;
      sections[section] = [];
      continue;
    }
    sections[section]?.push(line);
  }
  flush();
  return cases;
}

/** The `.dat` files of the vendored suite, sorted. */
export function datFiles(): string[] {
  return fs.readdirSync(HTML5LIB_DIR).filter((f) => f.endsWith('.dat')).sort();
}

const NS_PREFIX: Readonly<Record<string, string>> = {
  'http://www.w3.org/2000/svg': 'svg ',
  'http://www.w3.org/1998/Math/MathML': 'math ',
};

interface Parse5Element extends Element {
  namespace?: string;
  'x-attribsPrefix'?: Record<string, string>;
}

interface Parse5Doctype {
  'x-name'?: string | null;
  'x-publicId'?: string | null;
  'x-systemId'?: string | null;
}

/** The tree below `root` in the suite's format: one `| `-prefixed line per node, two spaces per level. */
export function serializeTree(root: ParentNode): string {
  const out: string[] = [];
  const walk = (nodes: readonly AnyNode[], depth: number): void => {
    const pad = `| ${'  '.repeat(depth)}`;
    for (const node of nodes) {
      switch (node.type) {
        case 'text':
          out.push(`${pad}"${node.data}"`);
          break;
        case 'comment':
          out.push(`${pad}<!-- ${node.data} -->`);
          break;
        case 'directive': {
          const d = node as unknown as Parse5Doctype;
          const pub = d['x-publicId'] ?? '';
          const sys = d['x-systemId'] ?? '';
          const ids = pub !== '' || sys !== '' ? ` "${pub}" "${sys}"` : '';
          out.push(`${pad}<!DOCTYPE ${d['x-name'] ?? ''}${ids}>`);
          break;
        }
        case 'root':
          // A template's content fragment.
          out.push(`${pad}content`);
          walk((node as Document).children, depth + 1);
          break;
        case 'tag':
        case 'script':
        case 'style': {
          const el = node as Parse5Element;
          out.push(`${pad}<${NS_PREFIX[el.namespace ?? ''] ?? ''}${el.name}>`);
          const prefixes = el['x-attribsPrefix'] ?? {};
          const attrs = Object.entries(el.attribs).map(([name, value]): [string, string] => {
            const prefix = prefixes[name];
            return [prefix !== undefined && prefix !== '' ? `${prefix} ${name}` : name, value];
          });
          attrs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          for (const [name, value] of attrs) out.push(`${pad}  ${name}="${value}"`);
          walk(el.children, depth + 1);
          break;
        }
        default:
          out.push(`${pad}?${node.type}`);
      }
    }
  };
  walk(root.children, 0);
  return out.join('\n');
}

/** A node of parse5's own default tree (the fields the serialiser reads). */
interface P5Node {
  nodeName: string;
  tagName?: string;
  namespaceURI?: string;
  attrs?: { name: string; value: string; prefix?: string }[];
  childNodes?: P5Node[];
  content?: P5Node;
  value?: string;
  data?: string;
  name?: string;
  publicId?: string | null;
  systemId?: string | null;
}

/** parse5's default tree (`parse5.parse(html)`) in the suite's format, to compare with {@link serializeTree}. */
export function serializeParse5Tree(root: P5Node): string {
  const out: string[] = [];
  const walk = (nodes: readonly P5Node[], depth: number): void => {
    const pad = `| ${'  '.repeat(depth)}`;
    for (const node of nodes) {
      if (node.nodeName === '#text') out.push(`${pad}"${node.value ?? ''}"`);
      else if (node.nodeName === '#comment') out.push(`${pad}<!-- ${node.data ?? ''} -->`);
      else if (node.nodeName === '#documentType') {
        const pub = node.publicId ?? '';
        const sys = node.systemId ?? '';
        out.push(`${pad}<!DOCTYPE ${node.name ?? ''}${pub !== '' || sys !== '' ? ` "${pub}" "${sys}"` : ''}>`);
      } else {
        out.push(`${pad}<${NS_PREFIX[node.namespaceURI ?? ''] ?? ''}${node.tagName ?? node.nodeName}>`);
        const attrs = (node.attrs ?? []).map((a): [string, string] => [a.prefix ? `${a.prefix} ${a.name}` : a.name, a.value]);
        attrs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        for (const [name, value] of attrs) out.push(`${pad}  ${name}="${value}"`);
        if (node.content) {
          out.push(`${pad}  content`);
          walk(node.content.childNodes ?? [], depth + 2);
        }
        walk(node.childNodes ?? [], depth + 1);
      }
    }
  };
  walk(root.childNodes ?? [], 0);
  return out.join('\n');
}

/** The five minimal cases of issue 21 (each lost all or part of its content with the htmlparser2-like tree). */
export const MINIMAL_CASES: readonly string[] = [
  '<a href=x><body></a><h1>Title</h1><p>Text</p>',
  '<body></body><div><h1>Title</h1><p>Text</p></div>',
  '<text id=a><html><head><title>t</title><html><head></head><body><p>Text</p>',
  '<body><table><table><tr><td>Home</td></tr></table><h1>Title</h1><p>Text</p>',
  '<table><p>Text</p><tr><td>cell</td></tr></table>',
];
