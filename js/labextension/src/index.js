// gestalt-nb's Cypher editor for JupyterLab 4 and Notebook 7.
//
// A code cell whose first line is `%%gcypher ...` (or a one-line `%gcypher ...` cell) gets the
// text/x-gcypher mime type, whose language is Cypher (highlighting, lint, hover: ./editor.js); changing
// the first line switches it back to the notebook's own (Python) mime type, and either way again. Only a
// type we set is switched back: a type another extension gave a cell (a %%sql cell's) is left alone.
// Beside that, ./first.js gives every editor the Cypher support (its language at the highest precedence) while its text
// is a %%gcypher cell, so an extension that puts its own language into every editor (jupysql-plugin)
// cannot take the cell over, whichever loads first.
// "Format Cypher" (gestalt-nb:format-cypher) asks the kernel for the formatted cell.
import { ICommandPalette } from '@jupyterlab/apputils';
import { EditorExtensionRegistry, IEditorExtensionRegistry, IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker } from '@jupyterlab/notebook';

import { cypherSupport, LINT_DELAY_MS } from './editor';
import { isCypherText, registerCypherFirst } from './first';
import { ask } from './kernel';

/** @typedef {import('@jupyterlab/notebook').NotebookPanel} NotebookPanel */
/** @typedef {import('@jupyterlab/notebook').INotebookTracker} Tracker */
/** @typedef {import('@jupyterlab/cells').ICellModel} ICellModel */
/**
 * The page's window with the counts for browser tests and the benchmark.
 * @typedef {Window & {gestaltEditor?: {mime: string, lintDelay: number, activateMs: number, linted: (count: number) => void}, gestaltEditorLints?: number}} EditorWindow
 */

export const MIME = 'text/x-gcypher';
export const FORMAT = 'gestalt-nb:format-cypher';
const FORMAT_WAIT_MS = 15000; // the kernel's answer to Format Cypher (a command asked for: worth waiting for)

/** Whether a cell's text is Cypher for the editor: a %%gcypher cell, or a one-line %gcypher cell. */
export const isCypherCell = isCypherText;

/** @param {NotebookPanel} panel */
function watchNotebook(panel) {
  const notebook = panel.content;
  /** @type {WeakSet<ICellModel>} */
  const watched = new WeakSet();
  const update = (/** @type {ICellModel} */ model) => {
    if (model.type !== 'code' || model.isDisposed) return;
    if (isCypherCell(model.sharedModel.getSource())) {
      if (model.mimeType !== MIME) model.mimeType = MIME;
    } else if (model.mimeType === MIME) {
      model.mimeType = notebook.codeMimetype; // ours to undo; another extension's type stays
    }
  };
  const scan = () => {
    const cells = notebook.model ? notebook.model.cells : null;
    if (!cells) return;
    for (let i = 0; i < cells.length; i++) {
      const model = cells.get(i);
      if (model.type !== 'code') continue;
      if (!watched.has(model)) {
        watched.add(model);
        model.sharedModel.changed.connect(() => update(model));
        model.mimeTypeChanged.connect(() => update(model)); // the notebook resets it on kernel changes
      }
      update(model);
    }
  };
  panel.context.ready.then(() => {
    scan();
    if (notebook.model) notebook.model.cells.changed.connect(() => scan());
  });
}

/**
 * @param {Tracker} tracker
 * @returns {import('./kernel.js').KernelFor}
 */
function kernelFinder(tracker) {
  return (view) => {
    const panel = tracker.find((widget) => widget.node.contains(view.dom));
    const session = panel && panel.sessionContext.session;
    return session ? session.kernel : null;
  };
}

/** @param {Tracker} tracker */
async function formatActiveCell(tracker) {
  const cell = tracker.activeCell;
  const panel = tracker.currentWidget;
  if (!cell || !panel || cell.model.type !== 'code' || !cell.editor) return;
  const before = cell.model.sharedModel.getSource();
  const kernel = panel.sessionContext.session ? panel.sessionContext.session.kernel : null;
  // asked for by the person (a command, not a background check): worth waiting for a kernel on a busy machine
  const reply = await ask(kernel, { op: 'format', source: before }, { timeoutMs: FORMAT_WAIT_MS, evenIfBusy: true });
  if (!reply || typeof reply.source !== 'string' || reply.source === before) return;
  if (cell.model.sharedModel.getSource() !== before) return; // edited meanwhile: keep the edit
  const view = /** @type {import('@jupyterlab/codemirror').CodeMirrorEditor} */ (cell.editor).editor; // JupyterLab 4's cell editors are CodeMirror 6
  if (view && view.dispatch) {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: reply.source } }); // one undo step
  } else {
    cell.model.sharedModel.setSource(reply.source);
  }
}

/**
 * @param {import('@jupyterlab/application').JupyterFrontEnd} app
 * @param {Tracker} tracker
 * @param {import('@jupyterlab/apputils').ICommandPalette | null} palette
 */
function addFormatCommand(app, tracker, palette) {
  const inCypherCell = () => {
    const cell = tracker.activeCell;
    return !!cell && cell.model.type === 'code' && isCypherCell(cell.model.sharedModel.getSource());
  };
  app.commands.addCommand(FORMAT, {
    label: 'Format Cypher',
    caption: 'Format the query of this %%gcypher cell (keywords upper-case, one clause per line)',
    isEnabled: inCypherCell,
    execute: () => formatActiveCell(tracker),
  });
  app.commands.addKeyBinding({ command: FORMAT, keys: ['Shift Alt F'], selector: '.jp-Notebook' });
  app.contextMenu.addItem({ command: FORMAT, selector: '.jp-CodeCell', rank: 60 });
  if (palette) palette.addItem({ command: FORMAT, category: 'Notebook Operations' });
}

/** @type {import('@jupyterlab/application').JupyterFrontEndPlugin<void>} */
const plugin = {
  id: 'gestalt-nb-editor:plugin',
  description: 'Cypher in %%gcypher cells: highlighting, checks by the kernel\'s GestaltDB parser, format, hover.',
  autoStart: true,
  requires: [INotebookTracker, IEditorLanguageRegistry],
  optional: [ICommandPalette, IEditorExtensionRegistry],
  /**
   * @param {import('@jupyterlab/application').JupyterFrontEnd} app
   * @param {Tracker} tracker
   * @param {import('@jupyterlab/codemirror').IEditorLanguageRegistry} languages
   * @param {import('@jupyterlab/apputils').ICommandPalette | null} palette
   * @param {import('@jupyterlab/codemirror').IEditorExtensionRegistry | null} extensions
   */
  activate(app, tracker, languages, palette, extensions) {
    const started = performance.now();
    const kernelFor = kernelFinder(tracker);
    const support = cypherSupport(kernelFor);
    languages.addLanguage({ name: 'gcypher', displayName: 'Cypher (gestalt-nb)', mime: MIME, extensions: [], load: async () => support });
    if (extensions) registerCypherFirst(extensions, EditorExtensionRegistry, support);
    tracker.widgetAdded.connect((_, panel) => watchNotebook(panel));
    tracker.forEach((panel) => watchNotebook(panel));
    addFormatCommand(app, tracker, palette);
    let linted = 0;
    // For browser tests and the benchmark: counts only, nothing that reaches the kernel.
    const page = /** @type {EditorWindow} */ (window);
    page.gestaltEditor = Object.freeze({
      mime: MIME,
      lintDelay: LINT_DELAY_MS,
      activateMs: performance.now() - started,
      linted: (/** @type {number} */ count) => { linted += 1; page.gestaltEditorLints = linted; },
    });
  },
};

export default plugin;
