import { describe, expect, it } from 'vitest';
import { BlockedUrlError, checkAddress, checkUrl, guardedLookup } from '../../src/http/url-blocker.js';
import { afterDelivery, alertStatus, branchMatches } from '../../src/modules/hooks/rules.js';

const strict = { allowLocal: false };
const lenient = { allowLocal: true };

function refusal(address: string, policy = strict): string | null {
  try {
    checkAddress(address, policy);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(BlockedUrlError);
    return (err as Error).message;
  }
}

describe('the URL blocker', () => {
  it('refuses loopback, private, link-local, shared and reserved addresses unless local requests are allowed', () => {
    expect(refusal('127.0.0.1')).toBe('Requests to loopback addresses are not allowed');
    expect(refusal('127.1.2.3')).toBe('Requests to loopback addresses are not allowed');
    expect(refusal('::1')).toBe('Requests to loopback addresses are not allowed');
    expect(refusal('::ffff:127.0.0.1')).toBe('Requests to loopback addresses are not allowed');
    expect(refusal('::ffff:7f00:1')).toBe('Requests to loopback addresses are not allowed');
    for (const a of ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', 'fd12::1', '::ffff:10.0.0.1']) expect(refusal(a)).toBe('Requests to the local network are not allowed');
    for (const a of ['169.254.1.1', 'fe80::1']) expect(refusal(a)).toBe('Requests to the link local network are not allowed');
    for (const a of ['0.0.0.0', '224.0.0.1', '240.0.0.1', '::']) expect(refusal(a)).toBe('Requests to reserved addresses are not allowed');
    expect(refusal('255.255.255.255')).toBe('Requests to the limited broadcast address are not allowed');
    for (const a of ['127.0.0.1', '10.1.2.3', '192.168.1.1', 'fe80::1', '::1']) expect(refusal(a, lenient)).toBeNull();
    for (const a of ['8.8.8.8', '172.32.0.1', '2001:4860:4860::8888']) expect(refusal(a)).toBeNull();
  });

  it('refuses cloud metadata addresses and names whatever the setting', () => {
    for (const a of ['169.254.169.254', '::ffff:169.254.169.254', 'fd00:ec2::254', '100.100.100.200']) {
      expect(refusal(a, lenient)).toBe('Requests to the cloud metadata service are not allowed');
    }
    expect(() => checkUrl('http://metadata.google.internal/computeMetadata/v1/', lenient)).toThrow('cloud metadata');
    expect(() => checkUrl('http://[::ffff:a9fe:a9fe]/', lenient)).toThrow('cloud metadata');
  });

  it('checks schemes, local names and literal addresses in URLs', () => {
    expect(() => checkUrl('ftp://example.com/', lenient)).toThrow('Only allowed schemes are http, https');
    expect(() => checkUrl('javascript:alert(1)', lenient)).toThrow('Only allowed schemes are http, https');
    expect(() => checkUrl('not a url', lenient)).toThrow('URI is invalid');
    expect(() => checkUrl('http://localhost:8080/', strict)).toThrow('Requests to localhost are not allowed');
    expect(() => checkUrl('http://a.localhost/', strict)).toThrow('Requests to localhost are not allowed');
    expect(() => checkUrl('http://[::1]:80/', strict)).toThrow('loopback');
    expect(() => checkUrl('http://2130706433/', strict)).toThrow('loopback');
    expect(() => checkUrl('http://0x7f.1/', strict)).toThrow('loopback');
    expect(checkUrl('https://example.com/hook', strict).hostname).toBe('example.com');
    expect(checkUrl('http://localhost:8080/', lenient).port).toBe('8080');
  });

  it('checks what a name resolves to, at connect time', async () => {
    const lookup = guardedLookup(strict);
    const refused = await new Promise<Error | null>((resolve) => lookup('localhost', { all: true }, (err) => resolve(err)));
    expect(refused).toBeInstanceOf(BlockedUrlError);
    expect(refused?.message).toMatch(/loopback/);
    const allowed = await new Promise<unknown>((resolve) => guardedLookup(lenient)('localhost', {}, (err, address) => resolve(err ?? address)));
    expect(String(allowed)).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});

describe("GitLab's auto-disabling and branch filters", () => {
  const hook = { type: 'ProjectHook', recentFailures: 0, backoffCount: 0, disabledUntil: null as Date | null };

  it('backs off from the fourth failure, doubling, and disables for good past the 39th', () => {
    let state = { ...hook };
    const now = new Date('2026-01-01T00:00:00Z');
    for (let i = 0; i < 3; i++) state = { ...state, ...afterDelivery(state, false, now) };
    expect(alertStatus(state, now)).toBe('executable');
    state = { ...state, ...afterDelivery(state, false, now) };
    expect(state.disabledUntil?.getTime()).toBe(now.getTime() + 60_000);
    expect(alertStatus(state, now)).toBe('temporarily_disabled');
    state = { ...state, ...afterDelivery(state, false, now) };
    expect(state.disabledUntil?.getTime()).toBe(now.getTime() + 120_000);
    while (state.recentFailures <= 39) state = { ...state, ...afterDelivery(state, false, now) };
    expect(state.disabledUntil).toBeNull();
    expect(alertStatus(state, now)).toBe('disabled');
    expect(afterDelivery(state, true, now)).toEqual({ recentFailures: 0, backoffCount: 0, disabledUntil: null });
    // System hooks are never auto-disabled (GitLab's ENABLED_HOOK_TYPES).
    expect(alertStatus({ ...state, type: 'SystemHook' }, now)).toBe('executable');
  });

  it('matches branches by wildcard, regex, or not at all', () => {
    expect(branchMatches('wildcard', 'release/*', 'release/1.0')).toBe(true);
    expect(branchMatches('wildcard', 'release/*', 'main')).toBe(false);
    expect(branchMatches('wildcard', 'ma.n', 'main')).toBe(false);
    expect(branchMatches('regex', '^(main|dev)$', 'dev')).toBe(true);
    expect(branchMatches('regex', '^(main|dev)$', 'devel')).toBe(false);
    expect(branchMatches('all_branches', 'main', 'other')).toBe(true);
    expect(branchMatches('wildcard', null, 'any')).toBe(true);
  });
});
