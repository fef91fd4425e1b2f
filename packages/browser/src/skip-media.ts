/**
 * File extensions of images, fonts, audio and video: what a page's HTML and text do not depend on,
 * and most of what a renderer and the network spend on a page it only reads.
 */
const MEDIA_EXTENSIONS = [
  'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'apng', 'bmp', 'ico', 'svg', 'tif', 'tiff',
  'woff', 'woff2', 'ttf', 'otf', 'eot',
  'mp4', 'webm', 'm4v', 'mov', 'avi', 'ogv', 'mp3', 'm4a', 'ogg', 'oga', 'opus', 'wav', 'flac',
] as const;

/**
 * Chromium's blocked-URL patterns (`Network.setBlockedURLs`, `*` matches anything) for the
 * subresources named by those extensions, with and without a query, lower and upper case. The
 * browser applies them itself (no request reaches this process to be judged), to subresources only:
 * a navigation to an image or a video still loads.
 */
export const MEDIA_URL_PATTERNS: readonly string[] = MEDIA_EXTENSIONS.flatMap((ext) =>
  [ext, ext.toUpperCase()].flatMap((e) => [`*.${e}`, `*.${e}?*`]));
