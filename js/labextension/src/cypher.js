// A small Cypher mode (CodeMirror 6 StreamLanguage) for %%gcypher cells, with the magic line kept as "meta".
//
// Token names are @lezer/highlight tag names, so JupyterLab's theme colours them and classHighlighter
// adds tok-keyword, tok-string, tok-number, tok-comment, tok-typeName (labels, relationship types),
// tok-propertyName, tok-variableName, ... A %gcypher line magic: the magic and its options are meta,
// the rest of the line is Cypher.
import { StreamLanguage } from '@codemirror/language';
import { tags } from '@lezer/highlight';

export const KEYWORDS = new Set(
  ('MATCH OPTIONAL WHERE RETURN WITH UNWIND AS ORDER BY SKIP LIMIT ASC ASCENDING DESC DESCENDING DISTINCT ' +
    'CREATE MERGE SET DELETE DETACH REMOVE ON CALL YIELD UNION ALL AND OR XOR NOT IN IS STARTS ENDS ' +
    'CONTAINS CASE WHEN THEN ELSE END EXISTS FOREACH SHORTEST CONSTRAINT INDEX FOR REQUIRE UNIQUE DROP ANY').split(' ')
);
const ATOMS = new Set(['TRUE', 'FALSE', 'NULL']);
// Options of %gcypher that take a value (the rest of the line after them is Cypher).
const VALUE_OPTIONS = new Set(['-o', '--out', '--limit', '--timeout', '--memory-limit', '-P', '--params', '--alias',
  '--renderer', '--display-limit', '--max-nodes', '--max-edges', '--save', '--with']);

/** @typedef {import('@codemirror/language').StringStream} StringStream */
/**
 * The tokenizer's state at the end of a line.
 * @typedef {{line: number, magic: string | null, queryAt: number, inside: string | null, brackets: string[], afterColon: boolean, afterDot: boolean, lastWasType: boolean}} State
 */

/**
 * Where the query starts in a `%gcypher [options] QUERY` line (its length if there is none).
 * @param {string} line
 * @returns {number}
 */
export function lineQueryStart(line) {
  let i = line.indexOf('gcypher') + 'gcypher'.length;
  let expectValue = false;
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i])) i++;
    if (i >= line.length) break;
    const start = i;
    i = tokenEnd(line, i);
    const token = line.slice(start, i);
    if (expectValue) { expectValue = false; continue; }
    if (token.startsWith('-')) {
      const name = token.split('=')[0];
      expectValue = VALUE_OPTIONS.has(name) && !token.includes('=');
      continue;
    }
    return start;
  }
  return line.length;
}

/**
 * @param {string} text
 * @param {number} i
 * @returns {number}
 */
function tokenEnd(text, i) {
  /** @type {Record<string, string>} */
  const closers = { '(': ')', '[': ']', '{': '}' };
  /** @type {string[]} */
  const stack = [];
  /** @type {string | null} */
  let quote = null;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (quote) { if (ch === '\\') i++; else if (ch === quote) quote = null; continue; }
    if (ch === '"' || ch === "'") quote = ch;
    else if (closers[ch]) stack.push(closers[ch]);
    else if (stack.length && ch === stack[stack.length - 1]) stack.pop();
    else if (!stack.length && /\s/.test(ch)) break;
  }
  return i;
}

/** @returns {State} */
function startState() {
  return { line: 0, magic: null, queryAt: 0, inside: null, brackets: [], afterColon: false, afterDot: false, lastWasType: false };
}

/**
 * @param {State} s
 * @returns {State}
 */
function copyState(s) {
  return { ...s, brackets: s.brackets.slice() };
}

/**
 * @param {StringStream} stream
 * @param {State} state
 * @param {string} quote
 * @param {string} style
 * @returns {string}
 */
function quoted(stream, state, quote, style) {
  let escaped = false;
  let ch;
  while ((ch = stream.next()) != null) {
    if (ch === quote && !escaped) { state.inside = null; return style; }
    escaped = !escaped && ch === '\\' && quote !== '`';
  }
  state.inside = quote; // continues on the next line
  return style;
}

/** @param {State} state */
function nameStyle(state) {
  if (state.afterColon) return 'typeName';
  if (state.afterDot) return 'propertyName';
  return 'variableName';
}

/**
 * @param {StringStream} stream
 * @param {State} state
 * @returns {string}
 */
function word(stream, state) {
  const text = stream.current();
  const upper = text.toUpperCase();
  if (state.afterColon || state.afterDot) return nameStyle(state);
  const top = state.brackets[state.brackets.length - 1];
  if (top === '{' && stream.match(/^\s*:/, false)) return 'propertyName'; // a map key
  if (ATOMS.has(upper)) return 'atom';
  if (stream.match(/^\s*\(/, false)) return KEYWORDS.has(upper) && !['ALL', 'ANY', 'EXISTS'].includes(upper) ? 'keyword' : 'function';
  if (KEYWORDS.has(upper)) return 'keyword';
  return 'variableName';
}

/**
 * @param {StringStream} stream
 * @param {State} state
 * @returns {string | null}
 */
function cypherToken(stream, state) {
  if (state.inside === '/*') {
    if (stream.skipTo('*/')) { stream.match('*/'); state.inside = null; } else stream.skipToEnd();
    return 'comment';
  }
  if (state.inside) {
    const quote = state.inside;
    return quoted(stream, state, quote, quote === '`' ? nameStyle(state) : 'string');
  }
  if (stream.eatSpace()) return null;
  const wasColon = state.afterColon;
  const wasDot = state.afterDot;
  state.afterColon = false;
  state.afterDot = false;
  if (stream.match('//')) { stream.skipToEnd(); return 'comment'; }
  if (stream.match('/*')) { state.inside = '/*'; return cypherToken(stream, state); }
  const ch = /** @type {string} */ (stream.next()); // not at the end: eatSpace() and the matches above left a character
  if (ch === '"' || ch === "'") return quoted(stream, state, ch, 'string');
  if (ch === '`') {
    state.afterColon = wasColon; state.afterDot = wasDot;
    const style = quoted(stream, state, '`', nameStyle(state));
    state.afterColon = false; state.afterDot = false;
    return style;
  }
  if (ch === '$') { stream.match(/^(\w+|`[^`]*`)/); return 'param'; }
  if (/\d/.test(ch)) { stream.match(/^(\d*\.\d+|\d*)([eE][-+]?\d+)?/); return 'number'; }
  if (/[\p{L}_]/u.test(ch)) {
    stream.match(/^[\p{L}\p{N}_]*/u);
    state.afterColon = wasColon; state.afterDot = wasDot;
    const style = word(stream, state);
    state.afterColon = false; state.afterDot = false;
    return style;
  }
  const top = state.brackets[state.brackets.length - 1];
  if (ch === ':') { state.afterColon = top !== '{'; return 'punctuation'; }
  if ('|&!'.includes(ch) && (wasColon || state.lastWasType)) { state.afterColon = true; return 'operator'; }
  if (ch === '.') { state.afterDot = true; return 'punctuation'; }
  if ('([{'.includes(ch)) { state.brackets.push(ch); return 'bracket'; }
  if (')]}'.includes(ch)) { state.brackets.pop(); return 'bracket'; }
  if (/[=<>+\-*/%^]/.test(ch)) { stream.match(/^[=<>\-]*/); return 'operator'; }
  return 'punctuation';
}

/**
 * @param {StringStream} stream
 * @param {State} state
 * @returns {string | null}
 */
function firstLineOrCypher(stream, state) {
  if (stream.sol() && state.line === 0 && stream.pos === 0) {
    const text = stream.string;
    const found = /^(%%?)gcypher(?=\s|$)/.exec(text);
    state.magic = found ? found[1] : '';
    state.queryAt = found && found[1] === '%' ? lineQueryStart(text) : text.length;
  }
  if (state.line === 0) {
    if (stream.pos < state.queryAt) {
      stream.pos = state.queryAt;
      return 'meta';
    }
    if (state.magic === '%%' || !state.magic) { stream.skipToEnd(); return 'meta'; }
  }
  return cypherToken(stream, state);
}

/**
 * @param {StringStream} stream
 * @param {State} state
 * @returns {string | null}
 */
function token(stream, state) {
  const style = firstLineOrCypher(stream, state);
  if (style !== null) state.lastWasType = style === 'typeName';
  if (stream.eol()) state.line += 1;
  return style;
}

export const cypherLanguage = StreamLanguage.define({
  name: 'gcypher',
  startState,
  copyState,
  token,
  blankLine(/** @type {State} */ state) { state.line += 1; },
  indent() { return null; },
  tokenTable: {
    param: tags.special(tags.variableName),
    function: tags.function(tags.variableName),
    bracket: tags.bracket,
  },
  languageData: { commentTokens: { line: '//', block: { open: '/*', close: '*/' } } },
});
