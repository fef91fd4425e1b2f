export { startEmbedded, type EmbeddedHandle } from './embedded.js';
