/**
 * GitLab's global-ID scalars (`Types::GlobalIDType[Model]`): one per model, named after its class (`Ci::Pipeline` →
 * `CiPipelineID`), whose values are `gid://gitlab/<Class>/<id>` strings.
 *
 * - Input: a string GlobalID parses, of GitLab's app, naming the model or one of its subclasses (a `JobID`, whose
 *   class is CommitStatus, takes a `Ci::Build`'s), else refused in GitLab's words (`"17" is not a valid Global ID`,
 *   `"gid://gitlab/Project/1" does not represent an instance of Ci::Pipeline`). Resolvers get the record's numeric
 *   id (an id no record can have, such as `gid://gitlab/Ci::Pipeline/x`, names nothing: -1).
 * - Output: a number, or a global ID of the model, as the string.
 * - A variable declared `ID` may stand where a global-ID scalar is expected, as GitLab lets it
 *   (`GraphQLExtensions::ScalarExtensions`: "Allow ID to unify with GlobalID Types"): `unifyIdVariables` retypes
 *   such a variable before validation, so queries written with `$id: ID!` keep working.
 * - REST passes a path's numeric id (`/pipelines/17`) as the model's global ID (`restGlobalId`).
 */
import {
  GraphQLScalarType,
  Kind,
  TypeInfo,
  getNamedType,
  isScalarType,
  parseType,
  print,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLSchema,
  type TypeNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import type { ApolloServerPlugin } from '@apollo/server';
import { globalId } from './ids.js';
import { shown } from './scalars.js';

interface GlobalIdType {
  /** The model's class, as GitLab names it in its global IDs. */
  model: string;
  /** Classes whose global IDs it also takes: the model's subclasses. */
  subclasses?: readonly string[];
  /**
   * Resolvers get `{ type, id }` (the class the global ID names, and its id) rather than the id alone: a scalar of a
   * polymorphic model (GitLab's `AwardableID`), whose class decides where the record is.
   */
  withClass?: boolean;
}

/** The global-ID scalars this schema uses, by GraphQL name (GitLab's), with the class each stands for. */
export const GLOBAL_ID_TYPES: Readonly<Record<string, GlobalIdType>> = {
  AlertManagementAlertID: { model: 'AlertManagement::Alert' },
  AlertManagementHttpIntegrationID: { model: 'AlertManagement::HttpIntegration' },
  /** The project's Prometheus alert integration; the class's name before 14.1 is still taken. */
  IntegrationsPrometheusID: { model: 'Integrations::Prometheus', subclasses: ['PrometheusService'] },
  AlertManagementMetricImageID: { model: 'AlertManagement::MetricImage' },
  AuthnOauthApplicationID: { model: 'Authn::OauthApplication' },
  CiBuildID: { model: 'Ci::Build' },
  ClustersAgentID: { model: 'Clusters::Agent' },
  CiJobArtifactID: { model: 'Ci::JobArtifact' },
  CiPipelineID: { model: 'Ci::Pipeline' },
  CiPipelineScheduleID: { model: 'Ci::PipelineSchedule' },
  CiRunnerID: { model: 'Ci::Runner' },
  CiStageID: { model: 'Ci::Stage' },
  EpicID: { model: 'Epic' },
  EpicIssueID: { model: 'EpicIssue' },
  EpicTreeSortingID: { model: 'EpicTreeSorting', subclasses: ['Epic', 'EpicIssue'], withClass: true },
  CustomerRelationsContactID: { model: 'CustomerRelations::Contact' },
  CustomerRelationsOrganizationID: { model: 'CustomerRelations::Organization' },
  DeploymentID: { model: 'Deployment' },
  EnvironmentID: { model: 'Environment' },
  ErrorTrackingClientKeyID: { model: 'ErrorTracking::ClientKey' },
  GitlabErrorTrackingDetailedErrorID: { model: 'Gitlab::ErrorTracking::DetailedError' },
  GroupID: { model: 'Group' },
  GroupsRepositoryStorageMoveID: { model: 'Groups::RepositoryStorageMove' },
  /** GitLab's GlobalIDType[Awardable]: issues, merge requests, snippets, epics and notes. */
  AwardableID: {
    model: 'Awardable',
    subclasses: ['Issue', 'MergeRequest', 'Snippet', 'ProjectSnippet', 'PersonalSnippet', 'Epic', 'Note', 'DiscussionNote', 'DiffNote', 'LegacyDiffNote'],
    withClass: true,
  },
  IssueID: { model: 'Issue' },
  IssueLinkID: { model: 'IssueLink' },
  IterationID: { model: 'Iteration' },
  IterationsCadenceID: { model: 'Iterations::Cadence' },
  /** GitLab's GlobalIDType[Issuable]: issues and merge requests, with the class named. */
  DraftNoteID: { model: 'DraftNote' },
  IssuableID: { model: 'Issuable', subclasses: ['Issue', 'MergeRequest'], withClass: true },
  MergeRequestID: { model: 'MergeRequest' },
  JobID: { model: 'CommitStatus', subclasses: ['Ci::Build', 'Ci::Bridge', 'GenericCommitStatus'] },
  /** GitLab's GlobalIDType[Namespace]: groups and personal namespaces, each by its own class. */
  NamespaceID: { model: 'Namespace', subclasses: ['Group', 'Namespaces::UserNamespace', 'Namespaces::ProjectNamespace'] },
  NoteID: { model: 'Note', subclasses: ['DiscussionNote', 'DiffNote', 'LegacyDiffNote'] },
  LabelID: { model: 'Label', subclasses: ['ProjectLabel', 'GroupLabel'] },
  MilestoneID: { model: 'Milestone' },
  PackagesPackageFileID: { model: 'Packages::PackageFile' },
  PackagesPackageID: { model: 'Packages::Package' },
  PackagesPypiMetadatumID: { model: 'Packages::Pypi::Metadatum' },
  ProjectHookID: { model: 'ProjectHook' },
  GroupHookID: { model: 'GroupHook' },
  ProjectID: { model: 'Project' },
  ProjectsRepositoryStorageMoveID: { model: 'Projects::RepositoryStorageMove' },
  ReleaseID: { model: 'Release' },
  ReleasesLinkID: { model: 'Releases::Link' },
  SnippetID: { model: 'Snippet', subclasses: ['PersonalSnippet', 'ProjectSnippet'] },
  TimelogID: { model: 'Timelog' },
  SnippetsRepositoryStorageMoveID: { model: 'Snippets::RepositoryStorageMove' },
  SystemHookID: { model: 'SystemHook' },
  TodoID: { model: 'Todo' },
  UploadID: { model: 'Upload' },
  UserID: { model: 'User' },
};

/** Ruby's `inspect` of what came in, as GitLab's messages quote it. */
const inspect = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : shown(value));

/** GlobalID.parse: `gid://<app>/<Model>/<id>`, the model possibly namespaced, the id anything up to a query string. */
const GID = /^gid:\/\/([^/]+)\/([A-Za-z][A-Za-z0-9]*(?:::[A-Za-z][A-Za-z0-9]*)*)\/([^/?]+)(?:\?.*)?$/;

function scalar(name: string, type: GlobalIdType): GraphQLScalarType {
  const classes = new Set([type.model, ...(type.subclasses ?? [])]);
  const parse = (value: unknown): number | { type: string; id: number } => {
    const match = typeof value === 'string' ? GID.exec(value) : null;
    if (!match) throw new TypeError(`${inspect(value)} is not a valid Global ID`);
    if (match[1] !== 'gitlab') throw new TypeError(`${inspect(value)} is not a Gitlab Global ID`);
    if (!classes.has(match[2])) throw new TypeError(`${inspect(value)} does not represent an instance of ${type.model}`);
    const number = /^\d{1,10}$/.test(match[3]) ? Number(match[3]) : NaN;
    const id = Number.isSafeInteger(number) && number <= 2147483647 ? number : -1;
    return type.withClass ? { type: match[2], id } : id;
  };
  return new GraphQLScalarType({
    name,
    description: `A \`${name}\` is a global ID. It is encoded as a string.\n\nAn example \`${name}\` is: \`"${globalId(type.model, 1)}"\`.`,
    serialize: (value) => (typeof value === 'number' ? globalId(type.model, value) : String(value)),
    parseValue: parse,
    parseLiteral: (ast: ValueNode) => parse(ast.kind === Kind.STRING ? ast.value : ast.kind === Kind.INT ? Number(ast.value) : print(ast)),
    extensions: { globalIdModel: type.model },
  });
}

/** The scalars, for the schema's resolver map. */
export const globalIdScalars: Record<string, GraphQLScalarType> = Object.fromEntries(
  Object.entries(GLOBAL_ID_TYPES).map(([name, type]) => [name, scalar(name, type)]),
);

/** The model a global-ID scalar stands for; undefined for any other scalar. */
export function globalIdModel(type: GraphQLScalarType): string | undefined {
  return (type.extensions as { globalIdModel?: string }).globalIdModel;
}

/** A REST parameter for a global-ID scalar of `model`: a numeral is the model's record by that id; a global ID stays one. */
export function restGlobalId(model: string, text: string): string {
  return /^-?\d+$/.test(text) ? `gid://gitlab/${model}/${text}` : text;
}

function namedTypeOf(node: TypeNode): string {
  return node.kind === Kind.NAMED_TYPE ? node.name.value : namedTypeOf(node.type);
}

/**
 * The document with each variable declared `ID` (in any wrapping) that stands only where one global-ID scalar is
 * expected retyped to that scalar, wrappings kept; the same document when there is none.
 */
export function unifyIdVariables(schema: GraphQLSchema, document: DocumentNode): DocumentNode {
  const expected = new Map<string, Set<string>>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      // A definition's own variable is where it is declared, not where it stands.
      VariableDefinition: () => false,
      Variable(node) {
        const input = typeInfo.getInputType();
        const named = input ? getNamedType(input) : undefined;
        const name = named && isScalarType(named) ? named.name : '?';
        const seen = expected.get(node.name.value) ?? new Set<string>();
        seen.add(name);
        expected.set(node.name.value, seen);
      },
    }),
  );
  const retype = (definition: VariableDefinitionNode): VariableDefinitionNode => {
    if (namedTypeOf(definition.type) !== 'ID') return definition;
    const uses = expected.get(definition.variable.name.value);
    const [only] = uses?.size === 1 ? [...uses] : [];
    if (!only || !(only in GLOBAL_ID_TYPES)) return definition;
    return { ...definition, type: parseType(print(definition.type).replace(/\bID\b/, only)) };
  };
  let changed = false;
  const unified = visit(document, {
    VariableDefinition(node) {
      const next = retype(node);
      if (next !== node) changed = true;
      return next;
    },
  });
  return changed ? unified : document;
}

/** unifyIdVariables for /api/graphql: the document is retyped before Apollo validates it. */
export const idVariablesUnified = (schema: GraphQLSchema): ApolloServerPlugin => ({
  async requestDidStart() {
    return {
      async validationDidStart(requestContext) {
        (requestContext as { document: DocumentNode }).document = unifyIdVariables(schema, requestContext.document);
      },
    };
  },
});
