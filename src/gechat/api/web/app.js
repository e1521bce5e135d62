// The gechat page: workspaces, documents with upload progress, asking with the answer
// streamed, and every claim's evidence shown where it stands in the document.

import { ApiError, call, setApiKey, stream } from "./api.js";
import { renderAnswer, renderDraft } from "./answer.js";
import { Viewer } from "./viewer.js";

const $ = (id) => document.getElementById(id);
const state = { ws: null, docs: [], answer: null, asking: null };
const prep = { last: "", timer: null }; // the read-ahead while a question is typed (see prepare)
const viewer = new Viewer($("pages"), $("viewer-title"), report);
const wsPath = () => `/v1/workspaces/${encodeURIComponent(state.ws)}`;
// Settles when the workspaces are first loaded: a file dropped or chosen before then waits for
// it (uploading sooner would post to no workspace).
let ready = Promise.resolve();

function report(e) {
  const box = $("notice");
  if (e instanceof ApiError && e.status === 401) {
    $("set-key").hidden = false;
    box.textContent = "This server needs an API key: use the “API key…” button.";
  } else {
    box.textContent = e instanceof ApiError ? `${e.message}${e.hint ? ` (${e.hint})` : ""}` : String(e.message || e);
  }
  box.hidden = false;
}

function clearNotice() { $("notice").hidden = true; }

async function loadWorkspaces(choose) {
  let { workspaces } = await call("GET", "/v1/workspaces");
  if (!workspaces.length) {
    await call("POST", "/v1/workspaces", { id: "default" });
    workspaces = ["default"];
  }
  const sel = $("workspace");
  sel.replaceChildren(...workspaces.map((w) => new Option(w, w)));
  const want = choose || localStorage.getItem("gechat.workspace");
  sel.value = workspaces.includes(want) ? want : workspaces[0];
  await selectWorkspace(sel.value);
}

async function selectWorkspace(ws) {
  state.ws = ws;
  localStorage.setItem("gechat.workspace", ws);
  state.answer = null;
  prep.last = ""; // another workspace: the same words retrieve other excerpts
  $("answer").hidden = true;
  $("evidence-list").replaceChildren();
  viewer.clear();
  await loadDocuments();
}

async function loadDocuments() {
  state.docs = (await call("GET", `${wsPath()}/documents`)).documents;
  const list = $("doc-list");
  list.replaceChildren(...state.docs.map(docItem));
  if (!state.docs.length) list.innerHTML = "<li class='muted'>No documents yet: add one to ask about it.</li>";
}

function docItem(d) {
  const li = document.createElement("li");
  const open = document.createElement("button");
  open.type = "button";
  open.className = "doc";
  open.innerHTML = "<span class='doc-title'></span> <span class='muted'></span>";
  open.firstChild.textContent = d.title || d.file_name;
  open.lastChild.textContent = `${d.kind}, ${d.n_pages} p., ${d.n_sentences} sentences`;
  open.addEventListener("click", () => viewer.open(state.ws, d).catch(report));
  const del = document.createElement("button");
  del.type = "button";
  del.className = "small";
  del.textContent = "Remove";
  del.setAttribute("aria-label", `Remove ${d.title || d.file_name}`);
  del.addEventListener("click", async () => {
    if (!confirm(`Remove “${d.title || d.file_name}” and its index?`)) return;
    try {
      await call("DELETE", `${wsPath()}/documents/${d.id}`);
      if (viewer.doc && viewer.doc.id === d.id) viewer.clear();
      await loadDocuments();
    } catch (e) { report(e); }
  });
  li.append(open, del);
  return li;
}

async function upload(files) {
  if (!files.length) return;
  await ready;
  clearNotice();
  const form = new FormData();
  for (const f of files) form.append("files", f, f.name);
  const li = document.createElement("li");
  li.className = "job";
  li.textContent = `Uploading ${files.length} file(s)…`;
  $("jobs").append(li);
  try {
    const job = await call("POST", `${wsPath()}/documents`, form);
    const onEvent = (_name, j) => { li.textContent = jobText(j); };
    await stream("GET", job.events_url, undefined, onEvent);
    const done = await call("GET", job.status_url);
    li.textContent = jobText(done);
    await loadDocuments();
    const added = done.files.find((f) => f.document);
    if (added) await viewer.open(state.ws, added.document);
    if (done.state === "done" && done.files.every((f) => !f.error)) setTimeout(() => li.remove(), 4000);
  } catch (e) {
    li.textContent = `Upload failed: ${e.message}`;
    report(e);
  }
}

function jobText(j) {
  const files = j.files.map((f) => {
    const step = f.error ? `failed: ${f.error.message}` : f.status === "pending" ? `${f.step}…` : f.status;
    return `${f.name}: ${step}`;
  });
  const head = { done: "Finished", failed: "Finished", cancelled: "Cancelled" }[j.state] ?? "Adding";
  return `${head}: ${files.join("; ")}`;
}

// What /ask and /ask/prepare take: the question, and the retrieval chosen on the page.
function askBody(question) {
  const body = { question };
  if ($("retriever").value) body.retriever = $("retriever").value;
  if ($("correct").checked) body.correct = true;
  return body;
}

async function ask(question) {
  if (state.asking) state.asking.abort();
  clearTimeout(prep.timer);
  const ctrl = new AbortController();
  state.asking = ctrl;
  clearNotice();
  $("answer").hidden = false;
  $("evidence-list").replaceChildren();
  let raw = "";
  renderDraft(raw, "retrieving");
  $("ask").disabled = true;
  const body = askBody(question);
  try {
    await stream("POST", `${wsPath()}/ask`, body, (name, data) => {
      if (name === "stage") renderDraft(raw, data.stage);
      else if (name === "token") renderDraft((raw += data.text), "answering");
      else if (name === "answer") {
        state.answer = data;
        renderAnswer(data, selectClaim);
      } else if (name === "error") throw new ApiError(data.status, data);
    }, ctrl.signal);
  } catch (e) {
    if (e.name !== "AbortError") { report(e); $("stage").textContent = ""; }
  } finally {
    if (state.asking === ctrl) { state.asking = null; $("ask").disabled = false; }
  }
}

// While a question is typed, the server has the model read the excerpts it retrieves, so
// the answer starts as soon as it is asked. Each finished word (or a pause) sends the text
// so far; on the server the newest read-ahead displaces an older one, and a question stops it.

function prepare() {
  const q = $("question").value.trim();
  if (q.split(/\s+/).length < 3 || q === prep.last || state.asking || !state.docs.length) return;
  prep.last = q;
  call("POST", `${wsPath()}/ask/prepare`, askBody(q)).catch(() => {}); // only a head start: asking still works
}

function typed(e) {
  clearTimeout(prep.timer);
  if (/[\s,.;:?!]$/.test(e.target.value)) prepare(); // a word was finished
  else prep.timer = setTimeout(prepare, 400); // or the typing paused
}

async function selectClaim(claim, button) {
  for (const b of document.querySelectorAll(".claim[aria-pressed='true']")) b.setAttribute("aria-pressed", "false");
  button.setAttribute("aria-pressed", "true");
  const list = $("evidence-list");
  list.replaceChildren();
  if (!claim.evidence.length) {
    list.innerHTML = "<p class='muted'>No evidence for this claim was found in the documents.</p>";
    return;
  }
  // passages chosen as a set carry the set's score: they entail the claim together
  const joint = claim.evidence.length > 1 && claim.evidence.every((e) => e.p_entail === claim.evidence[0].p_entail);
  if (joint) {
    const note = document.createElement("p");
    note.className = "muted joint";
    note.textContent = `Together these passages entail the claim: entailment ${claim.evidence[0].p_entail.toFixed(2)}`;
    list.append(note);
  }
  const buttons = claim.evidence.map((ev, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "evidence";
    b.innerHTML = "<span class='ev-meta'></span> <q></q>";
    // where in the document: the title and headings above the evidence
    const section = (ev.sentences[0] && ev.sentences[0].context) || "";
    b.firstChild.textContent = `${i + 1}. ${ev.doc_title}, p. ${ev.page}` + (section ? ` · ${section}` : "") +
      (joint ? "" : ` · entailment ${ev.p_entail.toFixed(2)}`);
    b.lastChild.textContent = ev.text;
    b.addEventListener("click", () => showEvidence(ev, b));
    return b;
  });
  list.append(...buttons);
  await showEvidence(claim.evidence[0], buttons[0]);
}

async function showEvidence(ev, button) {
  for (const b of document.querySelectorAll(".evidence.current")) b.classList.remove("current");
  button.classList.add("current");
  const doc = state.docs.find((d) => d.id === ev.doc_id) || { id: ev.doc_id, kind: "pdf", title: ev.doc_title };
  try { await viewer.show(state.ws, doc, ev); } catch (e) { report(e); }
}

function wire() {
  $("workspace").addEventListener("change", (e) => selectWorkspace(e.target.value).catch(report));
  $("new-workspace").addEventListener("click", async () => {
    const id = prompt("Name of the new workspace (letters, digits, _ and -):");
    if (!id) return;
    try {
      await call("POST", "/v1/workspaces", { id });
      await loadWorkspaces(id);
    } catch (e) { report(e); }
  });
  $("set-key").addEventListener("click", () => {
    const k = prompt("API key for this server (kept in this browser):");
    if (k === null) return;
    setApiKey(k.trim());
    clearNotice();
    loadWorkspaces().catch(report);
  });
  $("files").addEventListener("change", (e) => { upload([...e.target.files]); e.target.value = ""; });
  const drop = $("drop");
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    upload([...e.dataTransfer.files]);
  });
  $("ask-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const q = $("question").value.trim();
    if (q) ask(q);
  });
  $("question").addEventListener("input", typed);
  $("question").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("ask-form").requestSubmit();
    }
  });
  // arrow keys move between claims, as in a list box
  document.addEventListener("keydown", (e) => {
    const at = document.activeElement;
    if (!at || !at.classList.contains("claim") || !["ArrowDown", "ArrowUp"].includes(e.key)) return;
    const all = [...document.querySelectorAll("button.claim")];
    const next = all[all.indexOf(at) + (e.key === "ArrowDown" ? 1 : -1)];
    if (next) { e.preventDefault(); next.focus(); }
  });
}

wire();
ready = loadWorkspaces().catch(report);
