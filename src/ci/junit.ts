/**
 * JUnit reports as GitLab reads them (Gitlab::Ci::Parsers::Test::Junit): the `junit` artifact is a gzip stream of
 * one member per report file, as GitLab Runner uploads it; every test case of every file goes into one suite named
 * after the job (its name without a parallel `1/3` suffix), and a file that cannot be read sets the suite's error
 * instead. Test cases sit under a root `testsuites` or `testsuite`, in `testsuite` elements nested at any depth.
 * Pure: bytes in, the report out.
 */
import { promisify } from 'node:util';
import { crc32, inflateRaw } from 'node:zlib';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { StoredJunitReport, StoredTestCase } from '../modules/pipelines/test-reports.js';

type TestSuite = StoredJunitReport['suites'][number];

/** Bounds on one report: its size once decompressed, and its test cases (the report is kept as one JSON value). */
export const JUNIT_LIMITS = { decompressedBytes: 64 * 1024 * 1024, testCases: 50_000 };

class JunitError extends Error {}

const inflate = promisify(inflateRaw) as unknown as (data: Buffer, options: { info: true; maxOutputLength: number }) => Promise<{ buffer: Buffer; engine: { bytesWritten: number } }>;

const GZIP_FLAGS = { extra: 4, name: 8, comment: 16, headerCrc: 2 };

/** Where a gzip member's deflate data starts (RFC 1952 header), or null when `data[at..]` is no gzip member. */
function deflateStart(data: Buffer, at: number): number | null {
  if (data.length - at < 18 || data[at] !== 0x1f || data[at + 1] !== 0x8b || data[at + 2] !== 8) return null;
  const flags = data[at + 3];
  let position = at + 10;
  if (flags & GZIP_FLAGS.extra) position += 2 + data.readUInt16LE(position);
  for (const flag of [GZIP_FLAGS.name, GZIP_FLAGS.comment]) {
    if (!(flags & flag)) continue;
    const end = data.indexOf(0, position);
    if (end < 0) return null;
    position = end + 1;
  }
  if (flags & GZIP_FLAGS.headerCrc) position += 2;
  return position <= data.length ? position : null;
}

/** Each gzip member's content, in order (GitLab's GzipStream#each_blob), within the decompressed bound. */
export async function gzipMembers(data: Buffer, maxBytes = JUNIT_LIMITS.decompressedBytes): Promise<Buffer[]> {
  const members: Buffer[] = [];
  let total = 0;
  for (let at = 0; at < data.length; ) {
    const start = deflateStart(data, at);
    if (start === null) throw new JunitError('not in gzip format');
    const { buffer, engine } = await inflate(data.subarray(start), { info: true, maxOutputLength: Math.max(1, maxBytes - total) }).catch((error: Error) => {
      throw new JunitError(/maxOutputLength|buffer/i.test(error.message) ? 'the report is too large once decompressed' : error.message);
    });
    const trailer = start + engine.bytesWritten;
    if (trailer + 8 > data.length || data.readUInt32LE(trailer) !== crc32(buffer) || data.readUInt32LE(trailer + 4) !== (buffer.length >>> 0)) {
      throw new JunitError('the gzip data is corrupt');
    }
    total += buffer.length;
    members.push(buffer);
    at = trailer + 8;
  }
  return members;
}

type XmlNode = { '@'?: Record<string, string>; '#text'?: string } & Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  attributesGroupName: '@',
  textNodeName: '#text',
  alwaysCreateTextNode: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  isArray: (name) => ['testsuites', 'testsuite', 'testcase', 'failure', 'error', 'skipped', 'system-out', 'system-err'].includes(name),
});

const nodes = (value: unknown): XmlNode[] => (Array.isArray(value) ? value.filter((v): v is XmlNode => typeof v === 'object' && v !== null) : []);
const attribute = (node: XmlNode, name: string): string | null => node['@']?.[name] ?? null;
const text = (node: XmlNode | undefined): string | null => {
  if (!node) return null;
  const content = node['#text'] ?? '';
  return content !== '' ? content : null;
};

/** The text GitLab shows for a failure, error or skip: its content, else its message. */
function outcomeText(node: XmlNode): string | null {
  return text(node) ?? attribute(node, 'message');
}

function testCase(node: XmlNode): StoredTestCase {
  const [failure] = nodes(node.failure);
  const [error] = nodes(node.error);
  const skipped = nodes(node.skipped);
  const out = text(nodes(node['system-out'])[0]);
  const err = text(nodes(node['system-err'])[0]);
  const extra = [out === null ? null : `System Out:\n\n${out}`, err === null ? null : `System Err:\n\n${err}`];
  const base = {
    name: attribute(node, 'name') ?? '',
    classname: attribute(node, 'classname') ?? '',
    execution_time: Number(attribute(node, 'time') ?? 0) || 0,
    file: attribute(node, 'file'),
  };
  const problem = failure ?? error;
  if (problem) {
    const system_output = [outcomeText(problem), ...extra].filter((s): s is string => s !== null).join('\n\n') || null;
    return { ...base, status: failure ? 'failed' : 'error', system_output, stack_trace: text(problem) };
  }
  if (skipped.length) return { ...base, status: 'skipped', system_output: outcomeText(skipped[0]), stack_trace: null };
  return { ...base, status: 'success', system_output: null, stack_trace: null };
}

/** Test cases of one file: under a root `testsuites` (its suites) or a root `testsuite`, suites nested at any depth. */
function casesOf(xml: string, into: StoredTestCase[]): void {
  if (/<!DOCTYPE/i.test(xml)) throw new JunitError('JUnit XML parsing failed: DOCTYPE is not allowed');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new JunitError(`JUnit XML parsing failed: ${valid.err.line}:${valid.err.col}: ${valid.err.msg}`);
  let root: XmlNode;
  try {
    root = parser.parse(xml) as XmlNode;
  } catch (error) {
    throw new JunitError(`JUnit XML parsing failed: ${(error as Error).message}`);
  }
  const walk = (suites: XmlNode[]) => {
    for (const suite of suites) {
      for (const node of nodes(suite.testcase)) {
        if (into.length >= JUNIT_LIMITS.testCases) throw new JunitError(`JUnit data parsing failed: number of test cases exceeded the limit of ${JUNIT_LIMITS.testCases}`);
        into.push(testCase(node));
      }
      walk(nodes(suite.testsuite));
    }
  };
  for (const top of nodes(root.testsuites)) walk(nodes(top.testsuite));
  walk(nodes(root.testsuite));
}

/** GitLab's test suite name of a job: its name without the `1/3` suffix of a parallel job. */
export function testSuiteName(jobName: string): string {
  return jobName.replace(/\s+\d+\/\d+$/, '').trim() || jobName;
}

/** The report of a `junit` artifact uploaded by the job named `jobName`. */
export async function parseJunit(gzip: Buffer, jobName: string): Promise<StoredJunitReport> {
  const suite: TestSuite = { name: testSuiteName(jobName), error: null, cases: [] };
  let files: Buffer[];
  try {
    files = await gzipMembers(gzip);
  } catch (error) {
    if (!(error instanceof JunitError)) throw error;
    return { suites: [{ ...suite, error: `JUnit data parsing failed: ${error.message}` }] };
  }
  for (const file of files) {
    try {
      casesOf(file.toString('utf8'), suite.cases);
    } catch (error) {
      if (!(error instanceof JunitError)) throw error;
      suite.error = error.message;
      if (suite.cases.length >= JUNIT_LIMITS.testCases) break;
    }
  }
  return { suites: [suite] };
}
