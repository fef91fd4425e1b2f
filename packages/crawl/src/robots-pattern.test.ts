import { describe, expect, it } from '@jest/globals';
import { matchesRobotsRule, robotsRule, type RobotsRule } from './robots-pattern.js';

function rule(value: string): RobotsRule {
  const r = robotsRule(false, value);
  if (r === null) throw new Error('no rule');
  return r;
}

describe('robots.txt patterns', () => {
  it.each([
    ['/fish', '/fish', true],
    ['/fish', '/fish.html', true],
    ['/fish', '/fish/salmon.html', true],
    ['/fish', '/Fish.asp', false],
    ['/fish', '/catfish', false],
    ['/fish*', '/fishheads/yummy.html', true],
    ['/fish/', '/fish', false],
    ['/fish/', '/fish/?id=anything', true],
    ['/*.php', '/index.php', true],
    ['/*.php', '/folder/filename.php?parameters', true],
    ['/*.php', '/windows.PHP', false],
    ['/*.php$', '/filename.php', true],
    ['/*.php$', '/filename.php?parameters', false],
    ['/*.php$', '/filename.php5', false],
    ['/fish*.php', '/fishheads/catfish.php?parameters', true],
    ['/fish*.php', '/Fish.PHP', false],
    ['/$', '/', true],
    ['/$', '/a', false],
    ['*', '/anything', true],
    ['/a*b*c', '/a-x-b-y-c-z', true],
    ['/a*b*c$', '/a-x-b-y-c-z', false],
    ['/a$b', '/a$b/x', true],
    ['404.html', '/404.html', true],
    ['404.html', '/x/404.html', false],
  ])('%s vs %s -> %s', (pattern, path, expected) => {
    expect(matchesRobotsRule(rule(pattern), path)).toBe(expected);
  });

  it('ignores empty values', () => {
    expect(robotsRule(false, '')).toBeNull();
  });

  it('finishes on adversarial wildcard patterns', () => {
    // A backtracking regex would not finish within the test timeout; the iterative matcher takes milliseconds.
    const r = rule(`/${'a*'.repeat(200)}b$`);
    expect(matchesRobotsRule(r, `/${'a'.repeat(5000)}`)).toBe(false);
    expect(matchesRobotsRule(r, `/${'a'.repeat(5000)}b`)).toBe(true);
  });

  it('counts specificity on the normalised pattern', () => {
    expect(rule('/caf%c3%a9').length).toBe(rule('/café').length);
    expect(rule('/a$').length).toBe(rule('/a').length + 1);
  });
});
