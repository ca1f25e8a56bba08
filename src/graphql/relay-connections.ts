/**
 * GitLab's connections are Relay's (graphql-ruby's BaseConnection and BaseEdge), and queries written for gitlab.com
 * use all of it. Modules declare a connection type with `nodes`, and its fields with `first` and `after`; before the
 * schema is built:
 * - every `…Connection` type gains `edges: [<Name>Edge]`, an edge being `{ cursor: String!, node: <Node> }`, named
 *   as GitLab names them (`CiJobConnection` → `CiJobEdge`), unless it declares its own;
 * - every field answering a connection with `after` also takes `before: String` and `last: Int`.
 * Connections built by `connection()` (connection.ts) answer both: edges with the cursors `pageInfo` gives, and
 * pages read backwards.
 */
import { Kind, type DefinitionNode, type DocumentNode, type FieldDefinitionNode, type InputValueDefinitionNode, type ObjectTypeDefinitionNode, type TypeNode } from 'graphql';

const named = (value: string) => ({ kind: Kind.NAME, value }) as const;
const namedType = (value: string) => ({ kind: Kind.NAMED_TYPE, name: named(value) }) as const;
const description = (value: string) => ({ kind: Kind.STRING, value, block: false }) as const;

function innerName(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : innerName(type.type);
}

function field(name: string, type: TypeNode, text: string): FieldDefinitionNode {
  return { kind: Kind.FIELD_DEFINITION, name: named(name), type, description: description(text), arguments: [], directives: [] };
}

function argument(name: string, type: string, text: string): InputValueDefinitionNode {
  return { kind: Kind.INPUT_VALUE_DEFINITION, name: named(name), type: namedType(type), description: description(text), directives: [] };
}

/** A field answering a connection, with `before` and `last` beside its `after` (GitLab's words for them). */
function backwards(def: FieldDefinitionNode): FieldDefinitionNode {
  if (!innerName(def.type).endsWith('Connection')) return def;
  const args = def.arguments ?? [];
  if (!args.some((a) => a.name.value === 'after') || args.some((a) => a.name.value === 'before' || a.name.value === 'last')) return def;
  return {
    ...def,
    arguments: [
      ...args,
      argument('before', 'String', 'Returns the elements in the list that come before the specified cursor.'),
      argument('last', 'Int', 'Returns the last _n_ elements from the list.'),
    ],
  };
}

/** The SDL documents, each connection with GitLab's `edges` and an edge type where it declares none, and every connection field with `before`/`last`. */
export function withRelayConnections(documents: readonly DocumentNode[]): DocumentNode[] {
  const declared = new Set<string>();
  const withEdgesField = new Set<string>();
  for (const doc of documents) {
    for (const def of doc.definitions) {
      if (def.kind !== Kind.OBJECT_TYPE_DEFINITION && def.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
      if (def.kind === Kind.OBJECT_TYPE_DEFINITION) declared.add(def.name.value);
      if (def.fields?.some((f) => f.name.value === 'edges')) withEdgesField.add(def.name.value);
    }
  }
  const edgeTypes: ObjectTypeDefinitionNode[] = [];
  const result = documents.map((doc) => {
    let changed = false;
    const definitions = doc.definitions.map((original): DefinitionNode => {
      let def = original;
      if (
        (def.kind === Kind.OBJECT_TYPE_DEFINITION || def.kind === Kind.OBJECT_TYPE_EXTENSION || def.kind === Kind.INTERFACE_TYPE_DEFINITION || def.kind === Kind.INTERFACE_TYPE_EXTENSION) &&
        def.fields?.some((f) => backwards(f) !== f)
      ) {
        changed = true;
        def = { ...def, fields: def.fields!.map(backwards) };
      }
      if (def.kind !== Kind.OBJECT_TYPE_DEFINITION || !def.name.value.endsWith('Connection') || withEdgesField.has(def.name.value)) return def;
      const nodes = def.fields?.find((f) => f.name.value === 'nodes');
      if (!nodes) return def;
      const edge = `${def.name.value.slice(0, -'Connection'.length)}Edge`;
      if (!declared.has(edge)) {
        declared.add(edge);
        edgeTypes.push({
          kind: Kind.OBJECT_TYPE_DEFINITION,
          name: named(edge),
          description: description('An edge in a connection.'),
          interfaces: [],
          directives: [],
          fields: [
            field('cursor', { kind: Kind.NON_NULL_TYPE, type: namedType('String') }, 'A cursor for use in pagination.'),
            field('node', namedType(innerName(nodes.type)), 'The item at the end of the edge.'),
          ],
        });
      }
      changed = true;
      return { ...def, fields: [...(def.fields ?? []), field('edges', { kind: Kind.LIST_TYPE, type: namedType(edge) }, 'A list of edges.')] };
    });
    return changed ? { ...doc, definitions } : doc;
  });
  return edgeTypes.length ? [...result, { kind: Kind.DOCUMENT, definitions: edgeTypes }] : result;
}
