// Talking to the gechat REST API: JSON calls, problem+json errors, server-sent events.
// EventSource can neither POST nor send an API key, so streams are read with fetch.

const KEY_STORE = "gechat.apiKey";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.hint = problem.hint || "";
  }
}

export function apiKey() { return localStorage.getItem(KEY_STORE) || ""; }
export function setApiKey(k) { k ? localStorage.setItem(KEY_STORE, k) : localStorage.removeItem(KEY_STORE); }

function headers(extra = {}) {
  const h = { ...extra };
  const k = apiKey();
  if (k) h["X-API-Key"] = k;
  return h;
}

async function failure(r) {
  let problem = {};
  try { problem = await r.json(); } catch { problem = { detail: `${r.status} ${r.statusText}` }; }
  return new ApiError(r.status, problem);
}

export async function call(method, path, body) {
  const init = { method, headers: headers() };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const r = await fetch(path, init);
  if (!r.ok) throw await failure(r);
  return r.status === 204 ? null : r.json();
}

// A page image as an object URL (an <img src> could not carry the API key).
export async function imageUrl(path) {
  const r = await fetch(path, { headers: headers() });
  if (!r.ok) throw await failure(r);
  return URL.createObjectURL(await r.blob());
}

// Calls onEvent(name, data) for every event of a text/event-stream response.
export async function stream(method, path, body, onEvent, signal) {
  const init = { method, signal, headers: headers({ Accept: "text/event-stream" }) };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const r = await fetch(path, init);
  if (!r.ok) throw await failure(r);
  const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (data.length) onEvent(name, JSON.parse(data.join("\n")));
    }
  }
}

// Python counts text offsets in code points, JavaScript in UTF-16 units: they differ only
// past characters outside the Basic Multilingual Plane (emoji, some CJK).
export function offsetMapper(text) {
  if (!/[\uD800-\uDFFF]/.test(text)) return (cp) => cp;
  const units = [];
  let u = 0;
  for (const ch of text) { units.push(u); u += ch.length; }
  units.push(u);
  return (cp) => units[Math.min(cp, units.length - 1)];
}
