// Types for the two files of graphology-layout-forceatlas2 that layout.js imports by path (the package declares
// types for its index only).
declare module "graphology-layout-forceatlas2/webworker.js" {
  /** The body of graphology's FA2 web worker (layout.js wraps its source text in a worker of its own). */
  const fa2WorkerFunction: () => void;
  export default fa2WorkerFunction;
}

declare module "graphology-layout-forceatlas2/iterate.js" {
  /** One FA2 iteration over the node and edge matrices (10 and 3 floats per node / edge), in place. */
  export default function iterate(settings: object, nodes: Float32Array, edges: Float32Array): void;
}
