// Extracts the facts of GitLab's published GraphQL schema that the GitLab-conformance test checks, into facts.json
// beside this script. GitLab's full schema (several MB) is not committed; only these facts are.
//
//   npx tsx test/graphql/gitlab-schema/extract.mjs /path/to/gitlab_schema.graphql   (SDL, or introspection .json)
//     [--repository owner/name] [--path file] [--commit sha] [--gitlab-version text] [--out facts.json]
//
// Defaults for the source record name the copy the committed facts.json was made from.
// Our schema is every graphql/*.graphql file of this repository (not graphql/rest/), read as one document, with what
// the server adds before building it (src/graphql/schema.ts): `@sameFieldsAs` copies and connections' edges.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildClientSchema,
  buildASTSchema,
  buildSchema,
  concatAST,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { withRelayConnections } from '../../../src/graphql/relay-connections.ts';
import { withSameFields } from '../../../src/graphql/same-fields.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../..');

const DEFAULT_SOURCE = {
  repository: 'ganievs/gitlabv4',
  path: 'gitlab_schema.graphql',
  commit: '7bde1ca96fedbfd23f1b73005e5ab3599c61a6bf',
  gitlabVersion: '16.3 (pre-release): GitLab.com schema as committed on 2023-08-01; newest "Introduced in" note is 16.3',
};

// GitLab mutations recorded whatever our schema has, so we know GitLab's names for what we build.
const MUTATION_PREFIXES = [
  'pipeline', 'job', 'ciJob', 'ciLint', 'ciVariable', 'ciCdSettings', 'projectCiCdSettings', 'runner', 'runners',
  'projectMember', 'groupMember', 'project', 'group', 'namespace', 'user', 'personalAccessToken', 'accessToken',
  'commit', 'branch', 'tag', 'protectedBranch', 'ciJobTokenScope', 'pipelineSchedule', 'pipelineTrigger',
  'ciTrigger', 'jobArtifact', 'artifact', 'echo',
];
// GitLab's names for what we build that the prefixes miss (our repositoryBranchCreate is GitLab's createBranch; issueMove).
const EXTRA_MUTATIONS = ['createBranch', 'issueMove'];
const EXTRA_SCALARS = ['Time', 'Date', 'ISO8601Date', 'Duration', 'BigInt', 'JSON'];

function parseArgs(argv) {
  const opts = { source: { ...DEFAULT_SOURCE }, out: join(here, 'facts.json'), schemaPath: undefined };
  const flags = { '--repository': 'repository', '--path': 'path', '--commit': 'commit', '--gitlab-version': 'gitlabVersion' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a in flags) opts.source[flags[a]] = argv[++i];
    else if (a === '--out') opts.out = resolve(argv[++i]);
    else if (!opts.schemaPath) opts.schemaPath = resolve(a);
    else throw new Error(`unexpected argument ${a}`);
  }
  if (!opts.schemaPath) throw new Error('usage: extract.mjs <gitlab_schema.graphql|.json> [--out facts.json]');
  return opts;
}

function loadGitlabSchema(path) {
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.json')) {
    const json = JSON.parse(text);
    return { schema: buildClientSchema(json.data ?? json), text };
  }
  return { schema: buildSchema(text, { assumeValidSDL: true }), text };
}

function loadOurSchema() {
  const dir = join(repoRoot, 'graphql');
  const files = readdirSync(dir).filter((f) => f.endsWith('.graphql')).sort();
  // One document: graphql-js merges `extend type X` into X when both are in the same document.
  const documents = withRelayConnections(withSameFields(files.map((f) => readFileSync(join(dir, f), 'utf8'))));
  return buildASTSchema(concatAST(documents), { assumeValidSDL: true });
}

const isRequired = (v) => isNonNullType(v.type) && v.defaultValue === undefined;

function sortObject(obj) {
  return Object.fromEntries(Object.keys(obj).sort().map((k) => [k, obj[k]]));
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { schema: gl, text } = loadGitlabSchema(opts.schemaPath);
  const ours = loadOurSchema();
  const enumNames = new Set();
  const noteEnum = (type) => {
    const named = getNamedType(type);
    if (isEnumType(named)) enumNames.add(named.name);
  };

  // Object and interface types present in both schemas: shared fields with GitLab's type and required arguments.
  const types = {};
  const ourTypes = ours.getTypeMap();
  for (const [name, glType] of Object.entries(gl.getTypeMap())) {
    if (name.startsWith('__') || name === 'Query' || name === 'Mutation' || name === 'Subscription') continue;
    if (!(isObjectType(glType) || isInterfaceType(glType))) continue;
    const ourType = ourTypes[name];
    if (!ourType || !(isObjectType(ourType) || isInterfaceType(ourType))) continue;
    const ourFields = ourType.getFields();
    const fields = {};
    for (const [fname, f] of Object.entries(glType.getFields())) {
      if (!(fname in ourFields)) continue;
      const fact = { type: String(f.type) };
      const required = f.args.filter(isRequired);
      if (required.length) fact.requiredArgs = sortObject(Object.fromEntries(required.map((a) => [a.name, String(a.type)])));
      if (f.deprecationReason) fact.deprecated = f.deprecationReason;
      noteEnum(f.type);
      for (const a of required) noteEnum(a.type);
      fields[fname] = fact;
    }
    types[name] = { fields: sortObject(fields), kind: isObjectType(glType) ? 'object' : 'interface' };
  }
  // The root Query fields we share, too: their arguments are part of the API.
  {
    const ourFields = ours.getQueryType().getFields();
    const fields = {};
    for (const [fname, f] of Object.entries(gl.getQueryType().getFields())) {
      if (!(fname in ourFields)) continue;
      const fact = { type: String(f.type) };
      const required = f.args.filter(isRequired);
      if (required.length) fact.requiredArgs = sortObject(Object.fromEntries(required.map((a) => [a.name, String(a.type)])));
      if (f.deprecationReason) fact.deprecated = f.deprecationReason;
      noteEnum(f.type);
      for (const a of required) noteEnum(a.type);
      fields[fname] = fact;
    }
    types.Query = { fields: sortObject(fields), kind: 'object' };
  }

  // Mutations: every GitLab mutation our schema names, and every one under the prefixes above.
  const ourMutations = ours.getMutationType().getFields();
  const mutations = {};
  for (const [name, m] of Object.entries(gl.getMutationType().getFields())) {
    const wanted = name in ourMutations || EXTRA_MUTATIONS.includes(name) || MUTATION_PREFIXES.some((p) => name.startsWith(p));
    if (!wanted) continue;
    const fact = {
      arguments: sortObject(Object.fromEntries(m.args.map((a) => [a.name, String(a.type)]))),
      payload: getNamedType(m.type).name,
    };
    const inputArg = m.args.find((a) => a.name === 'input');
    const inputType = inputArg && getNamedType(inputArg.type);
    if (inputType && isInputObjectType(inputType)) {
      fact.input = inputType.name;
      fact.inputFields = sortObject(
        Object.fromEntries(
          Object.values(inputType.getFields()).map((f) => {
            noteEnum(f.type);
            return [f.name, { required: isRequired(f), type: String(f.type) }];
          }),
        ),
      );
    }
    const payload = getNamedType(m.type);
    if (isObjectType(payload)) {
      fact.payloadFields = sortObject(
        Object.fromEntries(
          Object.values(payload.getFields()).map((f) => {
            noteEnum(f.type);
            return [f.name, String(f.type)];
          }),
        ),
      );
    }
    if (m.deprecationReason) fact.deprecated = m.deprecationReason;
    mutations[name] = sortObject(fact);
  }

  // Enums: GitLab's enums our schema defines by the same name, and those used by the facts above.
  for (const [name, t] of Object.entries(ourTypes)) {
    if (isEnumType(t) && !name.startsWith('__') && isEnumType(gl.getType(name))) enumNames.add(name);
  }
  const enums = {};
  for (const name of [...enumNames].sort()) {
    const t = gl.getType(name);
    const values = t.getValues();
    const fact = { values: values.map((v) => v.name) };
    const deprecated = values.filter((v) => v.deprecationReason).map((v) => v.name);
    if (deprecated.length) fact.deprecated = deprecated;
    enums[name] = fact;
  }

  // Scalars: the global-ID scalars (and the time/number/JSON ones) with GitLab's description and the ID's class.
  const scalars = {};
  for (const [name, t] of Object.entries(gl.getTypeMap())) {
    if (!isScalarType(t) || !(name.endsWith('ID') || EXTRA_SCALARS.includes(name))) continue;
    if (name === 'ID') continue;
    const description = (t.description ?? '').trim();
    const fact = { description };
    // Only the per-class scalars ("A `CiPipelineID` is a global ID. …"): the generic `GlobalID`'s example names User.
    const m = /is a global ID[\s\S]*gid:\/\/gitlab\/([A-Za-z0-9:_]+)\/1/.exec(description);
    if (m) fact.class = m[1];
    scalars[name] = fact;
  }

  const facts = {
    source: sortObject({
      ...opts.source,
      sha256: createHash('sha256').update(text).digest('hex'),
    }),
    types: sortObject(types),
    mutations: sortObject(mutations),
    enums: sortObject(enums),
    scalars: sortObject(scalars),
  };
  writeFileSync(opts.out, serialize(deepSort(facts)) + '\n');
  const fieldCount = Object.values(types).reduce((n, t) => n + Object.keys(t.fields).length, 0);
  console.log(
    `${opts.out}: ${Object.keys(types).length} types, ${fieldCount} fields, ${Object.keys(mutations).length} mutations, ` +
      `${Object.keys(enums).length} enums, ${Object.keys(scalars).length} scalars`,
  );
}

// Every object's keys in order, at every depth (arrays keep GitLab's order), so the file is deterministic.
function deepSort(value) {
  if (Array.isArray(value)) return value.map(deepSort);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, deepSort(value[k])]));
}

// One fact per line: objects are laid out over lines down to `depth` (root = 0); deeper values stay on one line.
function serialize(value, depth = 0, maxDepth = 4, indent = '') {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || depth >= maxDepth) {
    return JSON.stringify(value);
  }
  const keys = Object.keys(value);
  if (!keys.length) return '{}';
  const inner = indent + ' ';
  const lines = keys.map((k) => `${inner}${JSON.stringify(k)}: ${serialize(value[k], depth + 1, maxDepth, inner)}`);
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

main();
