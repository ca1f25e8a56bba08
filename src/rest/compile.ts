/**
 * Compiles the REST operations once, at start-up: every operation file is parsed and validated against the
 * schema, compiled to a function (graphql-jit), and given its variable list, the REST name of each argument it
 * fills, and an output plan (applied per request by output.ts). A bad operation fails the start, not a request.
 */
import {
  GraphQLEnumType,
  Kind,
  getNamedType,
  isAbstractType,
  isObjectType,
  isInterfaceType,
  parse,
  parseType,
  typeFromAST,
  valueFromASTUntyped,
  validate,
  type ArgumentNode,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type GraphQLInputType,
  type GraphQLNamedType,
  type InlineFragmentNode,
  type SelectionNode,
  type GraphQLSchema,
  type ObjectFieldNode,
  type FieldNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { unifyIdVariables } from '../graphql/global-ids.js';
import { readGraphqlFiles } from '../graphql/schema.js';
import { BRANCH_PREFIX, markBranched, type OutputPlan } from './output.js';
import { snakeCase } from './params.js';

export interface VariablePlan {
  name: string;
  /** The request parameter that fills it: its name in snake_case unless `@param(name:)` says otherwise. */
  param: string;
  type: GraphQLInputType;
  hasDefault: boolean;
  /** `@clearable`: an empty value is null (clear the field), not "not given". */
  clearable: boolean;
}

/** The request parameter of a variable definition (see VariablePlan.param). */
function paramOf(definition: VariableDefinitionNode): string {
  const directive = definition.directives?.find((d) => d.name.value === 'param');
  const name = directive?.arguments?.find((a) => a.name.value === 'name')?.value;
  return name?.kind === Kind.STRING ? name.value : snakeCase(definition.variable.name.value);
}

export interface CompiledOperation {
  name: string;
  document: DocumentNode;
  /** Runs the operation through its compiled function. */
  run: (context: unknown, variables: Record<string, unknown>) => Promise<ExecutionResult> | ExecutionResult;
  /**
   * The operation compiled to a function (graphql-jit), so REST runs it without walking the AST per field. Compiled
   * on first use: compiling all of them at start-up took a tenth of a second and ~30 MB for routes a server may
   * never serve. Parsing and validation stay at start-up; the contract test compiles every operation.
   */
  compiled: () => CompiledQuery;
  kind: 'query' | 'mutation';
  rootFields: string[];
  variables: VariablePlan[];
  /** Top-level plans, only the branches that need work. */
  output: OutputPlan[];
  /** The REST parameter that fills each argument named in the operation (`userId` → `id`), for error messages. */
  restNames: Map<string, string>;
}

/** Each field argument given by a variable, to the REST parameter of that variable (`params`: by variable name). */
function argumentParams(
  selection: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  params: Map<string, string>,
  out = new Map<string, string>(),
): Map<string, string> {
  for (const node of selection.selections) {
    if (node.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = fragments.get(node.name.value);
      if (fragment) argumentParams(fragment.selectionSet, fragments, params, out);
      continue;
    }
    if (node.kind === Kind.FIELD) {
      // A relay mutation's arguments are the fields of its `input: { … }` object: named as the resolver sees them.
      const args = (node.arguments ?? []).flatMap((arg): readonly (ArgumentNode | ObjectFieldNode)[] =>
        arg.name.value === 'input' && arg.value.kind === Kind.OBJECT ? arg.value.fields : [arg],
      );
      for (const arg of args) {
        const variable = arg.value.kind === Kind.VARIABLE ? arg.value.name.value : undefined;
        if (variable !== undefined && !out.has(arg.name.value)) out.set(arg.name.value, params.get(variable) ?? snakeCase(variable));
      }
    }
    if (node.selectionSet) argumentParams(node.selectionSet, fragments, params, out);
  }
  return out;
}

/**
 * graphql-jit gives an input object literal's field bound to a variable the request left out (`input: { name: $name }`
 * without `$name`) as null, where graphql-js leaves the field out, as the spec says; and services tell a setting not
 * given from a null one (a null `expiresAt` removes an expiry). So each root field's `input: { … }` literal (a relay
 * mutation's) reaches the compiled function as one variable of the input's type, built per request from the
 * literal as graphql-js reads it: a field whose variable is absent is left out. Returns the rewritten operation and
 * the builder; the operation as written stays what validation and graphql-js see.
 */
function relayInputVariables(schema: GraphQLSchema, op: OperationDefinitionNode): { op: OperationDefinitionNode; build: (variables: Record<string, unknown>) => Record<string, unknown> } {
  const root = op.operation === 'mutation' ? schema.getMutationType() : null;
  const literals: [string, ValueNode][] = [];
  const definitions: VariableDefinitionNode[] = [];
  const selections = op.selectionSet.selections.map((node) => {
    if (node.kind !== Kind.FIELD || !root) return node;
    const arg = node.arguments?.find((a) => a.name.value === 'input');
    const type = root.getFields()[node.name.value]?.args.find((a) => a.name === 'input')?.type;
    if (!arg || arg.value.kind !== Kind.OBJECT || !type) return node;
    const name = `relayInput_${node.alias?.value ?? node.name.value}`;
    literals.push([name, arg.value]);
    definitions.push({ kind: Kind.VARIABLE_DEFINITION, variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } }, type: parseType(String(type)) });
    const variable = { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } } as const;
    return { ...node, arguments: node.arguments!.map((a) => (a === arg ? { ...a, value: variable } : a)) };
  });
  if (!literals.length) return { op, build: (variables) => variables };
  const rewritten = { ...op, variableDefinitions: [...(op.variableDefinitions ?? []), ...definitions], selectionSet: { ...op.selectionSet, selections } };
  // A variable left out takes its declared default inside the input object too, as GraphQL would give it.
  const defaults = Object.fromEntries((op.variableDefinitions ?? []).flatMap((v) => (v.defaultValue ? [[v.variable.name.value, valueFromASTUntyped(v.defaultValue)]] : [])));
  return {
    op: rewritten,
    build: (variables) => {
      const built = { ...variables };
      const filled = { ...defaults, ...variables };
      for (const [name, literal] of literals) built[name] = given(literal, filled);
      return built;
    },
  };
}

/** A literal's value with its variables filled in, raw (the compiled function coerces it); absent ones left out. */
function given(node: ValueNode, variables: Record<string, unknown>): unknown {
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables[node.name.value];
    case Kind.OBJECT: {
      const out: Record<string, unknown> = {};
      for (const field of node.fields) {
        if (field.value.kind === Kind.VARIABLE && !Object.hasOwn(variables, field.value.name.value)) continue;
        out[field.name.value] = given(field.value, variables);
      }
      return out;
    }
    case Kind.LIST:
      return node.values.map((value) => given(value, variables));
    default:
      return valueFromASTUntyped(node);
  }
}

/**
 * The response keys a selection set gives at its own level (fragment spreads and inline fragments opened), per type
 * condition: `''` for what every type answers.
 */
function keysByType(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, condition = '', out = new Map<string, Set<string>>()): Map<string, Set<string>> {
  for (const node of set.selections) {
    if (node.kind === Kind.FIELD) {
      const keys = out.get(condition) ?? new Set<string>();
      keys.add(node.alias?.value ?? node.name.value);
      out.set(condition, keys);
    } else {
      const inner = node.kind === Kind.INLINE_FRAGMENT ? node : fragments.get(node.name.value);
      if (inner) keysByType(inner.selectionSet, fragments, inner.typeCondition?.name.value ?? condition, out);
    }
  }
  return out;
}

/** Whether, under some abstract field, branches on different object types give the same response key. */
function hasClashingBranches(schema: GraphQLSchema, parent: GraphQLNamedType, set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen = new Set<string>()): boolean {
  for (const node of set.selections) {
    if (node.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = fragments.get(node.name.value);
      if (!fragment || seen.has(node.name.value)) continue;
      seen.add(node.name.value);
      if (hasClashingBranches(schema, schema.getType(fragment.typeCondition.name.value) ?? parent, fragment.selectionSet, fragments, seen)) return true;
      continue;
    }
    if (node.kind === Kind.INLINE_FRAGMENT) {
      const type = node.typeCondition ? schema.getType(node.typeCondition.name.value) ?? parent : parent;
      if (hasClashingBranches(schema, type, node.selectionSet, fragments, seen)) return true;
      continue;
    }
    if (!node.selectionSet || !(isObjectType(parent) || isInterfaceType(parent))) continue;
    const field = parent.getFields()[node.name.value];
    if (!field) continue;
    const named = getNamedType(field.type);
    if (isAbstractType(named)) {
      const counts = new Map<string, number>();
      for (const [condition, keys] of keysByType(node.selectionSet, fragments)) {
        if (!condition || !isObjectType(schema.getType(condition))) continue;
        for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      if ([...counts.values()].some((n) => n > 1)) return true;
    }
    if (hasClashingBranches(schema, named, node.selectionSet, fragments, seen)) return true;
  }
  return false;
}

/** A fragment spread as an inline fragment of the fragment's selections, on its type. */
function spreadInline(node: FragmentSpreadNode, fragment: FragmentDefinitionNode, selectionSet: SelectionSetNode): InlineFragmentNode {
  return { kind: Kind.INLINE_FRAGMENT, typeCondition: fragment.typeCondition, directives: node.directives, selectionSet };
}

/**
 * A branch's own fields (its fragment spreads opened, into inline fragments, at its own level only; the fields'
 * selections keep theirs), each field's key given the branch's prefix, and `@copy(of:)` where it names a key of the
 * branch (`own`: its keys, from keysByType).
 */
function prefixBranch(set: SelectionSetNode, prefix: string, own: ReadonlySet<string>, fragments: Map<string, FragmentDefinitionNode>): SelectionSetNode {
  const selections = set.selections.map((node): SelectionNode => {
    if (node.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = fragments.get(node.name.value);
      return fragment ? spreadInline(node, fragment, prefixBranch(fragment.selectionSet, prefix, own, fragments)) : node;
    }
    if (node.kind === Kind.INLINE_FRAGMENT) return { ...node, selectionSet: prefixBranch(node.selectionSet, prefix, own, fragments) };
    const directives = node.directives?.map((d) =>
      d.name.value !== 'copy'
        ? d
        : {
            ...d,
            arguments: d.arguments?.map((a) => (a.name.value === 'of' && a.value.kind === Kind.STRING && own.has(a.value.value) ? { ...a, value: { ...a.value, value: prefix + a.value.value } } : a)),
          },
    );
    return { ...node, alias: { kind: Kind.NAME, value: prefix + (node.alias?.value ?? node.name.value) }, directives };
  });
  return { ...set, selections };
}

/**
 * Under every abstract field whose branches clash, each branch on an object type (an inline fragment, or a fragment
 * spread on that type) answers its keys prefixed with that type (BRANCH_PREFIX), so two branches may give one REST
 * key with different GraphQL types (an issue's `state` and a merge request's: validation's
 * OverlappingFieldsCanBeMerged) and each keeps its own output plan; output.ts takes the prefixes off. Fragments on
 * the way to such a field are opened into inline fragments; all others stay spreads, so the text stays small.
 */
function separateBranches(schema: GraphQLSchema, parent: GraphQLNamedType, set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>): SelectionSetNode {
  const selections = set.selections.map((node): SelectionNode => {
    if (node.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = fragments.get(node.name.value);
      if (!fragment) return node;
      const type = schema.getType(fragment.typeCondition.name.value) ?? parent;
      if (!hasClashingBranches(schema, type, fragment.selectionSet, fragments)) return node;
      return spreadInline(node, fragment, separateBranches(schema, type, fragment.selectionSet, fragments));
    }
    if (node.kind === Kind.INLINE_FRAGMENT) {
      const type = node.typeCondition ? schema.getType(node.typeCondition.name.value) ?? parent : parent;
      return { ...node, selectionSet: separateBranches(schema, type, node.selectionSet, fragments) };
    }
    if (!node.selectionSet || !(isObjectType(parent) || isInterfaceType(parent))) return node;
    const field = parent.getFields()[node.name.value];
    if (!field) return node;
    const named = getNamedType(field.type);
    if (!isAbstractType(named) || !hasClashingBranches(schema, parent, { kind: Kind.SELECTION_SET, selections: [node] }, fragments)) {
      return { ...node, selectionSet: separateBranches(schema, named, node.selectionSet, fragments) };
    }
    const branches = node.selectionSet.selections.map((branch): SelectionNode => {
      const fragment = branch.kind === Kind.FRAGMENT_SPREAD ? fragments.get(branch.name.value) : undefined;
      const condition = branch.kind === Kind.INLINE_FRAGMENT ? branch.typeCondition?.name.value : fragment?.typeCondition.name.value;
      const type = condition ? schema.getType(condition) : undefined;
      if (!condition || !type || !isObjectType(type) || branch.kind === Kind.FIELD) return branch;
      const inner = separateBranches(schema, type, branch.kind === Kind.INLINE_FRAGMENT ? branch.selectionSet : fragment!.selectionSet, fragments);
      const own = new Set([...keysByType(inner, fragments).values()].flatMap((keys) => [...keys]));
      const prefixed = prefixBranch(inner, `${BRANCH_PREFIX}${condition}__`, own, fragments);
      return branch.kind === Kind.INLINE_FRAGMENT ? { ...branch, selectionSet: prefixed } : spreadInline(branch, fragment!, prefixed);
    });
    return { ...node, selectionSet: { ...node.selectionSet, selections: branches } };
  });
  return { ...set, selections };
}

function hasDirective(node: { directives?: readonly { name: { value: string } }[] }, name: string): boolean {
  return !!node.directives?.some((d) => d.name.value === name);
}

function planSelection(
  schema: GraphQLSchema,
  parent: GraphQLNamedType,
  selection: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
): OutputPlan[] {
  const plans: OutputPlan[] = [];
  for (const node of selection.selections) {
    if (node.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = fragments.get(node.name.value);
      if (fragment) plans.push(...planSelection(schema, parent, fragment.selectionSet, fragments));
      continue;
    }
    if (node.kind === Kind.INLINE_FRAGMENT) {
      const type = node.typeCondition ? schema.getType(node.typeCondition.name.value) ?? parent : parent;
      plans.push(...planSelection(schema, type, node.selectionSet, fragments));
      continue;
    }
    const copy = copyDirective(node, fragments);
    if (copy) {
      plans.push({ key: node.alias?.value ?? node.name.value, omitIfNull: false, unwrap: false, spread: false, copy, children: [] });
      continue;
    }
    if (!(isObjectType(parent) || isInterfaceType(parent))) continue;
    const field = parent.getFields()[node.name.value];
    if (!field) continue;
    const named = getNamedType(field.type);
    const children = node.selectionSet ? planSelection(schema, named, node.selectionSet, fragments) : [];
    const plan: OutputPlan = {
      key: node.alias?.value ?? node.name.value,
      enumType: named instanceof GraphQLEnumType ? named : undefined,
      number: named.name === 'BigInt' || hasDirective(node, 'number'),
      date: hasDirective(node, 'date'),
      boolean: hasDirective(node, 'boolean'),
      twoDecimals: hasDirective(node, 'twoDecimals'),
      omitIfNull: hasDirective(node, 'omitIfNull'),
      unwrap: hasDirective(node, 'unwrap'),
      spread: hasDirective(node, 'spread'),
      unprefix: isAbstractType(named) && children.some((c) => c.key.startsWith(BRANCH_PREFIX)),
      children,
    };
    plans.push(plan);
  }
  return plans;
}

/**
 * `@copy(of: "key", like: "Fragment", first: true)`: the sibling key to copy, with `like` the top-level response keys
 * of that fragment, the only ones the copy keeps, and with `first` its list's first item only.
 */
function copyDirective(node: FieldNode, fragments: Map<string, FragmentDefinitionNode>): OutputPlan['copy'] {
  const directive = node.directives?.find((d) => d.name.value === 'copy');
  if (!directive) return undefined;
  const literal = (name: string) => {
    const arg = directive.arguments?.find((a) => a.name.value === name)?.value;
    return arg?.kind === Kind.STRING ? arg.value : undefined;
  };
  const of = literal('of');
  if (!of) throw new Error(`graphql/rest: @copy on ${node.alias?.value ?? node.name.value} needs a literal \`of\``);
  const firstArg = directive.arguments?.find((a) => a.name.value === 'first')?.value;
  const first = firstArg?.kind === Kind.BOOLEAN && firstArg.value;
  const like = literal('like');
  if (like === undefined) return { of, ...(first ? { first } : {}) };
  const keysOf = (set: SelectionSetNode): string[] =>
    set.selections.flatMap((s) => {
      if (s.kind === Kind.FIELD) return [s.alias?.value ?? s.name.value];
      if (s.kind === Kind.INLINE_FRAGMENT) return keysOf(s.selectionSet);
      const inner = fragments.get(s.name.value);
      return inner ? keysOf(inner.selectionSet) : [];
    });
  const fragment = fragments.get(like);
  if (!fragment) throw new Error(`graphql/rest: @copy names the unknown fragment ${like}`);
  return { of, keys: [...new Set(keysOf(fragment.selectionSet))], ...(first ? { first } : {}) };
}

/**
 * One plan per key: a field selected twice (by two fragments, or by a fragment and a conditional one) gets its
 * directives and its children's plans joined, so each is applied once.
 */
function merge(plans: OutputPlan[]): OutputPlan[] {
  const byKey = new Map<string, OutputPlan>();
  for (const plan of plans) {
    const seen = byKey.get(plan.key);
    if (!seen) byKey.set(plan.key, plan);
    else
      byKey.set(plan.key, {
        ...seen,
        enumType: seen.enumType ?? plan.enumType,
        number: seen.number || plan.number,
        date: seen.date || plan.date,
        boolean: seen.boolean || plan.boolean,
        twoDecimals: seen.twoDecimals || plan.twoDecimals,
        omitIfNull: seen.omitIfNull || plan.omitIfNull,
        unwrap: seen.unwrap || plan.unwrap,
        spread: seen.spread || plan.spread,
        unprefix: seen.unprefix || plan.unprefix,
        copy: seen.copy ?? plan.copy,
        children: [...seen.children, ...plan.children],
      });
  }
  for (const plan of byKey.values()) {
    if (plan.copy && !byKey.has(plan.copy.of)) throw new Error(`graphql/rest: @copy of ${plan.copy.of}, which is not a sibling of ${plan.key}`);
  }
  return [...byKey.values()].map((plan) => ({ ...plan, children: merge(plan.children) }));
}

/** Keeps only the branches that change something, so responses without enums or directives are not walked. */
function prune(plans: OutputPlan[]): OutputPlan[] {
  return plans.flatMap((p) => {
    // An unprefix plan's children stay whole: its objects are walked for their keys' prefixes.
    const children = p.unwrap || p.spread || p.unprefix ? p.children : prune(p.children);
    const needed = p.enumType || p.number || p.date || p.boolean || p.twoDecimals || p.omitIfNull || p.unwrap || p.spread || p.unprefix || p.copy || children.length;
    return needed ? [{ ...p, children }] : [];
  });
}

export function compileOperations(schema: GraphQLSchema, dir: string, names: readonly string[]): Map<string, CompiledOperation> {
  const files = readGraphqlFiles(dir, names);
  const all = files.flatMap((f) => {
    try {
      return parse(f.source, { noLocation: true }).definitions;
    } catch (err) {
      throw new Error(`graphql/rest/${f.name}: ${(err as Error).message}`);
    }
  });
  const fragments = all.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  const fragmentMap = new Map(fragments.map((f) => [f.name.value, f]));
  const operations = all.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const compiled = new Map<string, CompiledOperation>();
  for (const asWritten of operations) {
    const name = asWritten.name?.value;
    if (!name) throw new Error('graphql/rest: every operation needs a name');
    if (compiled.has(name)) throw new Error(`graphql/rest: operation ${name} is defined twice`);
    if (asWritten.operation === 'subscription') throw new Error(`graphql/rest: ${name} is a subscription`);
    const rootType = asWritten.operation === 'query' ? schema.getQueryType() : schema.getMutationType();
    // Branches of an abstract field that clash get keys of their own (separateBranches).
    const written: OperationDefinitionNode =
      rootType && hasClashingBranches(schema, rootType, asWritten.selectionSet, fragmentMap)
        ? { ...asWritten, selectionSet: separateBranches(schema, rootType, asWritten.selectionSet, fragmentMap) }
        : asWritten;
    // Each operation carries only the fragments it uses (transitively), so validation sees no unused fragment.
    const used = new Set<string>();
    const collect = (set: SelectionSetNode) => {
      for (const s of set.selections) {
        if (s.kind === Kind.FRAGMENT_SPREAD && !used.has(s.name.value)) {
          used.add(s.name.value);
          const f = fragmentMap.get(s.name.value);
          if (f) collect(f.selectionSet);
        } else if (s.kind !== Kind.FRAGMENT_SPREAD && s.selectionSet) collect(s.selectionSet);
      }
    };
    collect(written.selectionSet);
    // A variable declared ID that stands where a global-ID scalar is expected takes that scalar, as on /api/graphql.
    const document = unifyIdVariables(schema, { kind: Kind.DOCUMENT, definitions: [written, ...fragments.filter((f) => used.has(f.name.value))] });
    const op = document.definitions[0] as OperationDefinitionNode;
    const root = op.operation === 'query' ? schema.getQueryType() : schema.getMutationType();
    if (!root) throw new Error(`graphql/rest: ${name}: schema has no ${op.operation} type`);
    const relay = relayInputVariables(schema, op);
    let jit: CompiledQuery | undefined;
    const jitCompiled = () => {
      if (jit) return jit;
      // Validated here, on the operation's first use, not at start (about a tenth of the start-up time for all of
      // them); test/foundation/contract.test.ts compiles every operation, so an invalid document fails there.
      const errors = validate(schema, document);
      if (errors.length) throw new Error(`graphql/rest: ${name}: ${errors.map((e) => e.message).join('; ')}`);
      // A copy of its own: graphql-jit marks the field nodes it compiles with their @include/@skip conditions, and
      // the fragments' nodes are shared by every operation that spreads them.
      const result = compileQuery(schema, structuredClone({ ...document, definitions: [relay.op, ...document.definitions.slice(1)] }), name);
      if (!isCompiledQuery(result)) throw new Error(`graphql/rest: ${name}: ${result.errors?.map((e) => e.message).join('; ')}`);
      return (jit = result);
    };
    const variables: VariablePlan[] = (op.variableDefinitions ?? []).map((v) => ({
      name: v.variable.name.value,
      param: paramOf(v),
      type: typeFromAST(schema, v.type as never) as GraphQLInputType,
      hasDefault: v.defaultValue !== undefined,
      clearable: v.directives?.some((d) => d.name.value === 'clearable') ?? false,
    }));
    const output = prune(merge(planSelection(schema, root, op.selectionSet, fragmentMap)));
    markBranched(output);
    compiled.set(name, {
      name,
      document,
      run: (context, variables) => jitCompiled().query(undefined, context, relay.build(variables)),
      compiled: jitCompiled,
      kind: asWritten.operation,
      rootFields: op.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.alias?.value ?? s.name.value] : [])),
      variables,
      output,
      restNames: argumentParams(op.selectionSet, fragmentMap, new Map(variables.map((v) => [v.name, v.param]))),
    });
  }
  return compiled;
}
