// Builds gestalt_nb/canvas/static/canvas.js (one minified ESM file) from js/src.
// Usage: node js/build.mjs   (or: cd js && npm run build)
//
// SOURCE_HASH = sha256 hex over, for each path in sorted order of the relative
// POSIX paths (relative to js/) of every file under js/src/ plus package.json,
// package-lock.json and build.mjs: utf8(relpath) + NUL + raw bytes + NUL.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, "..", "gestalt_nb", "canvas", "static");

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

export function sourceHash() {
  const files = [...walk(join(here, "src")), join(here, "package.json"), join(here, "package-lock.json"), join(here, "build.mjs")];
  const rels = files.map((f) => relative(here, f).split(sep).join("/"));
  rels.sort((a, b) => (Buffer.from(a, "utf8").compare(Buffer.from(b, "utf8"))));
  const h = createHash("sha256");
  for (const rel of rels) {
    h.update(Buffer.from(rel, "utf8"));
    h.update(Buffer.from([0]));
    h.update(readFileSync(join(here, ...rel.split("/"))));
    h.update(Buffer.from([0]));
  }
  return h.digest("hex");
}

const hash = sourceHash();
const result = await esbuild.build({
  entryPoints: [join(here, "src", "index.js")],
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2020",
  platform: "browser",
  legalComments: "none",
  write: false,
  logLevel: "warning",
});
const code = result.outputFiles[0].text.trimEnd();
const bundle =
  `/* gestalt-canvas ${hash} */\n` +
  `/* Bundled: sigma 3 (MIT), graphology (MIT), graphology-layout-forceatlas2 (MIT), @sigma/node-border (MIT), events (MIT). Sources: js/ in gestalt-nb. */\n` +
  code +
  `\nexport const SOURCE_HASH="${hash}";\n`;
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "canvas.js"), bundle);
writeFileSync(join(outDir, "canvas.hash"), hash);
console.log(`canvas.js ${bundle.length} bytes, SOURCE_HASH ${hash}`);
