/**
 * Outbound requests to URLs users give (webhooks), held to GitLab's Gitlab::UrlBlocker: http and https only, and
 * no loopback, private, link-local, shared, reserved or broadcast address unless local requests are allowed. The
 * check runs on the addresses DNS answers, at connect time (the `lookup` the request connects with), so a name that
 * resolves somewhere else the second time (DNS rebinding) and every redirect are held to it too. Cloud metadata
 * addresses are refused whatever the setting.
 */
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

export class BlockedUrlError extends Error {}

export interface UrlPolicy {
  /** Loopback, private, link-local and shared addresses allowed (GitLab's allow_local_requests_from_*_hooks). */
  allowLocal: boolean;
}

/** Instance metadata services of the clouds: never reachable, whatever allows local requests. */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '169.254.170.23', '100.100.100.200', 'fd00:ec2::254', 'fd00:ec2::23']);
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'metadata.goog']);

function list(entries: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const blocks = new BlockList();
  for (const [net, prefix, type] of entries) blocks.addSubnet(net, prefix, type);
  return blocks;
}

const LOOPBACK = list([['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']]);
const LINK_LOCAL = list([['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']]);
const LOCAL_NETWORK = list([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
]);
/** "This network", multicast, reserved, broadcast; IPv6 unspecified, multicast, and documentation ranges. */
const RESERVED = list([
  ['0.0.0.0', 8, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
  ['100::', 64, 'ipv6'],
]);

/** An IPv4 address written as IPv6 (`::ffff:127.0.0.1`, `::127.0.0.1`) is judged as the IPv4 address it is. */
function normalize(address: string): { address: string; type: 'ipv4' | 'ipv6' } {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, '');
  const mapped = /^(?:0{0,4}:){0,5}(?:ffff:)?((?:\d{1,3}\.){3}\d{1,3})$/.exec(lower.replace(/^::/, ''));
  if (isIP(lower) === 6 && mapped && isIP(mapped[1]) === 4) return { address: mapped[1], type: 'ipv4' };
  if (isIP(lower) === 6) {
    // ::ffff:7f00:1, the mapped form in hex.
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
    if (hex) {
      const high = parseInt(hex[1], 16);
      const low = parseInt(hex[2], 16);
      return { address: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, type: 'ipv4' };
    }
    return { address: lower, type: 'ipv6' };
  }
  return { address: lower, type: 'ipv4' };
}

/** Throws, in GitLab's words, when a request may not go to this address. */
export function checkAddress(raw: string, policy: UrlPolicy): void {
  const { address, type } = normalize(raw);
  if (METADATA.has(address)) throw new BlockedUrlError('Requests to the cloud metadata service are not allowed');
  if (address === '255.255.255.255') throw new BlockedUrlError('Requests to the limited broadcast address are not allowed');
  if (RESERVED.check(address, type)) throw new BlockedUrlError('Requests to reserved addresses are not allowed');
  if (policy.allowLocal) return;
  if (LOOPBACK.check(address, type)) throw new BlockedUrlError('Requests to loopback addresses are not allowed');
  if (LINK_LOCAL.check(address, type)) throw new BlockedUrlError('Requests to the link local network are not allowed');
  if (LOCAL_NETWORK.check(address, type)) throw new BlockedUrlError('Requests to the local network are not allowed');
}

/**
 * What can be told of a URL without resolving it (hook creation, as GitLab's validation): scheme, host, port, and a
 * host that is an address or a local name. Returns the parsed URL.
 */
export function checkUrl(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BlockedUrlError('URI is invalid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BlockedUrlError('Only allowed schemes are http, https');
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === '') throw new BlockedUrlError('Host cannot be resolved or invalid');
  if (url.username || url.password) {
    // GitLab refuses credentials that are not plain text (a newline or space in them could smuggle headers).
    if (/[\s%]/.test(decodeURIComponent(url.username + url.password))) throw new BlockedUrlError('Username needs to start with an alphanumeric character');
  }
  if (METADATA_NAMES.has(host)) throw new BlockedUrlError('Requests to the cloud metadata service are not allowed');
  if (isIP(host) !== 0) checkAddress(host, policy);
  else if (!policy.allowLocal && (host === 'localhost' || host.endsWith('.localhost'))) throw new BlockedUrlError('Requests to localhost are not allowed');
  return url;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request: resolves as Node does, then refuses the connection when any address the name
 * resolves to is blocked (GitLab refuses a name with one blocked address among several).
 */
export function guardedLookup(policy: UrlPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, family: typeof options.family === 'number' ? options.family : 0 }, (err, addresses) => {
      if (err) return callback(err, '');
      try {
        if (addresses.length === 0) throw new BlockedUrlError('Host cannot be resolved or invalid');
        for (const a of addresses) checkAddress(a.address, policy);
      } catch (blocked) {
        return callback(blocked as NodeJS.ErrnoException, '');
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
