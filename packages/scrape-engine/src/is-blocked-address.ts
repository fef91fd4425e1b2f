// The classifier lives in api-schema so the API (which runs no engine) can refuse blocked webhook URLs
// at request time with the same rules the engines apply at connect time.
export { isBlockedAddress, type BlockedAddressResult } from '@trawl/api-schema';
