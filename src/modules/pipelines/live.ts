/**
 * What live updates of pipelines and jobs load for a bus message, once per message in this process whatever the
 * number of subscribers (perMessage), and how a stored chunk of a job's log becomes the updates subscribers get.
 */
import type { PrismaClient } from '../../db/database.js';
import { perMessage } from '../../events/bus.js';
import type { JobTraceAppendedMessage } from './processing.js';

/** The largest `content` of one jobTraceUpdated message, in bytes: a larger chunk is sent as several updates. */
export const MAX_TRACE_UPDATE_BYTES = 64 * 1024;

/** One jobTraceUpdated payload before its job is attached: `content` starts at byte `offset` of the stored log. */
export interface TracePiece {
  offset: number;
  content: string;
  size: number;
}

/** The pipeline a message names, as it is now (null once deleted). */
export const pipelineOfMessage = perMessage((message: { pipelineId: number }, db: PrismaClient) => db.pipeline.findUnique({ where: { id: message.pipelineId } }));

/** The job a message names, as it is now (null once deleted). */
export const jobOfMessage = perMessage((message: { jobId: number }, db: PrismaClient) => db.ciJob.findUnique({ where: { id: message.jobId } }));

/** The size in bytes of a job's stored log, when a message about it arrived. */
export const traceSizeOfMessage = perMessage(async (message: { jobId: number }, db: PrismaClient) => {
  const [row] = await db.$queryRaw<{ size: number }[]>`
    SELECT COALESCE(SUM(octet_length("data")), 0)::int AS "size" FROM "ci_build_trace_chunks" WHERE "jobId" = ${message.jobId}`;
  return row?.size ?? 0;
});

/** Whether `byte` continues a UTF-8 sequence (10xxxxxx). */
const continues = (byte: number) => (byte & 0xc0) === 0x80;

/** How many bytes at the end of `data` begin a character that is not complete in `data` (0 to 3). */
function incompleteTail(data: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, data.length); back++) {
    const byte = data[data.length - back];
    if (continues(byte)) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

/** Where in `data` (from `from`, at most `max` bytes on) a character starts, so that no piece splits one. */
function pieceEnd(data: Uint8Array, from: number, max: number): number {
  let end = Math.min(data.length, from + max);
  if (end === data.length) return end;
  while (end > from + 1 && continues(data[end])) end -= 1;
  return end;
}

/**
 * The updates of one stored chunk, cut into pieces of at most MAX_TRACE_UPDATE_BYTES on character boundaries: a
 * character the runner split between two patches is sent whole with the second (its first bytes, read back from
 * the previous chunk, move that update's offset back), so consecutive updates tile the log without a gap.
 */
export const tracePiecesOfMessage = perMessage(async (message: JobTraceAppendedMessage, db: PrismaClient): Promise<TracePiece[] | null> => {
  const chunk = await db.ciTraceChunk.findUnique({ where: { id: message.chunkId }, select: { data: true, offset: true } });
  if (!chunk) return null;
  let data = Buffer.from(chunk.data);
  let offset = message.offset;
  if (data.length > 0 && continues(data[0])) {
    const [previous] = await db.$queryRaw<{ tail: Uint8Array }[]>`
      SELECT substring("data" FROM GREATEST(octet_length("data") - 2, 1)) AS "tail" FROM "ci_build_trace_chunks"
      WHERE "jobId" = ${message.jobId} AND "offset" < ${chunk.offset} ORDER BY "offset" DESC LIMIT 1`;
    const tail = previous ? Buffer.from(previous.tail) : Buffer.alloc(0);
    const carried = tail.subarray(tail.length - incompleteTail(tail));
    data = Buffer.concat([carried, data]);
    offset -= carried.length;
  }
  data = data.subarray(0, data.length - incompleteTail(data));
  const pieces: TracePiece[] = [];
  for (let from = 0; from < data.length; ) {
    const end = pieceEnd(data, from, MAX_TRACE_UPDATE_BYTES);
    pieces.push({ offset: offset + from, content: data.toString('utf8', from, end), size: offset + end });
    from = end;
  }
  return pieces;
});
