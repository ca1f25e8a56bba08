/**
 * GitLab's CI/CD expressions (`rules:if`, `only:variables`, `workflow:rules:if`): variables (`$VAR`, `${VAR}`),
 * string literals, `/regex/flags`, `null`, the comparisons `==`, `!=`, `=~`, `!~`, and `&&` (binding tighter) and
 * `||`, with parentheses. A variable alone is true when it is set and not empty. An expression that does not parse
 * is an error (thrown as ExpressionError), which the configuration reports.
 */

export class ExpressionError extends Error {}

type Token =
  | { kind: 'variable'; name: string }
  | { kind: 'string'; value: string }
  | { kind: 'regex'; source: string; flags: string }
  | { kind: 'null' }
  | { kind: 'op'; op: '==' | '!=' | '=~' | '!~' | '&&' | '||' | '(' | ')' };

/** Longer than this, an expression is refused rather than evaluated. */
const MAX_EXPRESSION_LENGTH = 4096;

function tokenize(text: string): Token[] {
  if (text.length > MAX_EXPRESSION_LENGTH) throw new ExpressionError('expression is too long');
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const two = text.slice(i, i + 2);
    if (['==', '!=', '=~', '!~', '&&', '||'].includes(two)) {
      tokens.push({ kind: 'op', op: two as '==' });
      i += 2;
      continue;
    }
    if (c === '(' || c === ')') {
      tokens.push({ kind: 'op', op: c });
      i++;
      continue;
    }
    if (c === '$') {
      const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(text.slice(i));
      const plain = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(i));
      const match = braced ?? plain;
      if (!match) throw new ExpressionError(`invalid variable at ${i}`);
      tokens.push({ kind: 'variable', name: match[1] });
      i += match[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw new ExpressionError('unterminated string');
      tokens.push({ kind: 'string', value: text.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (c === '/') {
      let j = i + 1;
      while (j < text.length && text[j] !== '/') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw new ExpressionError('unterminated regular expression');
      const flags = /^[a-z]*/.exec(text.slice(j + 1))![0];
      tokens.push({ kind: 'regex', source: text.slice(i + 1, j), flags });
      i = j + 1 + flags.length;
      continue;
    }
    if (text.startsWith('null', i) && !/[A-Za-z0-9_]/.test(text[i + 4] ?? '')) {
      tokens.push({ kind: 'null' });
      i += 4;
      continue;
    }
    throw new ExpressionError(`unexpected character ${JSON.stringify(c)} at ${i}`);
  }
  return tokens;
}

type Value = string | null | RegExp;

/** A pattern as GitLab's RE2 would read it; flags beyond i, m and s are dropped. */
function regex(source: string, flags: string): RegExp {
  try {
    return new RegExp(source, [...new Set(flags.replace(/[^ims]/g, ''))].join(''));
  } catch {
    throw new ExpressionError(`invalid regular expression /${source}/`);
  }
}

export function evaluateExpression(expression: string, variables: Record<string, string>): boolean {
  const tokens = tokenize(expression);
  let pos = 0;
  const peek = () => tokens[pos];
  const isOp = (op: string) => {
    const token = peek();
    return token?.kind === 'op' && token.op === op;
  };
  const operand = (): Value | boolean => {
    const token = tokens[pos++];
    if (!token) throw new ExpressionError('unexpected end of expression');
    switch (token.kind) {
      case 'variable':
        return Object.prototype.hasOwnProperty.call(variables, token.name) ? variables[token.name] : null;
      case 'string':
        return token.value;
      case 'null':
        return null;
      case 'regex':
        return regex(token.source, token.flags);
      case 'op':
        if (token.op === '(') {
          const inner = or();
          if (!isOp(')')) throw new ExpressionError('missing )');
          pos++;
          return inner;
        }
        throw new ExpressionError(`unexpected ${token.op}`);
    }
  };
  const truthy = (v: Value | boolean) => (typeof v === 'boolean' ? v : typeof v === 'string' ? v.length > 0 : v !== null);
  const comparison = (): boolean => {
    const left = operand();
    const token = peek();
    if (token?.kind !== 'op' || !['==', '!=', '=~', '!~'].includes(token.op)) return truthy(left);
    pos++;
    const right = operand();
    const text = (v: Value | boolean) => (v instanceof RegExp ? v.source : typeof v === 'boolean' ? String(v) : v);
    if (token.op === '==' || token.op === '!=') {
      const equal = text(left) === text(right);
      return token.op === '==' ? equal : !equal;
    }
    // A variable holding a pattern may stand on the right of =~ (GitLab 15.0+).
    const pattern = right instanceof RegExp ? right : typeof right === 'string' && /^\/.*\/[a-z]*$/s.test(right) ? regex(right.slice(1, right.lastIndexOf('/')), right.slice(right.lastIndexOf('/') + 1)) : null;
    if (!pattern) throw new ExpressionError('the right side of =~ must be a regular expression');
    const subject = text(left);
    const matched = typeof subject === 'string' && pattern.test(subject);
    return token.op === '=~' ? matched : !matched;
  };
  const and = (): boolean => {
    let value = comparison();
    while (isOp('&&')) {
      pos++;
      const right = comparison();
      value = value && right;
    }
    return value;
  };
  const or = (): boolean => {
    let value = and();
    while (isOp('||')) {
      pos++;
      const right = and();
      value = value || right;
    }
    return value;
  };
  const result = or();
  if (pos !== tokens.length) throw new ExpressionError('unexpected input after the expression');
  return result;
}
