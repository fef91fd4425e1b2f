// Images the integration tests derive from the committed fixtures, built in memory with @napi-rs/canvas
// (a dependency of @trawl/documents): a large page that takes tesseract seconds, and a two-frame TIFF.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createCanvas, loadImage } from '@napi-rs/canvas';

export const fixturePath = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

export interface ExpectedText {
  heading: string;
  paragraphs: string[];
  list: string[];
}

export async function expectedText(): Promise<ExpectedText> {
  return JSON.parse(await readFile(fixturePath('expected-text.json'), 'utf8')) as ExpectedText;
}

/** Every word of the fixture text, lower-cased, without punctuation. */
export function expectedWords(text: ExpectedText): string[] {
  return [text.heading, ...text.paragraphs, ...text.list].join(' ').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** The fixture page tiled `cols` x `rows` times into one PNG: a dense page of real text. */
export async function tiledPage(cols: number, rows: number): Promise<Uint8Array> {
  const tile = await loadImage(await readFile(fixturePath('page.png')));
  const canvas = createCanvas(tile.width * cols, tile.height * rows);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  for (let y = 0; y < rows; y++) for (let x = 0; x < cols; x++) ctx.drawImage(tile, x * tile.width, y * tile.height);
  return new Uint8Array(canvas.toBuffer('image/png'));
}

interface GrayFrame {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/** A horizontal band of the fixture page, as 8-bit gray pixels. */
async function band(top: number, height: number): Promise<GrayFrame> {
  const page = await loadImage(await readFile(fixturePath('page.png')));
  const canvas = createCanvas(page.width, height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(page, 0, -top);
  const rgba = ctx.getImageData(0, 0, page.width, height).data;
  const pixels = new Uint8Array(page.width * height);
  for (let i = 0; i < pixels.length; i++) pixels[i] = rgba[i * 4] ?? 255;
  return { width: page.width, height, pixels };
}

/** An uncompressed 8-bit grayscale TIFF with one IFD per frame. */
function grayTiff(frames: GrayFrame[]): Uint8Array {
  const ifdSize = 2 + 9 * 12 + 4;
  const total = 8 + frames.reduce((n, f) => n + ifdSize + f.pixels.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  out.set([0x49, 0x49, 42, 0]);
  view.setUint32(4, 8, true);
  let at = 8;
  frames.forEach((frame, i) => {
    const dataAt = at + ifdSize;
    const entries: [number, number, number][] = [
      [256, 4, frame.width], [257, 4, frame.height], [258, 3, 8], [259, 3, 1], [262, 3, 1],
      [273, 4, dataAt], [277, 3, 1], [278, 4, frame.height], [279, 4, frame.pixels.length],
    ];
    view.setUint16(at, entries.length, true);
    entries.forEach(([tag, type, value], j) => {
      const e = at + 2 + j * 12;
      view.setUint16(e, tag, true);
      view.setUint16(e + 2, type, true);
      view.setUint32(e + 4, 1, true);
      if (type === 3) view.setUint16(e + 8, value, true);
      else view.setUint32(e + 8, value, true);
    });
    const next = dataAt + frame.pixels.length;
    view.setUint32(at + 2 + entries.length * 12, i === frames.length - 1 ? 0 : next, true);
    out.set(frame.pixels, dataAt);
    at = next;
  });
  return out;
}

/** A two-frame TIFF: the heading of the fixture page, then its list. */
export async function twoFrameTiff(): Promise<Uint8Array> {
  return grayTiff([await band(20, 60), await band(220, 100)]);
}
