/**
 * GitLab's CI expression language (`rules:if`, `only:variables`, `workflow:rules:if`): variables, string, regexp
 * and null literals, `==`, `!=`, `=~`, `!~`, `&&`, `||` and parentheses, parsed by precedence (shunting-yard) and
 * evaluated with Ruby's semantics: `&&`/`||` return an operand, and the result counts when it is "present"
 * (not nil, false, or a blank string).
 */
import { regexpLiteral } from './regexp.js';

/** GitLab's Lexer::MAX_TOKENS. */
const MAX_TOKENS = 100;

class ExpressionError extends Error {}

/** What an expression evaluates to: Ruby's String, nil, true/false, or a regexp. */
type Result = string | null | boolean | RegExp;

type Token =
  | { kind: 'value'; value: (variables: Record<string, string>) => Result }
  | { kind: 'operator'; op: Operator }
  | { kind: 'open' }
  | { kind: 'close' };

type Operator = '==' | '!=' | '=~' | '!~' | '&&' | '||';

/** Lower binds tighter, as in GitLab's lexemes (Ruby's precedence table). */
const PRECEDENCE: Readonly<Record<Operator, number>> = { '==': 10, '!=': 10, '=~': 10, '!~': 10, '&&': 11, '||': 12 };

const VARIABLE = /^\$(\w+)/;
const STRING = /^(?:"([^"]*)"|'([^']*)')/;
const OPERATOR = /^(==|=~|!=|!~|&&|\|\|)/;

/** The end of a `/…/flags` literal starting at 0 (a `/` not escaped by a backslash closes it), or -1. */
function patternLength(text: string): number {
  let i = 1;
  while (i < text.length) {
    if (text[i] === '\\' && text[i + 1] === '/') i += 2;
    else if (text[i] === '/') break;
    else i += 1;
  }
  if (i >= text.length || i === 1) return -1;
  let end = i + 1;
  while (end < text.length && 'ismU'.includes(text[end])) end++;
  return end;
}

function tokenize(statement: string): Token[] {
  const tokens: Token[] = [];
  let rest = statement;
  for (;;) {
    rest = rest.replace(/^\s+/, '');
    if (rest === '') return tokens;
    if (tokens.length >= MAX_TOKENS) throw new ExpressionError('Too many tokens!');
    let match: RegExpExecArray | null;
    let length: number;
    if (rest[0] === '(') {
      tokens.push({ kind: 'open' });
      length = 1;
    } else if (rest[0] === ')') {
      tokens.push({ kind: 'close' });
      length = 1;
    } else if ((match = VARIABLE.exec(rest))) {
      const name = match[1];
      tokens.push({ kind: 'value', value: (variables) => (Object.hasOwn(variables, name) ? variables[name] : null) });
      length = match[0].length;
    } else if ((match = STRING.exec(rest))) {
      const text = match[1] ?? match[2];
      tokens.push({ kind: 'value', value: () => text });
      length = match[0].length;
    } else if (rest[0] === '/' && (length = patternLength(rest)) > 0) {
      const regexp = regexpLiteral(rest.slice(0, length));
      if (!regexp) throw new ExpressionError('Invalid regular expression!');
      tokens.push({ kind: 'value', value: () => regexp });
    } else if (rest.startsWith('null')) {
      tokens.push({ kind: 'value', value: () => null });
      length = 4;
    } else if ((match = OPERATOR.exec(rest))) {
      tokens.push({ kind: 'operator', op: match[1] as Operator });
      length = match[0].length;
    } else {
      throw new ExpressionError('Unknown lexeme found!');
    }
    rest = rest.slice(length);
  }
}

/** Reverse Polish notation by the shunting-yard algorithm, left-associative. */
function toRpn(tokens: Token[]): Token[] {
  const output: Token[] = [];
  const operators: Token[] = [];
  const top = () => operators[operators.length - 1];
  for (const token of tokens) {
    if (token.kind === 'value') output.push(token);
    else if (token.kind === 'open') operators.push(token);
    else if (token.kind === 'operator') {
      for (let t = top(); t?.kind === 'operator' && PRECEDENCE[t.op] <= PRECEDENCE[token.op]; t = top()) output.push(operators.pop()!);
      operators.push(token);
    } else {
      for (let t = top(); t?.kind === 'operator'; t = top()) output.push(operators.pop()!);
      if (!top()) throw new ExpressionError('Unmatched parenthesis');
      operators.pop();
    }
  }
  return output.concat(operators.reverse());
}

type Evaluator = (variables: Record<string, string>) => Result;

/** Ruby's `present?`: nil, false and blank strings are absent. */
const present = (value: Result): boolean => value !== null && value !== false && !(typeof value === 'string' && value.trim() === '');

/** `=~`: a regexp, or a variable holding `/…/` text, against the left side as text; plain text is a substring test, as Ruby's `String#scan`. */
function matches(left: Result, right: Result): boolean {
  if (right === null || right === false) return false;
  const text = left === null ? '' : String(left);
  if (right instanceof RegExp) return right.test(text);
  if (right === true) return false;
  const pattern = regexpLiteral(right);
  return pattern ? pattern.test(text) : right.includes(text);
}

function operation(op: Operator, left: Evaluator, right: Evaluator): Evaluator {
  switch (op) {
    case '==':
      return (v) => same(left(v), right(v));
    case '!=':
      return (v) => !same(left(v), right(v));
    case '=~':
      return (v) => matches(left(v), right(v));
    case '!~':
      return (v) => !matches(left(v), right(v));
    case '&&':
      return (v) => {
        const l = left(v);
        return l === null || l === false ? l : right(v);
      };
    case '||':
      return (v) => {
        const l = left(v);
        return l === null || l === false ? right(v) : l;
      };
  }
}

function same(a: Result, b: Result): boolean {
  if (a instanceof RegExp || b instanceof RegExp) return a instanceof RegExp && b instanceof RegExp && a.source === b.source && a.flags === b.flags;
  return a === b;
}

function parse(statement: string): Evaluator {
  const tokens = tokenize(statement);
  if (tokens.length === 0) throw new ExpressionError('Empty statement');
  const stack: Evaluator[] = [];
  for (const token of toRpn(tokens)) {
    if (token.kind === 'value') stack.push(token.value);
    else if (token.kind === 'operator') {
      const right = stack.pop();
      const left = stack.pop();
      if (!left || !right) throw new ExpressionError('Invalid operand');
      stack.push(operation(token.op, left, right));
    } else throw new ExpressionError('Unprocessable token found in parse tree');
  }
  if (stack.length !== 1) throw new ExpressionError(stack.length > 1 ? 'Unreachable nodes in parse tree' : 'Empty parse tree');
  return stack[0];
}

/** Whether GitLab accepts the statement (`rules:if` validation: "invalid expression syntax" otherwise). */
export function isValidExpression(statement: unknown): boolean {
  if (typeof statement !== 'string') return false;
  try {
    parse(statement)({});
    return true;
  } catch (error) {
    if (error instanceof ExpressionError) return false;
    throw error;
  }
}

/** GitLab's CI expression language: `$VAR`, `$VAR == "x"`, `!=`, `=~ /re/`, `!~`, `&&`, `||`, parentheses, null, string/regexp literals. */
export function evaluateExpression(expression: string, variables: Record<string, string>): boolean {
  try {
    return present(parse(expression)(variables));
  } catch (error) {
    if (error instanceof ExpressionError) return false;
    throw error;
  }
}
