import { OPS, type PdfDocument, type PdfPage } from './pdfjs.js';

/** Target resolution of page images for OCR, and the cap on their long side (pixels). */
const OCR_DPI = 300;
const MAX_SIDE_PX = 4000;

const IMAGE_OPS = new Set<number>([
  OPS.paintImageXObject,
  OPS.paintInlineImageXObject,
  OPS.paintImageMaskXObject,
  OPS.paintImageXObjectRepeat,
  OPS.paintImageMaskXObjectRepeat,
  OPS.paintInlineImageXObjectGroup,
  OPS.paintImageMaskXObjectGroup,
  OPS.paintSolidColorImageMask,
]);

/**
 * True when the page draws something OCR could read: an image, or a few paths (text converted to
 * outlines). A page with a frame or one rule only is not worth an OCR pass.
 */
export async function pageHasGraphics(page: PdfPage): Promise<boolean> {
  const list = await page.getOperatorList();
  let paths = 0;
  for (const fn of list.fnArray) {
    if (IMAGE_OPS.has(fn)) return true;
    if (fn === OPS.constructPath && ++paths >= 3) return true;
  }
  return false;
}

/** A rendered page: PNG bytes and the pixels per page unit. */
export interface PageImage {
  png: Uint8Array;
  scale: number;
}

/** The canvas pair pdf.js's Node canvas factory (@napi-rs/canvas) creates. */
interface NodeCanvas {
  canvas: { width: number; height: number; encode(format: 'png'): Promise<Uint8Array> };
  context: unknown;
}

/** Renders a page at about 300 dpi (long side capped at 4000 px) to PNG, on a white background. */
export async function renderPageToPng(doc: PdfDocument, page: PdfPage): Promise<PageImage> {
  const base = page.getViewport({ scale: 1 });
  const long = Math.max(base.width, base.height, 1);
  const scale = Math.min(OCR_DPI / 72, MAX_SIDE_PX / long);
  const viewport = page.getViewport({ scale });
  const factory = doc.canvasFactory as { create(w: number, h: number): NodeCanvas; destroy(c: NodeCanvas): void };
  const target = factory.create(Math.max(1, Math.round(viewport.width)), Math.max(1, Math.round(viewport.height)));
  try {
    // pdf.js's render parameters are typed for DOM canvases; the Node factory's canvas is the same shape.
    const params = { canvasContext: target.context, canvas: target.canvas, viewport } as unknown as Parameters<PdfPage['render']>[0];
    await page.render(params).promise;
    return { png: await target.canvas.encode('png'), scale };
  } finally {
    factory.destroy(target);
  }
}
