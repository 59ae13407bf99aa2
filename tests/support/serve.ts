// A tiny static file server for a built site on localhost (what `astro preview` does, without Vite).
// With `base` ("/learn-agent-harness/") it serves the folder under that path only, as GitHub Pages
// serves a project site: anything outside the base is a 404, so a link that forgot the base fails.
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".xml": "application/xml",
  ".woff2": "font/woff2",
  ".wasm": "application/wasm",
  ".pf_meta": "application/octet-stream",
};

/** Serves `root`; `url` is where the site starts, without a trailing slash
 *  ("http://127.0.0.1:port" or "http://127.0.0.1:port/learn-agent-harness"), `origin` the host. */
export async function serve(
  root: string,
  { base = "/" }: { base?: string } = {},
): Promise<{ url: string; origin: string; close(): Promise<void> }> {
  const prefix = `/${base.replace(/^\/+|\/+$/g, "")}`.replace(/^\/$/, "");
  const server = createServer((req, res) => {
    const notFound = () => {
      res.writeHead(404, { "content-type": TYPES[".html"] });
      createReadStream(path.join(root, "404.html")).pipe(res);
    };
    const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    if (prefix && pathname === prefix) {
      res.writeHead(301, { location: `${prefix}/` }).end();
      return;
    }
    if (prefix && !pathname.startsWith(`${prefix}/`)) {
      notFound();
      return;
    }
    let file = path.join(root, pathname.slice(prefix.length));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, "index.html");
    if (!existsSync(file)) {
      notFound();
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
      // as GitHub Pages serves: a tab that goes on to the next page takes the styles and scripts
      // from its cache instead of fetching them again
      "cache-control": "max-age=600",
    });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: origin + prefix,
    origin,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
