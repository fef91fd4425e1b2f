export { ERROR_CODES, ERROR_CODE_LIST, isErrorCode, type ErrorCode } from './error-codes.js';
export { TrawlError, isErrorData, type ErrorData, type TrawlErrorOptions } from './trawl-error.js';
