// What a %%gcypher cell's editor gets: Cypher highlighting (with classHighlighter's tok-* classes), lint
// marks from the kernel's GestaltDB parser, and hover text for labels and relationship types.
// Text from the kernel (messages, schema names) reaches the page only through textContent.
import { HighlightStyle, LanguageSupport, syntaxHighlighting, syntaxTree } from '@codemirror/language';
import { linter } from '@codemirror/lint';
import { EditorView, hoverTooltip } from '@codemirror/view';
import { classHighlighter, tags } from '@lezer/highlight';

import { cypherLanguage } from './cypher';
import { ask } from './kernel';

export const LINT_DELAY_MS = 120;
// How long a check as one types (lint, hover) waits for the kernel: CodeMirror drops an answer to a text since edited
// (or a hover since left), so a late answer is never shown stale, and on a busy machine a slow one still arrives.
const CHECK_WAIT_MS = 10000;

// Labels and relationship types, property keys and $parameters told apart with JupyterLab's own editor
// colours (CSS variables, so light and dark themes both apply), beside the theme's keyword/string/... colours.
const cypherColours = HighlightStyle.define([
  { tag: tags.typeName, color: 'var(--jp-mirror-editor-variable-2-color)' },
  { tag: tags.propertyName, color: 'var(--jp-mirror-editor-property-color)' },
  { tag: tags.special(tags.variableName), color: 'var(--jp-mirror-editor-variable-3-color)' },
  { tag: tags.meta, color: 'var(--jp-mirror-editor-meta-color)' },
]);

const theme = EditorView.baseTheme({
  '.gestalt-hover': {
    padding: '3px 6px',
    maxWidth: '40em',
    whiteSpace: 'pre-wrap',
    color: 'var(--jp-content-font-color1, #222)',
    background: 'var(--jp-layout-color1, #fff)',
    border: '1px solid var(--jp-border-color1, #bbb)',
    fontFamily: 'var(--jp-ui-font-family, sans-serif)',
    fontSize: 'var(--jp-ui-font-size1, 13px)',
  },
  '.cm-tooltip-lint': {
    color: 'var(--jp-content-font-color1, #222)',
    background: 'var(--jp-layout-color1, #fff)',
  },
});

/**
 * @param {unknown} value
 * @param {number} length
 */
function clamp(value, length) {
  const number = Number(value);
  return Number.isFinite(number) ? Math.max(0, Math.min(Math.floor(number), length)) : 0;
}

/** @typedef {import('./kernel.js').KernelFor} KernelFor */
/** @typedef {import('@codemirror/lint').Diagnostic} Diagnostic */

/**
 * The CodeMirror lint source: asks the kernel, gives nothing without an idle kernel.
 * @param {KernelFor} kernelFor
 * @returns {import('@codemirror/lint').LintSource}
 */
export function lintSource(kernelFor) {
  return async (view) => {
    const kernel = kernelFor(view);
    const reply = await ask(kernel, { op: 'lint', source: view.state.doc.toString() }, { timeoutMs: CHECK_WAIT_MS });
    if (!reply || !Array.isArray(reply.marks)) return [];
    const length = view.state.doc.length;
    /** @type {Diagnostic[]} */
    const diagnostics = [];
    for (const mark of reply.marks) {
      const from = clamp(mark.start, length);
      const to = Math.max(clamp(mark.end, length), Math.min(from + 1, length));
      diagnostics.push({
        from,
        to,
        severity: mark.severity === 'error' ? 'error' : 'warning',
        message: String(mark.message),
        source: 'GestaltDB',
      });
    }
    const hooks = /** @type {import('./index.js').EditorWindow} */ (window).gestaltEditor;
    if (hooks) hooks.linted(diagnostics.length);
    return diagnostics;
  };
}

// Whether the name at `from` is inside a relationship's [...] (a type) or a node's (...) (a label).
/**
 * @param {import('@codemirror/state').Text} doc
 * @param {number} from
 */
function nameKind(doc, from) {
  const text = doc.sliceString(Math.max(0, from - 2000), from);
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const ch = text[i];
    if (ch === ')' || ch === ']') depth++;
    else if (ch === '(' || ch === '[') {
      if (depth === 0) return ch === '[' ? 'type' : 'label';
      depth--;
    }
  }
  return 'label';
}

/** @param {KernelFor} kernelFor */
export function hoverSource(kernelFor) {
  return hoverTooltip(async (view, pos, side) => {
    const node = syntaxTree(view.state).resolveInner(pos, side);
    if (node.name !== 'typeName') return null;
    const name = view.state.doc.sliceString(node.from, node.to).replace(/^`|`$/g, '');
    const kind = nameKind(view.state.doc, node.from);
    const reply = await ask(kernelFor(view), { op: 'hover', source: view.state.doc.toString(), name, kind }, { timeoutMs: CHECK_WAIT_MS });
    if (!reply || typeof reply.text !== 'string') return null;
    return {
      pos: node.from,
      end: node.to,
      above: true,
      create() {
        const dom = document.createElement('div');
        dom.className = 'gestalt-hover';
        dom.textContent = reply.text;
        return { dom };
      },
    };
  }, { hoverTime: 250 });
}

/** @param {KernelFor} kernelFor */
export function cypherSupport(kernelFor) {
  return new LanguageSupport(cypherLanguage, [
    syntaxHighlighting(classHighlighter),
    syntaxHighlighting(cypherColours),
    linter(lintSource(kernelFor), { delay: LINT_DELAY_MS }),
    hoverSource(kernelFor),
    theme,
  ]);
}
