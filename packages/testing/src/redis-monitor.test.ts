import { describe, expect, it } from '@jest/globals';
import { parseMonitorLine } from './redis-monitor.js';

describe('parseMonitorLine', () => {
  it('reads the source and the arguments, with Redis\'s escapes', () => {
    expect(parseMonitorLine('+1795788529.221915 [0 127.0.0.1:36914] "zcard" "trawl:{t:1}:adm:active"'))
      .toEqual({ source: '127.0.0.1:36914', args: ['zcard', 'trawl:{t:1}:adm:active'] });
    expect(parseMonitorLine('+1.5 [3 lua] "set" "a \\"b\\" \\\\ c" "\\x00\\xff\\r\\n"'))
      .toEqual({ source: 'lua', args: ['set', 'a "b" \\ c', '\x00\xff\r\n'] });
    expect(parseMonitorLine('+1.5 [0 unix:/tmp/r.sock] "echo" ""')).toEqual({ source: 'unix:/tmp/r.sock', args: ['echo', ''] });
  });

  it('is null for a line that is not a monitored command', () => {
    expect(parseMonitorLine('+OK')).toBeNull();
    expect(parseMonitorLine('-ERR unknown')).toBeNull();
    expect(parseMonitorLine('+1.5 [0 lua] "unterminated')).toBeNull();
  });
});
