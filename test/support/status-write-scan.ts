import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Finds status writes in TypeScript source and says which are outside a function named
 * `move*` (the one place per aggregate a status may change, checked against its transition
 * table). A write is:
 * - a property assignment `x.status = ...` (an entity or a row in memory);
 * - a new entity given its status at creation: `em.create(Onramp, { status })` or
 *   `Object.assign(new Onramp(), { status })`;
 * - in SQL, `status = ...` in the SET list of an UPDATE or an upsert, or a SQL fragment that
 *   starts with `status = ...` (a SET list composed into a statement elsewhere);
 * - in SQL, an INSERT whose VALUES give the status column a literal;
 * - a call of the generic SQL builders of src/domain/transitions.ts (`sqlMove`).
 * Reads are not writes: comparisons (`===`, `where status = ...`, `and d.status = ...`,
 * `case when`), filters (`{ status: 'ACTIVE' }` in a find), views and HTTP status codes.
 */
export interface StatusWrite {
  file: string;
  line: number;
  what: string;
}

/** Entities whose rows have a status (their creation data must not carry one). */
const STATUS_ENTITIES = new Set([
  'Deposit',
  'Payout',
  'Withdrawal',
  'Onramp',
  'Merchant',
  'WebhookDelivery',
]);

/** Receivers whose `status` is an HTTP status code, not an aggregate's. */
const HTTP_RECEIVERS = new Set(['head', 'reply', 'response', 'res']);

/** The generic builders whose result writes a status. */
const STATUS_SQL_BUILDERS = new Set(['sqlMove']);

const isMoveName = (name: string): boolean => /^move($|[A-Z])/.test(name);

function nameOf(node: ts.Node): string | null {
  if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) {
    return node.name && !ts.isComputedPropertyName(node.name) ? node.name.getText() : null;
  }
  if (ts.isFunctionExpression(node) || ts.isArrowFunction(node)) {
    if (ts.isFunctionExpression(node) && node.name) return node.name.text;
    const parent = node.parent;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
      return parent.name.getText();
    }
  }
  return null;
}

/** True when some enclosing function is named `move*`. */
function insideMove(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    const name = nameOf(at);
    if (name !== null && isMoveName(name)) return true;
  }
  return false;
}

/** A literal's text, substitutions as `${}`, with where each piece starts in the file. */
function sqlText(node: ts.Node): { text: string; starts: Array<[number, number]> } | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
    return { text: node.text, starts: [[0, node.getStart() + 1]] };
  }
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    const starts: Array<[number, number]> = [[0, node.head.getStart() + 1]];
    for (const span of node.templateSpans) {
      text += '${}';
      starts.push([text.length, span.literal.getStart() + 1]);
      text += span.literal.text;
    }
    return { text, starts };
  }
  return null;
}

/** Offset in `text` just past the clause starting at `from`: at depth 0, up to a keyword. */
function clauseEnd(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i += 1) {
    const c = text[i];
    if (c === '(') depth += 1;
    else if (c === ')') {
      if (depth === 0) return i;
      depth -= 1;
    } else if (c === ';' && depth === 0) return i;
    else if (depth === 0 && /\b(where|from|returning)\b/iy.test(text.slice(i, i + 9))) {
      if (i === 0 || /\W/.test(text[i - 1])) return i;
    }
  }
  return text.length;
}

/** The items of a comma-separated list at depth 0, each with its offset. */
function items(text: string, from: number, to: number): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  let depth = 0;
  let start = from;
  for (let i = from; i <= to; i += 1) {
    const c = text[i];
    if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    if (i === to || (c === ',' && depth === 0)) {
      out.push([text.slice(start, i), start]);
      start = i + 1;
    }
  }
  return out;
}

const ASSIGNS_STATUS = /^\s*status\s*=(?!=)/i;

/** Offsets in a SQL text where a status is written. */
function sqlStatusWrites(text: string): Array<{ at: number; what: string }> {
  const found: Array<{ at: number; what: string }> = [];
  if (ASSIGNS_STATUS.test(text)) found.push({ at: 0, what: 'SQL fragment sets status' });
  for (const set of text.matchAll(/\bset\b/gi)) {
    const from = set.index + set[0].length;
    for (const [item, at] of items(text, from, clauseEnd(text, from))) {
      if (ASSIGNS_STATUS.test(item)) {
        found.push({ at: at + item.search(/\S/), what: 'SQL SET status' });
      }
    }
  }
  const insert = /\binsert\s+into\s+\w+(?:\s+as\s+\w+)?\s*\(([^)]*)\)\s*values\s*\(/gi;
  for (const match of text.matchAll(insert)) {
    const columns = match[1].split(',').map((c) => c.trim().toLowerCase());
    const index = columns.indexOf('status');
    if (index < 0) continue;
    const open = match.index + match[0].length;
    const values = items(text, open, clauseEnd(text, open));
    const value = values[index]?.[0].trim() ?? '';
    if (/^'[^']*'$/.test(value)) found.push({ at: match.index, what: 'SQL INSERT of a status' });
  }
  return found;
}

function lineAt(source: ts.SourceFile, text: string, starts: Array<[number, number]>, at: number) {
  const [offset, pos] = [...starts].reverse().find(([o]) => o <= at)!;
  const base = source.getLineAndCharacterOfPosition(pos).line + 1;
  return base + (text.slice(offset, at).match(/\n/g)?.length ?? 0);
}

/**
 * An object literal that gives a status: any value but one copied from a row read (`status:
 * row.status`, how a store turns a row it read into an entity). An enum member
 * (`OnrampStatus.ACTIVE`) is a status given, not copied.
 */
function statusProperty(node: ts.Expression | undefined): boolean {
  if (node === undefined || !ts.isObjectLiteralExpression(node)) return false;
  return node.properties.some((p) => {
    if (ts.isShorthandPropertyAssignment(p)) return p.name.text === 'status';
    if (!ts.isPropertyAssignment(p) || p.name.getText() !== 'status') return false;
    const value = p.initializer;
    const copied =
      ts.isPropertyAccessExpression(value) && !/Status$/.test(value.expression.getText());
    return !copied;
  });
}

/** Status writes in one file's source, outside `move*` functions. */
export function statusWritesIn(file: string, code: string): StatusWrite[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const found: StatusWrite[] = [];
  const flag = (node: ts.Node, what: string, line?: number) => {
    if (insideMove(node)) return;
    line ??= source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    found.push({ file, line, what });
  };
  const visit = (node: ts.Node): void => {
    if (
      ts.isBinaryExpression(node) &&
      [
        ts.SyntaxKind.EqualsToken,
        ts.SyntaxKind.QuestionQuestionEqualsToken,
        ts.SyntaxKind.BarBarEqualsToken,
      ].includes(node.operatorToken.kind)
    ) {
      const left = node.left;
      const target = ts.isPropertyAccessExpression(left)
        ? { name: left.name.text, receiver: left.expression }
        : ts.isElementAccessExpression(left) && ts.isStringLiteral(left.argumentExpression)
          ? { name: left.argumentExpression.text, receiver: left.expression }
          : null;
      if (target?.name === 'status') {
        const receiver = target.receiver.getText().split('.').pop()!;
        if (!HTTP_RECEIVERS.has(receiver)) flag(node, `${left.getText()} assigned`);
      }
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const [first, second] = node.arguments;
      if (
        ts.isPropertyAccessExpression(callee) &&
        callee.name.text === 'create' &&
        first &&
        ts.isIdentifier(first) &&
        STATUS_ENTITIES.has(first.text) &&
        statusProperty(second)
      ) {
        flag(node, `${first.text} created with a status`);
      }
      if (
        callee.getText() === 'Object.assign' &&
        first &&
        ts.isNewExpression(first) &&
        STATUS_ENTITIES.has(first.expression.getText()) &&
        node.arguments.slice(1).some(statusProperty)
      ) {
        flag(node, `${first.expression.getText()} created with a status`);
      }
      if (ts.isIdentifier(callee) && STATUS_SQL_BUILDERS.has(callee.text)) {
        flag(node, `${callee.text}() called`);
      }
    }
    const sql = sqlText(node);
    if (sql) {
      for (const write of sqlStatusWrites(sql.text)) {
        flag(node, write.what, lineAt(source, sql.text, sql.starts, write.at));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Folders of src not scanned, and why. */
export const NOT_SCANNED: Record<string, string> = {
  'src/db/migrations': 'the schema history: triggers and backfills written once',
  'src/domain': 'pure rules: the transition tables and their SQL builders, nothing persisted',
  'src/reconciliation': 'read-only cross-checks (check:layout refuses any write there)',
};

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every status write under `root`/src outside a `move*` function, as `file:line what`. */
export function statusWritesOutsideMoves(root: string): string[] {
  return tsFiles(join(root, 'src'))
    .map((path) => relative(root, path))
    .filter((file) => !Object.keys(NOT_SCANNED).some((dir) => file.startsWith(`${dir}/`)))
    .flatMap((file) => statusWritesIn(file, readFileSync(join(root, file), 'utf8')))
    .map((w) => `${w.file}:${w.line} ${w.what}`);
}
