/**
 * What an operation may cost, measured before anything runs, by GitLab's rules (graphql-ruby's analyzers as
 * GitLab configures them, GL app/graphql/gitlab_schema.rb, types/base_field.rb, resolvers/base_resolver.rb,
 * lib/gitlab/graphql/query_analyzers/ast/recursion_analyzer.rb):
 *
 * - complexity: every field costs 1 plus its selections; a field with a `sort` argument 1 more, with `search` 5
 *   more; a connection then adds 1% per item it may load (`first`, at most the page maximum, which is also what
 *   an absent `first` counts as), so a full page doubles it. Fields merge by response key as execution merges
 *   them; aliases and fragments count like any selection; of the types an abstract selection may take, the
 *   dearest counts.
 * - depth: fields nested in the deepest branch, fragments inlined.
 * - recursion: a field with selections (other than `nodes`, `edges`, `node`, `ofType`) met more than twice in
 *   one branch.
 *
 * One measure is ours, not GitLab's: `nodes`, how many objects the connections may return (each page size, the
 * server's default page when `first` is absent, times the page sizes around it; at least `FETCH_WEIGHT`, the
 * weight of the query each parent costs). GitLab scores four nested 20-item connections about 20, within every
 * limit, and leaves such a query to its 30-second request timeout; here it would load 168,420 objects through
 * 8,421 queries, so it is bounded before it runs.
 */
import {
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  isAbstractType,
  isCompositeType,
  isObjectType,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './connection.js';

export interface Cost {
  /** GitLab's complexity score. */
  complexity: number;
  /** Deepest field nesting. */
  depth: number;
  /** Fields met more than the recursion threshold in one branch, with their count, in the order found. */
  recursion: [string, number][];
  /** Objects the connections may return at most. */
  nodes: number;
  /** The walk stopped at its budget: the operation expands (through fragments) beyond anything worth measuring. */
  exhausted: boolean;
}

/** GitLab's `RecursionAnalyzer`: fields that may nest in themselves this many times; these names do not count. */
const RECURSION_THRESHOLD = 2;
const RECURSION_IGNORED = new Set(['node', 'edges', 'nodes', 'ofType']);
/** Field selections visited at most (fragments expanded); graphql-ruby gives up on validation after 0.2 s instead. */
const WALK_BUDGET = 100_000;
/** graphql-ruby adds 1% of a connection's complexity per item it may load (`BaseResolver.complexity_multiplier`). */
const PER_ITEM = 0.01;
const SORT_COST = 1;
/**
 * A connection's query per parent object weighs as much as this many objects in `nodes` (measured on PGlite:
 * about 1 ms per query, 0.1 ms per object returned), so that many small pages cannot dodge the bound.
 */
const FETCH_WEIGHT = 10;
const SEARCH_COST = 5;

type Field = GraphQLField<unknown, unknown>;

/** The fields selected under one response key of one parent type, merged, and their own selections. */
interface Scope {
  field: Field | undefined;
  node: FieldNode | undefined;
  children: Map<GraphQLCompositeType, Map<string, Scope>>;
}

const newScope = (field?: Field, node?: FieldNode): Scope => ({ field, node, children: new Map() });

function isConnection(field: Field | undefined): boolean {
  const type = field && getNamedType(field.type);
  return !!type && isObjectType(type) && type.name.endsWith('Connection');
}

/** The page a connection's arguments ask for (graphql-ruby's `first || last`), if they name one. */
function pageArgument(args: Record<string, unknown>): number | undefined {
  const size = typeof args.first === 'number' ? args.first : args.last;
  return typeof size === 'number' ? size : undefined;
}

/** A connection over a list already in memory (`@inMemory`): it loads nothing of its own. */
const isInMemory = (field: Field | undefined): boolean => !!field?.astNode?.directives?.some((d) => d.name.value === 'inMemory');

class Walk {
  readonly root = newScope();
  depth = 0;
  readonly recursion = new Map<string, number>();
  exhausted = false;
  private visits = 0;
  private readonly branch = new Map<string, number>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    private readonly variables: Record<string, unknown>,
  ) {}

  /**
   * Walks a selection set. A field under `@skip`/`@include` that excludes it adds nothing to the scores, but its
   * branch is still walked for recursion: GitLab's `RecursionAnalyzer` counts skipped fields too (its `skip_node?`
   * answers "count" while the visitor skips).
   */
  selections(set: SelectionSetNode, type: GraphQLCompositeType, scope: Scope | null, depth: number): void {
    for (const selection of set.selections) {
      if (this.exhausted) return;
      const inScope = scope && !this.skipped(selection) ? scope : null;
      if (selection.kind === Kind.FIELD) this.field(selection, type, inScope, depth + 1);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        this.selections(selection.selectionSet, this.typeNamed(selection.typeCondition?.name.value) ?? type, inScope, depth);
      } else {
        const fragment = this.fragments.get(selection.name.value);
        if (fragment) this.selections(fragment.selectionSet, this.typeNamed(fragment.typeCondition.name.value) ?? type, inScope, depth);
      }
    }
  }

  /** One field: merged into its scope by response key (null when skipped), then its own selections. */
  private field(node: FieldNode, parent: GraphQLCompositeType, scope: Scope | null, depth: number): void {
    if (++this.visits > WALK_BUDGET) {
      this.exhausted = true;
      return;
    }
    const field = this.fieldDef(parent, node.name.value);
    let child: Scope | null = null;
    if (scope) {
      let byKey = scope.children.get(parent);
      if (!byKey) scope.children.set(parent, (byKey = new Map()));
      const key = node.alias?.value ?? node.name.value;
      child = byKey.get(key) ?? null;
      if (!child) byKey.set(key, (child = newScope(field, node)));
      this.depth = Math.max(this.depth, depth);
    }
    const type = field && getNamedType(field.type);
    if (!node.selectionSet || !type || !isCompositeType(type)) return;
    const name = node.name.value;
    const counted = !RECURSION_IGNORED.has(name) && node.selectionSet.selections.length > 0;
    if (counted) {
      const times = (this.branch.get(name) ?? 0) + 1;
      this.branch.set(name, times);
      if (times > RECURSION_THRESHOLD) this.recursion.set(name, times);
    }
    this.selections(node.selectionSet, type, child, depth);
    if (counted) this.branch.set(name, (this.branch.get(name) ?? 1) - 1);
  }

  private fieldDef(parent: GraphQLCompositeType, name: string): Field | undefined {
    if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
    if (parent === this.schema.getQueryType()) {
      if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
      if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
    }
    return 'getFields' in parent ? parent.getFields()[name] : undefined;
  }

  private typeNamed(name: string | undefined): GraphQLCompositeType | undefined {
    const type = name ? this.schema.getType(name) : undefined;
    return type && isCompositeType(type) ? type : undefined;
  }

  private skipped(node: { directives?: FieldNode['directives'] }): boolean {
    if (!node.directives?.length) return false;
    return (
      getDirectiveValues(GraphQLSkipDirective, node, this.variables)?.if === true ||
      getDirectiveValues(GraphQLIncludeDirective, node, this.variables)?.if === false
    );
  }
}

class Score {
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly variables: Record<string, unknown>,
  ) {}

  /** The arguments of a merged field as execution would see them (the first selection's), null if they do not coerce. */
  args(scope: Scope): Record<string, unknown> | null {
    if (!scope.field || !scope.node) return {};
    try {
      return getArgumentValues(scope.field, scope.node, this.variables);
    } catch {
      return null;
    }
  }

  /** GitLab's `BaseField` complexity of one field, given the complexity of its selections. */
  own(scope: Scope, selections: number): number {
    const args = this.args(scope);
    if (!args) return selections;
    let cost = selections + 1 + (args.sort != null ? SORT_COST : 0) + (args.search != null ? SEARCH_COST : 0);
    if (isConnection(scope.field)) {
      const limit = Math.min(pageArgument(args) ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
      cost += cost * (limit * PER_ITEM);
    }
    return Math.trunc(cost);
  }

  /** graphql-ruby's `merged_max_complexity_for_scopes`: the dearest of the object types these selections may meet. */
  ofScopes(scopes: Scope[]): number {
    const possible = new Set<GraphQLObjectType>();
    for (const scope of scopes) for (const type of scope.children.keys()) for (const t of this.concrete(type)) possible.add(t);
    let max = 0;
    for (const type of possible) {
      const applying: Map<string, Scope>[] = [];
      for (const scope of scopes) {
        for (const [scopeType, byKey] of scope.children) if (this.concrete(scopeType).includes(type)) applying.push(byKey);
      }
      max = Math.max(max, this.ofSelections(applying));
    }
    return max;
  }

  /** The fields of one object type, merged by response key across the selections that apply to it. */
  private ofSelections(applying: Map<string, Scope>[]): number {
    const keys = new Set(applying.flatMap((byKey) => [...byKey.keys()]));
    let total = 0;
    for (const key of keys) {
      const composite: Scope[] = [];
      let cost = 0;
      for (const byKey of applying) {
        const scope = byKey.get(key);
        if (!scope) continue;
        if (scope.children.size === 0) cost = this.own(scope, 0);
        else composite.push(scope);
      }
      // As graphql-ruby does, the last of the merged selections stands for their arguments.
      const last = composite.at(-1);
      if (last) cost = this.own(last, this.ofScopes(composite));
      total += cost;
    }
    return total;
  }

  private concrete(type: GraphQLCompositeType): readonly GraphQLObjectType[] {
    return isAbstractType(type) ? this.schema.getPossibleTypes(type) : [type];
  }

  /**
   * Objects the connections below `scope` may return, `around` objects of the enclosing connections deep. A
   * connection counts at least `FETCH_WEIGHT` per parent, however small its page (`first: 1`, `first: 0`, `count`
   * only): each parent costs it a query of its own.
   */
  nodes(scope: Scope, around = 1): number {
    let total = 0;
    for (const byKey of scope.children.values()) {
      for (const child of byKey.values()) {
        let inner = around;
        if (isConnection(child.field)) {
          const args = this.args(child);
          inner = around * Math.max(FETCH_WEIGHT, Math.min((args && pageArgument(args)) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE));
          if (!isInMemory(child.field)) total += inner;
        }
        total += this.nodes(child, inner);
      }
    }
    return total;
  }
}

/**
 * Measures the operation of a validated document. `variables` are the operation's coerced variable values (they
 * decide `@skip`, `@include` and arguments given by variables).
 */
export function measure(
  schema: GraphQLSchema,
  fragments: readonly FragmentDefinitionNode[],
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Cost {
  const root = schema.getRootType(operation.operation);
  const walk = new Walk(schema, new Map(fragments.map((f) => [f.name.value, f])), variables);
  if (root) walk.selections(operation.selectionSet, root, walk.root, 0);
  const score = new Score(schema, variables);
  return {
    complexity: walk.exhausted ? 0 : score.ofScopes([walk.root]),
    depth: walk.depth,
    recursion: [...walk.recursion],
    nodes: walk.exhausted ? 0 : score.nodes(walk.root),
    exhausted: walk.exhausted,
  };
}
