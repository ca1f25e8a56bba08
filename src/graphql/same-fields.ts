/**
 * `@sameFieldsAs(type: "UserCore")` (graphql/base.graphql): a type with every field of another object type, written
 * once. Before the schema is built, each such type definition gains the fields of the named type's definition and
 * extensions that it does not declare itself; once built, each such field takes the named type's resolver (and
 * scopes, which ride on the copied field's directives) unless a module resolves it on the type itself.
 */
import { Kind, parse, type DefinitionNode, type DocumentNode, type FieldDefinitionNode, type GraphQLSchema, isObjectType, isInterfaceType } from 'graphql';

const DIRECTIVE = 'sameFieldsAs';

type Definition = DefinitionNode & { name?: { value: string }; fields?: readonly FieldDefinitionNode[]; directives?: readonly { name: { value: string }; arguments?: readonly { value: { kind: string; value?: string } }[] }[] };

/** The type a definition copies from, or null. */
function sourceOf(def: Definition): string | null {
  const directive = def.directives?.find((d) => d.name.value === DIRECTIVE);
  const value = directive?.arguments?.[0]?.value;
  return value?.kind === Kind.STRING ? (value.value ?? null) : null;
}

const isObjectDefinition = (def: Definition) => def.kind === Kind.OBJECT_TYPE_DEFINITION || def.kind === Kind.OBJECT_TYPE_EXTENSION;

/** The SDL documents, with every `@sameFieldsAs` type given the fields of its source type it lacks. */
export function withSameFields(typeDefs: readonly string[]): DocumentNode[] {
  const documents = typeDefs.map((sdl) => parse(sdl, { noLocation: true }));
  const fieldsOf = new Map<string, FieldDefinitionNode[]>();
  for (const doc of documents) {
    for (const def of doc.definitions as readonly Definition[]) {
      if (!isObjectDefinition(def) || !def.name || !def.fields) continue;
      const list = fieldsOf.get(def.name.value) ?? [];
      list.push(...def.fields);
      fieldsOf.set(def.name.value, list);
    }
  }
  return documents.map((doc) => {
    if (!doc.definitions.some((def) => sourceOf(def as Definition))) return doc;
    const definitions = (doc.definitions as readonly Definition[]).map((def) => {
      const source = sourceOf(def);
      if (!source) return def;
      const taken = fieldsOf.get(source);
      if (!taken) throw new Error(`@${DIRECTIVE}(type: "${source}") on ${def.name?.value}: no object type ${source}`);
      const own = new Set((def.fields ?? []).map((f) => f.name.value));
      return { ...def, fields: [...(def.fields ?? []), ...taken.filter((f) => !own.has(f.name.value))] };
    });
    return { ...doc, definitions: definitions as DefinitionNode[] };
  });
}

/** Gives each copied field of an object type its source type's resolver where the type has none of its own. */
export function resolveSameFields(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    const source = type.astNode ? sourceOf(type.astNode as unknown as Definition) : null;
    if (!source || !isObjectType(type)) continue;
    const from = schema.getType(source);
    if (!isObjectType(from)) throw new Error(`@${DIRECTIVE}(type: "${source}") on ${type.name}: no object type ${source}`);
    const sourceFields = from.getFields();
    for (const [name, field] of Object.entries(type.getFields())) {
      if (!field.resolve && sourceFields[name]?.resolve) field.resolve = sourceFields[name].resolve;
    }
  }
  return schema;
}
