/**
 * GitLab's connections are Relay's: besides `nodes` and `pageInfo` each has `edges: [<Name>Edge]`, an edge being
 * `{ cursor: String!, node: <Node> }` (graphql-ruby's BaseConnection and BaseEdge), and queries written for
 * gitlab.com walk either. Modules declare `nodes` only; before the schema is built every `…Connection` type gains
 * `edges` and its edge type, named as GitLab names them (`CiJobConnection` → `CiJobEdge`), unless it declares its
 * own. Connections built by `connection()` (connection.ts) answer `edges` with the same cursors `pageInfo` gives.
 */
import { Kind, type DefinitionNode, type DocumentNode, type FieldDefinitionNode, type ObjectTypeDefinitionNode, type TypeNode } from 'graphql';

const named = (value: string) => ({ kind: Kind.NAME, value }) as const;
const namedType = (value: string) => ({ kind: Kind.NAMED_TYPE, name: named(value) }) as const;
const description = (value: string) => ({ kind: Kind.STRING, value, block: false }) as const;

function innerName(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : innerName(type.type);
}

function field(name: string, type: TypeNode, text: string): FieldDefinitionNode {
  return { kind: Kind.FIELD_DEFINITION, name: named(name), type, description: description(text), arguments: [], directives: [] };
}

/** The SDL documents, each connection with GitLab's `edges` and an edge type where it declares none. */
export function withEdges(documents: readonly DocumentNode[]): DocumentNode[] {
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
    const definitions = doc.definitions.map((def): DefinitionNode => {
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
