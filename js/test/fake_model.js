// A fake anywidget model proxy for testing the canvas bundle without Jupyter.
// JS side API: get/set/save_changes/send/on/off (as anywidget's model proxy).
// Test side: window.sent (messages the view sent), window.saved (save_changes
// snapshots), model.push(msg) (a custom message from "Python"), model.pyset(name, value)
// (a trait change from "Python").
window.sent = window.sent || [];
window.saved = window.saved || [];

window.FakeModel = class FakeModel {
  constructor(state, tag) {
    this.state = Object.assign({ graph: { nodes: [], edges: [] }, revision: 0, selected: [], height: 480, settings: {} }, state || {});
    this.listeners = new Map();
    this.tag = tag || "m";
  }
  get(name) {
    return this.state[name];
  }
  set(name, value) {
    this.state[name] = value;
    this.emit("change:" + name, value);
  }
  save_changes() {
    window.saved.push({ tag: this.tag, selected: this.state.selected && this.state.selected.slice() });
  }
  send(msg) {
    window.sent.push(Object.assign({ _model: this.tag }, JSON.parse(JSON.stringify(msg))));
  }
  on(name, cb) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    this.listeners.get(name).add(cb);
  }
  off(name, cb) {
    const s = this.listeners.get(name);
    if (!s) return;
    if (cb) s.delete(cb);
    else s.clear();
  }
  emit(name, ...args) {
    const s = this.listeners.get(name);
    if (s) for (const cb of [...s]) cb(...args);
  }
  listenerCount() {
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }
  // --- test side ---
  push(msg) {
    this.emit("msg:custom", msg, []);
  }
  pyset(name, value) {
    this.state[name] = value;
    this.emit("change:" + name, value);
  }
};
