/** HTTP written by hand, for requests fetch will not send: bodies declared longer than sent, broken heads, many parts. */
import { connect } from 'node:net';

export interface RawAnswer {
  /** Everything the server sent until it closed the connection or its answer was whole (or `waitMs` passed). */
  text: string;
  status: number | null;
  closed: boolean;
  ms: number;
}

/**
 * Writes `head` (and `body`, if any) on a connection of its own and collects the answer until it is whole (HEAD: until
 * the server closes the connection), or `waitMs` passes. The body may be declared longer than what is sent.
 */
export function rawExchange(port: number, head: string, body: Buffer | string = '', waitMs = 5000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ text, status: status ? Number(status[1]) : null, closed, ms: Date.now() - started });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // A whole answer on a connection kept open is as good as a closed one.
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end));
      if (end !== -1 && length && !head.startsWith('HEAD') && text.length - end - 4 >= Number(length[1])) done();
    });
    socket.on('end', () => {
      closed = true;
      done();
    });
    socket.on('error', () => {
      closed = true;
      done();
    });
    socket.write(head);
    if (body.length) socket.write(body);
  });
}

/** The body of a raw answer (after the blank line). */
export const bodyOf = (answer: RawAnswer) => answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4);

/** A multipart body: `files` file parts, then `fields` fields, then a part whose header is `headerBytes` long. */
export function multipart(files: number, fields: number, headerBytes = 0): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < files; i++) parts.push(`--b\r\nContent-Disposition: form-data; name="f${i}"; filename="f${i}.png"\r\nContent-Type: image/png\r\n\r\nxx\r\n`);
  for (let i = 0; i < fields; i++) parts.push(`--b\r\nContent-Disposition: form-data; name="k${i}"\r\n\r\nv\r\n`);
  if (headerBytes) parts.push(`--b\r\nContent-Disposition: form-data; name="h"\r\nX-Padding: ${'a'.repeat(headerBytes)}\r\n\r\nv\r\n`);
  parts.push('--b--\r\n');
  return Buffer.from(parts.join(''));
}

