// The cache rules live in @trawl/queue (packages/queue/src/cache-policy.ts): the gateway answers
// derived hits by the same rules the worker reads and stores by.
export { cacheKeyOf, cacheReadOf, derivableRequest, derivedOptionsHash, mayStore, parserSignature, unusableReason, type CacheRead } from '@trawl/queue';
