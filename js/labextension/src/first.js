// Cypher first in a %%gcypher cell, beside any other extension that sets an editor's language.
//
// The cell's mime type (./index.js) gives JupyterLab's language compartment our language, but another
// extension can put a language into every editor itself: jupysql-plugin adds `python()` (or `sql()` in a
// %%sql cell) to each editor through the editor extension registry, and CodeMirror's `language` facet takes
// the first language it is given. So every editor also gets this small extension: a compartment that holds
// our Cypher support, its language at the highest precedence, while the text is a %%gcypher cell (decided
// from the text itself on every change, whatever the cell's mime type is or becomes) and nothing otherwise.
// Any other cell is left to JupyterLab and the other extensions (Python stays Python, %%sql stays SQL).
import { Compartment, EditorState, Prec } from '@codemirror/state';

const CELL_MAGIC = /^%%gcypher(?=\s|$)/;
const LINE_MAGIC = /^%gcypher(?=\s|$)/;

/** Whether the editor text is Cypher: a %%gcypher cell, or a one-line %gcypher cell (a doc or a string). */
/** @param {string | import('@codemirror/state').Text} doc */
export function isCypherText(doc) {
  const text = typeof doc === 'string' ? doc : null;
  const newline = text === null ? -1 : text.indexOf('\n');
  const lines = /** @type {import('@codemirror/state').Text} */ (doc);
  const first = text === null ? lines.line(1).text : newline === -1 ? text : text.slice(0, newline);
  if (CELL_MAGIC.test(first)) return true;
  if (!LINE_MAGIC.test(first)) return false;
  const rest = text === null ? lines.sliceString(first.length) : newline === -1 ? '' : text.slice(newline + 1);
  return !rest.trim();
}

/** The extension for one editor: `support` (a LanguageSupport) while its text is Cypher, its language first. */
/**
 * @param {import('@codemirror/language').LanguageSupport} support
 * @param {string} [initialText]
 * @returns {import('@codemirror/state').Extension}
 */
export function cypherFirst(support, initialText) {
  // Only the language goes to the highest precedence: the rest keeps the ordinary one, so the lint marks
  // stay outside the highlighted tokens (a higher-precedence mark is drawn inside and split by the others).
  const cypher = [Prec.highest(support.language), support.support];
  const slot = new Compartment();
  const follow = EditorState.transactionExtender.of((tr) => {
    if (!tr.docChanged) return null;
    const want = isCypherText(tr.newDoc);
    const has = slot.get(tr.startState) === cypher;
    return want === has ? null : { effects: slot.reconfigure(want ? cypher : []) };
  });
  return [slot.of(isCypherText(initialText || '') ? cypher : []), follow];
}

/** Registers `cypherFirst` for every editor with JupyterLab's editor extension registry. */
/**
 * @param {import('@jupyterlab/codemirror').IEditorExtensionRegistry} extensions
 * @param {typeof import('@jupyterlab/codemirror').EditorExtensionRegistry} registry
 * @param {import('@codemirror/language').LanguageSupport} support
 */
export function registerCypherFirst(extensions, registry, support) {
  extensions.addExtension(Object.freeze({
    name: 'gestalt-nb:cypher-first',
    factory: (/** @type {import('@jupyterlab/codemirror').IEditorExtensionFactory.IOptions} */ options) => {
      const model = options && options.model;
      const text = model && model.sharedModel ? model.sharedModel.getSource() : '';
      return registry.createImmutableExtension(cypherFirst(support, text));
    },
  }));
}
