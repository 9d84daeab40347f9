/**
 * Every `assert.throws` / `assert.rejects` in the test suites names the error it expects: a second
 * argument that is an error class, a validation object (`{ code, message }`), a RegExp or a validation
 * function. Without one, the check passes on any error at all, a typo in the test included, and so cannot
 * fail for the reason it names. A string second argument is no matcher either: node:assert reads it as
 * the failure message. The scan covers every test file of every package (packages/NAME/test/**), parsed
 * with the TypeScript parser so multi-line calls count too.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../../../../..');
const PACKAGES = join(ROOT, 'packages');

/**
 * Files that still hold checks without a matcher (the operator modules' tests, logosctl's), with how
 * many: to be emptied as those tests are fixed. A file fixed (fewer than listed) must leave the list.
 */
const ALLOWED: Readonly<Record<string, number>> = {
  'packages/delivery-module/test/unit/enr.test.ts': 2,
  'packages/delivery-module/test/unit/message.test.ts': 1,
  'packages/logosctl/test/e2e/logosctl.test.ts': 1,
  'packages/storage-module/test/unit/config.test.ts': 2,
};

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules') out.push(...sources(p));
    } else if (/\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function testSources(): string[] {
  return readdirSync(PACKAGES)
    .map((pkg) => join(PACKAGES, pkg, 'test'))
    .filter((dir) => existsSync(dir) && statSync(dir).isDirectory())
    .flatMap(sources);
}

/** Why a second argument matches any error (or is no matcher), or undefined when it names one. */
function anyErrorReason(arg: ts.Expression | undefined): string | undefined {
  if (arg === undefined) return 'no error matcher';
  if (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg) || ts.isTemplateExpression(arg))
    return 'a string (a failure message, not a matcher)';
  if (ts.isIdentifier(arg) && (arg.text === 'Error' || arg.text === 'undefined')) return `\`${arg.text}\``;
  if (ts.isObjectLiteralExpression(arg) && arg.properties.length === 0) return 'an empty object';
  if (ts.isRegularExpressionLiteral(arg) && /^\/(\.[*+]?)?\/[a-z]*$/.test(arg.text))
    return 'a match-all RegExp';
  return undefined;
}

/** The `assert.throws` / `assert.rejects` calls of a source text that match any error. */
function unnamedErrorChecks(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression) &&
      node.expression.expression.text === 'assert' &&
      (node.expression.name.text === 'throws' || node.expression.name.text === 'rejects')
    ) {
      const why = anyErrorReason(node.arguments[1]);
      if (why !== undefined) {
        const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
        out.push(`${fileName}:${line} assert.${node.expression.name.text} with ${why}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

test('the scan finds a check without a matcher, in any of its forms, and passes one that names its error', () => {
  const src = [
    'assert.throws(() => f());',
    'await assert.rejects(p);',
    'await assert.rejects(\n  async () => {\n    await g();\n  },\n);',
    "assert.throws(() => f(), 'it throws');",
    'assert.throws(() => f(), Error);',
    'assert.throws(() => f(), {});',
    'assert.throws(() => f(), /.*/);',
    "assert.throws(() => f(), { code: 'DECODE_ERROR' });",
    'assert.throws(() => f(), DecodeError);',
    'await assert.rejects(p, /refused/);',
    'assert.throws(() => f(), (e) => e instanceof TypeError);',
  ].join('\n');
  assert.deepEqual(unnamedErrorChecks('x.ts', src), [
    'x.ts:1 assert.throws with no error matcher',
    'x.ts:2 assert.rejects with no error matcher',
    'x.ts:3 assert.rejects with no error matcher',
    'x.ts:8 assert.throws with a string (a failure message, not a matcher)',
    'x.ts:9 assert.throws with `Error`',
    'x.ts:10 assert.throws with an empty object',
    'x.ts:11 assert.throws with a match-all RegExp',
  ]);
});

test('every assert.throws / assert.rejects in the test suites names the error it expects', () => {
  const files = testSources();
  assert.ok(files.length > 100, `only ${files.length} test sources found under ${PACKAGES}`);
  const byFile = new Map<string, string[]>();
  for (const f of files) {
    const found = unnamedErrorChecks(relative(ROOT, f), readFileSync(f, 'utf8'));
    if (found.length > 0) byFile.set(relative(ROOT, f), found);
  }
  const bad: string[] = [];
  for (const [file, found] of byFile) {
    const allowed = ALLOWED[file] ?? 0;
    if (found.length > allowed) bad.push(...found);
  }
  for (const [file, allowed] of Object.entries(ALLOWED)) {
    const left = byFile.get(file)?.length ?? 0;
    if (left < allowed)
      bad.push(`${file}: ${left} left of the ${allowed} allowed, lower its allow-list entry`);
  }
  assert.deepEqual(bad, []);
});
