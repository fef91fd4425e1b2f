export { RedisServerFixture } from './redis-server.js';
export { FixtureSite, type FixtureHandler } from './fixture-site.js';
