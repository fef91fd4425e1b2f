import { describe, expect, it } from '@jest/globals';
import { isBlockedAddress } from './is-blocked-address.js';

describe('isBlockedAddress', () => {
  it.each([
    ['0.0.0.0', 'this-network'],
    ['0.255.1.2', 'this-network'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'shared-address-space'],
    ['100.127.255.254', 'shared-address-space'],
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'cloud-metadata'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'ietf-protocol-assignments'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('blocks IPv4 %s (%s)', (ip, reason) => {
    expect(isBlockedAddress(ip)).toEqual({ blocked: true, reason });
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '100.63.255.255', '100.128.0.0', '172.15.255.255',
    '172.32.0.0', '192.0.1.1', '192.167.255.255', '198.17.255.255', '198.20.0.0', '223.255.255.255',
    '169.253.255.255', '11.0.0.0', '126.255.255.255', '128.0.0.1'])('allows public IPv4 %s', (ip) => {
    expect(isBlockedAddress(ip)).toEqual({ blocked: false });
  });

  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback (ipv4-mapped)'],
    ['::ffff:7f00:1', 'loopback (ipv4-mapped)'],
    ['::FFFF:169.254.169.254', 'cloud-metadata (ipv4-mapped)'],
    ['0:0:0:0:0:ffff:10.0.0.1', 'private (ipv4-mapped)'],
    ['::ffff:0:192.168.0.1', 'private (ipv4-translated)'],
    ['::127.0.0.1', 'ipv4-compatible'],
    ['::8.8.8.8', 'ipv4-compatible'],
    ['64:ff9b::127.0.0.1', 'loopback (nat64)'],
    ['64:ff9b::a9fe:a9fe', 'cloud-metadata (nat64)'],
    ['64:ff9b:1::1', 'nat64-local'],
    ['2002:7f00:1::', 'loopback (6to4)'],
    ['2002:a00:1::1', 'private (6to4)'],
    ['2002:c0a8:101::1', 'private (6to4)'],
    ['100::1', 'discard-only'],
  ])('blocks IPv6 %s (%s)', (ip, reason) => {
    expect(isBlockedAddress(ip)).toEqual({ blocked: true, reason });
  });

  it.each(['2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808',
    '2002:808:808::1', 'fbff::1', 'fe00::1', '2a00:1450:4001:81c::200e'])('allows public IPv6 %s', (ip) => {
    expect(isBlockedAddress(ip)).toEqual({ blocked: false });
  });

  it.each(['', 'localhost', 'example.com', '127.0.0.1.nip.io', '1.2.3', '256.1.1.1', '::g', '1::2::3'])(
    'refuses what is not an IP address: %j',
    (value) => {
      expect(isBlockedAddress(value)).toEqual({ blocked: true, reason: 'invalid-address' });
    },
  );
});
