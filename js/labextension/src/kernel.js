// The editor's channel to the kernel: one comm per kernel (target gestalt_nb.editor, registered by
// `%load_ext gestalt_nb`), requests matched to replies by id. Never waits: no kernel, a kernel that is
// not idle, or no answer within the timeout all give null, and the caller shows nothing.
export const TARGET = 'gestalt_nb.editor';
const RETRY_MS = 2000; // after the kernel refused the comm (extension not loaded yet), ask again this late
/** @typedef {import('@jupyterlab/services').Kernel.IKernelConnection} Kernel */
/** @typedef {(view: import('@codemirror/view').EditorView) => Kernel | null | undefined} KernelFor  the kernel of the notebook an editor is in */
/** @typedef {Record<string, any>} Reply  the kernel's answer (each caller checks the fields it reads) */

/** @type {WeakMap<Kernel, Channel>} */
const channels = new WeakMap();

class Channel {
  /** @param {Kernel} kernel */
  constructor(kernel) {
    this.kernel = kernel;
    /** @type {import('@jupyterlab/services').Kernel.IComm | null} */
    this.comm = null;
    /** @type {Map<number, (data: Reply | null) => void>} */
    this.pending = new Map();
    this.next = 1;
    this.refusedAt = -Infinity;
  }

  open() {
    if (this.comm && !this.comm.isDisposed) return this.comm;
    if (performance.now() - this.refusedAt < RETRY_MS) return null;
    let comm;
    try {
      comm = this.kernel.createComm(TARGET);
    } catch (error) {
      return null;
    }
    comm.onMsg = (msg) => {
      const data = /** @type {Reply} */ ((msg && msg.content && msg.content.data) || {});
      const waiter = this.pending.get(data.id);
      if (waiter) waiter(data);
    };
    comm.onClose = () => {
      if (this.comm === comm) this.comm = null;
      this.refusedAt = performance.now();
      for (const waiter of [...this.pending.values()]) waiter(null);
    };
    this.comm = comm;
    quiet(() => comm.open({}));
    return comm;
  }

  /**
   * @param {Record<string, unknown>} payload
   * @param {number} timeoutMs
   * @returns {Promise<Reply | null>}
   */
  request(payload, timeoutMs) {
    const comm = this.open();
    if (!comm) return Promise.resolve(null);
    const id = this.next++;
    return new Promise((resolve) => {
      const finish = (/** @type {Reply | null} */ data) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(data);
      };
      const timer = setTimeout(() => finish(null), timeoutMs);
      this.pending.set(id, finish);
      if (!quiet(() => comm.send({ ...payload, id }))) finish(null);
    });
  }
}

// A comm's open/send return futures whose `done` may reject when the kernel goes away: swallow that.
/**
 * @param {() => unknown} call
 * @returns {boolean}
 */
function quiet(call) {
  try {
    const future = /** @type {{done?: Promise<unknown>} | null | undefined} */ (call());
    if (future && future.done) future.done.catch(() => undefined);
    return true;
  } catch (error) {
    return false;
  }
}

/**
 * Ask the kernel; null unless it is idle (or `evenIfBusy`) and answers within `timeoutMs`.
 * @param {Kernel | null | undefined} kernel
 * @param {Record<string, unknown>} payload
 * @param {{timeoutMs?: number, evenIfBusy?: boolean}} [options]
 * @returns {Promise<Reply | null>}
 */
export function ask(kernel, payload, { timeoutMs = 3000, evenIfBusy = false } = {}) {
  if (!kernel || kernel.isDisposed || kernel.connectionStatus !== 'connected') return Promise.resolve(null);
  if (!evenIfBusy && kernel.status !== 'idle') return Promise.resolve(null);
  let channel = channels.get(kernel);
  if (!channel) {
    channel = new Channel(kernel);
    channels.set(kernel, channel);
  }
  return channel.request(payload, timeoutMs);
}
