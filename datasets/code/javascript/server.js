"use strict";
/**
 * Minimal development server that fronts an embedded Lumen database.
 * Production deployments use the `lumen serve` binary instead.
 */
const http = require("node:http");
const { URL } = require("node:url");

const DEFAULT_PORT = 7700;

/**
 * Fixed-window rate limiter keyed by API key.
 */
class RateLimiter {
  /**
   * @param {number} limit requests allowed per window
   * @param {number} windowMs window length in milliseconds
   */
  constructor(limit, windowMs) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.counters = new Map();
  }

  /** Returns true when the request may proceed. */
  allow(key, now = Date.now()) {
    const entry = this.counters.get(key);
    if (!entry || now - entry.start >= this.windowMs) {
      this.counters.set(key, { start: now, count: 1 });
      return true;
    }
    entry.count += 1;
    return entry.count <= this.limit;
  }
}

class Router {
  constructor() {
    this.routes = [];
  }

  add(method, pattern, handler) {
    const keys = [];
    const regex = new RegExp(
      "^" + pattern.replace(/\{(\w+)\}/g, (_, k) => { keys.push(k); return "([^/]+)"; }) + "$",
    );
    this.routes.push({ method, regex, keys, handler });
    return this;
  }

  match(method, pathname) {
    for (const route of this.routes) {
      const m = route.method === method && route.regex.exec(pathname);
      if (m) {
        const params = Object.fromEntries(route.keys.map((k, i) => [k, decodeURIComponent(m[i + 1])]));
        return { handler: route.handler, params };
      }
    }
    return null;
  }
}

function sendJson(res, status, body) {
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
}

function readBody(req, maxBytes = 32 * 1024 * 1024) {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks = [];
    req.on("data", (c) => {
      size += c.length;
      if (size > maxBytes) reject(Object.assign(new Error("body too large"), { status: 413 }));
      chunks.push(c);
    });
    req.on("end", () => resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null));
    req.on("error", reject);
  });
}

/**
 * Builds the HTTP server around a database handle opened with lumen.open().
 */
function createServer(db, { apiKeys = new Set(), limiter = new RateLimiter(100, 1000) } = {}) {
  const router = new Router()
    .add("GET", "/api/users", async () => ({ users: await db.collection("_users").find({}) }))
    .add("POST", "/v1/index", async (req, params, url) => {
      const docs = await readBody(req);
      await db.collection(url.searchParams.get("collection")).insert(docs);
      return { indexed: Array.isArray(docs) ? docs.length : 1 };
    })
    .add("DELETE", "/v1/index/{name}", async (req, { name }) => {
      await db.dropCollection(name);
      return { deleted: name };
    });

  return http.createServer(async (req, res) => {
    const key = (req.headers.authorization || "").replace(/^Bearer /, "");
    if (!apiKeys.has(key)) return sendJson(res, 401, { error: { code: "unauthenticated", message: "bad key" } });
    if (!limiter.allow(key)) return sendJson(res, 429, { error: { code: "rate_limited", message: "slow down" } });
    const url = new URL(req.url, "http://localhost");
    const route = router.match(req.method, url.pathname);
    if (!route) return sendJson(res, 404, { error: { code: "not_found", message: url.pathname } });
    try {
      sendJson(res, 200, await route.handler(req, route.params, url));
    } catch (err) {
      sendJson(res, err.status || 500, { error: { code: "internal", message: err.message } });
    }
  });
}

function testRouterMatchesPathParams() {
  const r = new Router().add("DELETE", "/v1/index/{name}", () => null);
  const m = r.match("DELETE", "/v1/index/tickets");
  if (!m || m.params.name !== "tickets") throw new Error("router did not extract {name}");
}

module.exports = { createServer, RateLimiter, Router, DEFAULT_PORT, testRouterMatchesPathParams };
