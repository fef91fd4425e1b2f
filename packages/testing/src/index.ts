export { getFreePort } from './free-port.js';
export { RedisServerFixture } from './redis-server.js';
export { FixtureSite, type FixtureHandler } from './fixture-site.js';
