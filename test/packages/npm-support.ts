/** npm tarballs and publication bodies made by hand, as `npm publish` sends them. */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

/** A ustar archive of `files` (path → text), gzipped. */
export function tarball(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [path, text] of Object.entries(files)) {
    const data = Buffer.from(text);
    const header = Buffer.alloc(512);
    header.write(path, 0, 100, 'utf8');
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('00000000000\0', 136);
    header.write('        ', 148);
    header.write('0', 156);
    header.write('ustar\0', 257);
    header.write('00', 263);
    const sum = header.reduce((n, b) => n + b, 0);
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

export const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');
export const integrity = (bytes: Buffer) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

/** The body of `npm publish` for one version; `manifest` is what the tarball's package.json says (default: the same). */
export function publication(name: string, version: string, options: { manifest?: Record<string, unknown>; extra?: Record<string, unknown>; tag?: string; tgz?: Buffer } = {}) {
  const manifest = { name, version, ...options.extra };
  const tgz = options.tgz ?? tarball({ 'package/package.json': JSON.stringify(options.manifest ?? manifest), 'package/index.js': 'module.exports = 42;\n' });
  const body = {
    _id: name,
    name,
    description: 'a test package',
    'dist-tags': { [options.tag ?? 'latest']: version },
    versions: { [version]: { ...manifest, _id: `${name}@${version}`, readme: 'ignored', dist: { integrity: integrity(tgz), shasum: sha1(tgz), tarball: `http://ignored/${name}-${version}.tgz` } } },
    access: null,
    _attachments: { [`${name}-${version}.tgz`]: { content_type: 'application/octet-stream', data: tgz.toString('base64'), length: tgz.length } },
  };
  return { body, tgz };
}
