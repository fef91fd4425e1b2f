/**
 * File extensions a crawl never fetches as pages: images, audio and video, archives, fonts, executables
 * and installers, stylesheets and scripts. Documents (pdf, docx, xlsx, pptx, odt, rtf, csv...) are absent
 * on purpose: the document pipeline turns them into markdown.
 */
const NON_PAGE_EXTENSIONS = new Set([
  // images
  'png', 'jpg', 'jpeg', 'jpe', 'jfif', 'gif', 'webp', 'avif', 'apng', 'svg', 'svgz', 'ico', 'cur', 'bmp', 'tif', 'tiff',
  'heic', 'heif', 'psd', 'raw', 'cr2', 'nef', 'eps',
  // audio and video
  'mp3', 'wav', 'ogg', 'oga', 'opus', 'flac', 'aac', 'm4a', 'wma', 'mid', 'midi', 'aiff',
  'mp4', 'm4v', 'webm', 'ogv', 'mov', 'avi', 'mkv', 'wmv', 'flv', 'mpg', 'mpeg', '3gp', 'ts', 'm3u8', 'mpd', 'swf',
  // archives and disk images
  'zip', 'tar', 'gz', 'tgz', 'bz2', 'tbz2', 'xz', 'txz', 'zst', 'lz', 'lzma', '7z', 'rar', 'cab', 'iso', 'img', 'dmg',
  // fonts
  'woff', 'woff2', 'ttf', 'otf', 'eot',
  // executables and packages
  'exe', 'msi', 'msix', 'appx', 'bin', 'dll', 'so', 'dylib', 'deb', 'rpm', 'apk', 'aab', 'ipa', 'pkg', 'jar', 'war',
  'class', 'wasm',
  // stylesheets, scripts and their source maps
  'css', 'js', 'mjs', 'cjs', 'map',
]);

/**
 * True when the last segment of a URL path ends in an extension of a file that is not a page (see the
 * list above). Compared lowercase; `/a.tar.gz` counts as `gz`, `/v1.2/` (no last segment) as no
 * extension.
 */
export function hasNonPageExtension(pathname: string): boolean {
  const segment = pathname.slice(pathname.lastIndexOf('/') + 1);
  const dot = segment.lastIndexOf('.');
  if (dot <= 0 || dot === segment.length - 1) return false;
  return NON_PAGE_EXTENSIONS.has(segment.slice(dot + 1).toLowerCase());
}
