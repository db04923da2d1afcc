// The view's state: every field it holds, declared once with its type (ViewFields), and ViewState, the base class
// of the view, which holds no code, only those declarations: so the view and each of its parts (the objects it
// holds, view.js) read and set the state typed.
/** @typedef {import("./force.js").Layout} Layout */

/**
 * @typedef {object} Model  the anywidget model of one canvas (its traits: docs/protocol.md)
 * @property {(name: string) => any} get
 * @property {(name: string, value: unknown) => void} set
 * @property {() => void} save_changes
 * @property {(message: import("./protocol.js").PageMessage) => void} send
 * @property {(name: string, fn: (...args: any[]) => void) => void} on
 * @property {(name: string, fn: (...args: any[]) => void) => void} off
 */
/** @typedef {HTMLElement & {gestaltCanvas?: import("./hooks.js").Hooks}} HostElement  an element carrying the test hooks */
/** @typedef {{t: "hide", ids: string[]} | {t: "pin", prev: [string, boolean][]} | {t: "py", revision: number}} UndoStep  one step the toolbar's Undo takes back */
/**
 * @typedef {object} Times  when each stage happened (performance.now()), for timings()
 * @property {number} start
 * @property {number | null} firstFrame
 * @property {number | null} settled
 * @property {Record<string, number>} [marks]
 * @property {boolean} [spare]  the renderer was the one made ahead
 * @property {number} [iterations]  FA2 iterations run
 */
/** @typedef {import("./spare.js").Renderer} Renderer */
/** @typedef {import("./payload.js").GraphT} GraphT */
/**
 * The view's state: every field, declared once with its type (each assignment says it sets one of these).
 * @typedef {object} ViewFields
 * @property {Model} model
 * @property {HostElement} el  the element the view is drawn in
 * @property {number} instanceId  the drawing's number (-1: destroyed)
 * @property {Renderer | null} renderer
 * @property {Layout | null} layout  the running force layout
 * @property {Set<string>} selected
 * @property {string | null} selectedEdge
 * @property {Set<string>} hidden  nodes hidden with the toolbar
 * @property {UndoStep[]} undo
 * @property {number} revision  the last delta applied
 * @property {number} syncAsked  the revision a sync was asked after (-1: none)
 * @property {Times} times
 * @property {(() => void)[]} disposers  what undoes the view's listeners and observers
 * @property {number} generation  how often the view moved to a redrawn output (adopted)
 * @property {GraphT} graph
 * @property {import("./payload.js").Table<import("./payload.js").NodeData>} nd
 * @property {import("./payload.js").Table<import("./payload.js").EdgeData>} ed
 * @property {import("./payload.js").Payload} payload
 * @property {unknown} packed  the decoded graph_gz
 * @property {import("./payload.js").WireLabel[]} labels
 * @property {string[]} types  relationship types, by position
 * @property {number} hlCount  highlighted nodes
 * @property {number} ehlCount  highlighted relationships
 * @property {import("./theme.js").Theme} theme
 * @property {import("./hooks.js").Hooks} hooks
 * @property {HostElement} root
 * @property {import("./ui.js").UI} ui
 * @property {HTMLElement | null} focused  what has the keyboard in this canvas
 * @property {boolean} visible  in sight (or near it)
 * @property {number} seen  when last in sight (a clock of all views)
 * @property {boolean} suspended  the renderer was dropped to make room, the drawing kept
 * @property {Promise<void>} readyPromise
 * @property {(value: void) => void} resolveReady
 * @property {Promise<void>} settledPromise
 * @property {(value: void) => void} resolveSettled
 * @property {boolean | undefined} pendingPromises  promises made for a build still to come
 * @property {number | undefined} loadToken
 * @property {boolean} asShown  where a page showed the nodes (to_html): no layout runs
 * @property {import("sigma/types").CameraState | null} camState  kept while suspended
 * @property {number} frameNo  sigma frames drawn
 * @property {import("./captions.js").Scene | null} scene  this frame's nodes, segments and caption boxes
 * @property {number[] | undefined} losses  when WebGL contexts were lost
 * @property {boolean | undefined} pendingFirstFrame  the first frame waits for the box to have a size
 * @property {() => void} firstFrameGo
 * @property {number | undefined} unfoldedFor  the build whose force layout started from pivot MDS
 * @property {ReturnType<typeof setTimeout> | undefined} revTimer
 * @property {ReturnType<typeof setTimeout> | undefined} reportTimer
 * @property {string | undefined} lastReport  the last "shown" report, as sent
 * @property {string} nodeType  sigma's node program
 * @property {string} edgeType  sigma's edge program
 * @property {string} bigEdgeHi  the program of highlighted edges in big graphs
 * @property {number} baseSize
 * @property {number} edgeSize
 * @property {boolean} edgeLabels  relationship types drawn on the edges
 * @property {number | null | undefined} sizeCap  a computed layout's room per node (px)
 * @property {number} zoomGrow  how far a layered drawing's nodes are held below their own size at full view (1: not)
 * @property {number | undefined} padding  the canvas's stagePadding (px), fitted once to the first frame's biggest disc (renderer.js)
 * @property {string[]} labelColors  by label position
 * @property {Map<string, import("./captions.js").Spot | null> | undefined} spots  where each caption was drawn
 * @property {Map<string, {k: number, n: number}> | undefined} slots
 * @property {number | undefined} slotsFrame
 * @property {import("./encode.js").Encodings | null} enc
 * @property {import("./filter.js").StyleSpec} styleSpec
 * @property {import("./filter.js").LayoutSpec} layoutSpec
 * @property {import("./filter.js").Filter} filt
 * @property {Set<string>} filtered  nodes the filter hides
 * @property {Set<string> | undefined} absent  nodes and relationships not present at a time slider's moment (timeline.js)
 * @property {import("./timeline.js").Timeline} timeline  the time slider part (timeline.js)
 * @property {import("./protocol.js").FilterOp | null} pendingFilter  the payload's filter, applied after the build
 * @property {{at: string, n: number} | undefined} plain  relationships a caption must not cross, counted (plainEdges)
 * @property {{at: string, v: [number, number]} | undefined} wRange  log of the weakest and strongest super-edge (weightRange)
 * @property {{graph: GraphT, hi: number} | undefined} areaScale  an overview's area scale: its biggest group's size
 * @property {Map<string, import("./drill.js").Open> | undefined} drilled  an overview's groups open on the canvas (drill.js), by super-node
 * @property {Map<string, string> | undefined} drillRoot  a sub-group's or "N more"'s top group open on the canvas
 * @property {Set<string> | undefined} lastOpened  what the last drill opened (captions.js places its biggest groups' captions first)
 * @property {number | undefined} roomNote  the biggest groups the last drill opened whose captions found no room (the status says so)
 * @property {Map<string, Set<string>> | undefined} rings  the items of one group's slices, which never push each other
 * @property {Map<string, {x: number, y: number}> | undefined} homes  where an opened super-node or "N more" stood
 * @property {Map<string, number> | undefined} discs  a drilled group's disc radius
 * @property {Map<string, number> | undefined} discCount
 * @property {boolean | undefined} fitAfter
 * @property {{path: HTMLButtonElement, png: HTMLButtonElement, svg: HTMLButtonElement} | undefined} outButtons
 * @property {Promise<void> | null} layoutPromise
 * @property {((value: void) => void) | undefined} resolveLayout
 * @property {number[] | null | undefined} layoutSpacing
 * @property {number | undefined} layoutToken
 * @property {string | null | undefined} layoutNote
 */

/** The view's state as a base class: Object at run time, ViewFields to the type checker. */
export const ViewState = /** @type {new () => ViewFields} */ (/** @type {unknown} */ (Object));
