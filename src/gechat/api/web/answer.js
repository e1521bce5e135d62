// The answer panel: the streamed draft, then the answer with its claims coloured by verdict,
// the reasoning steps with theirs, and what the answer cost.

const $ = (id) => document.getElementById(id);
const STAGES = { retrieve: "finding passages…", retrieving: "finding passages…", answer: "writing…",
  answering: "writing…", evidence: "checking every claim against the documents…", correct: "correcting…" };

export function renderDraft(raw, stage) {
  $("stage").textContent = STAGES[stage] || `${stage}…`;
  $("answer-text").textContent = raw;
  $("answer-text").classList.add("draft");
  $("corrected").hidden = true;
  $("claims").replaceChildren();
  $("steps").replaceChildren();
  $("usage").textContent = "";
}

function entailment(claim) {
  return claim.evidence.length ? Math.max(...claim.evidence.map((e) => e.p_entail)) : null;
}

// A verdict as a CSS class: "no fact" -> "no-fact".
const verdictClass = (v) => v.replace(/ /g, "-");

function claimButton(claim, n, onSelect) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `claim ${verdictClass(claim.verdict)}`;
  b.setAttribute("aria-pressed", "false");
  b.dataset.verdict = claim.verdict;
  const p = entailment(claim);
  b.innerHTML = "<span class='verdict'></span><span class='claim-text'></span><span class='score'></span>" +
    "<span class='claim-note'></span>";
  b.children[0].textContent = claim.verdict;
  b.children[1].textContent = claim.text;
  b.children[2].textContent = claim.verdict === "no fact" ? "not checked" : p === null ? "no evidence" : `entailment ${p.toFixed(2)}`;
  // the names and numbers the evidence lacks say at a glance why a claim is not supported
  const missing = (claim.missing || []).length ? `not in the evidence: ${claim.missing.join(", ")}` : "";
  // why a step decided as it did (a reasoning step that states no fact says so); on a line of
  // its own under the claim, so a long note wraps instead of squeezing the claim's text
  const note = claim.note || "";
  b.children[3].textContent = [note, missing].filter(Boolean).join(" · ");
  b.setAttribute("aria-label", `Claim ${n}, ${claim.verdict}` + (note ? `, ${note}` : "") +
    (p === null ? ", no evidence" : `, entailment ${p.toFixed(2)}`) + (missing ? `, ${missing}` : "") +
    `: ${claim.text}`);
  b.addEventListener("click", () => onSelect(claim, b));
  return b;
}

// A claim's button, and under it, when it states several facts, each fact's own button: a
// fact is checked on its own, with its own evidence.
function claimItems(claim, n, onSelect) {
  const items = [claimButton(claim, n, onSelect)];
  if ((claim.atoms || []).length) {
    const ul = document.createElement("ul");
    ul.className = "atoms";
    ul.setAttribute("aria-label", "the facts this claim states");
    for (const a of claim.atoms) {
      const li = document.createElement("li");
      const b = claimButton(a, n, onSelect);
      b.classList.add("atom");
      li.append(b);
      ul.append(li);
    }
    items.push(ul);
  }
  return items;
}

// The answer's text with each claim that appears in it underlined in its verdict's colour.
function answerText(text, claims) {
  const p = $("answer-text");
  p.classList.remove("draft");
  p.replaceChildren();
  let pos = 0;
  const found = claims.map((c) => [text.indexOf(c.text), c]).filter(([i]) => i >= 0).sort((a, b) => a[0] - b[0]);
  for (const [i, c] of found) {
    if (i < pos) continue;
    p.append(text.slice(pos, i));
    const span = document.createElement("span");
    span.className = `inline ${verdictClass(c.verdict)}`;
    span.textContent = c.text;
    span.title = c.verdict;
    p.append(span);
    pos = i + c.text.length;
  }
  p.append(text.slice(pos));
}

// The corrected answer as a tracked change: what was taken out struck through, what a source
// put in its place as a button that shows that source on its page.
function correction(answer, onSelect) {
  const box = $("corrected");
  const fix = answer.corrected;
  box.hidden = !fix;
  box.replaceChildren();
  if (!fix) return;
  const label = document.createElement("strong");
  label.textContent = fix.edits.length ? "Corrected: " : "Corrected: nothing to change.";
  box.append(label);
  if (!fix.edits.length) return;
  const text = answer.text;
  let pos = 0;
  for (const e of fix.edits) {
    if (e.start < pos) continue;
    box.append(text.slice(pos, e.start));
    const del = document.createElement("del");
    del.textContent = e.old;
    del.title = e.reason;
    box.append(del);
    if (e.new) {
      const ins = document.createElement("button");
      ins.type = "button";
      ins.className = "edit";
      ins.textContent = e.new;
      ins.title = e.reason;
      ins.setAttribute("aria-label", `replaced ${e.old} with ${e.new}: ${e.reason}`);
      if (e.evidence) {
        const shown = { text: `${e.old} → ${e.new}`, verdict: "supported", source: "answer", evidence: [e.evidence],
                        missing: [], note: e.reason, atoms: [] };
        ins.addEventListener("click", () => onSelect(shown, ins));
      }
      box.append(ins);
    }
    pos = e.end;
  }
  box.append(text.slice(pos));
  if (!fix.text.trim()) {  // struck-through text alone reads as an answer; say it plainly
    const none = document.createElement("p");
    none.className = "emptied";
    none.textContent = "Nothing of this answer is stated in the documents retrieved: all of it was taken out.";
    box.append(none);
  }
}

// ScopeCoE's choice: the question's intent, relations and keywords, each snippet the model
// read with the features it holds, and what no candidate held.
function coeReport(answer) {
  const box = $("coe");
  const r = answer.coe;
  box.hidden = !r;
  if (!r) return;
  const f = r.features;
  $("coe-sum").textContent = `(${r.snippets.length} of ${r.candidates} snippets` +
    (r.uncovered.length ? `; not covered: ${r.uncovered.join("; ")})` : "; every feature covered)");
  $("coe-features").textContent = `Intent: ${f.intent}` + (f.relations.length ? ` Relations: ${f.relations.join("; ")}.` : "") +
    ` Keywords: ${f.keywords.join(", ")}.`;
  $("coe-snippets").replaceChildren(...r.snippets.map((s) => {
    const li = document.createElement("li");
    const held = [...(s.intent ? ["intent"] : []), ...s.relations.map((x) => `relation “${x}”`), ...s.keywords];
    li.textContent = `${s.doc_title}, page ${s.page}: ${held.join(", ") || "no feature"}` +
      (s.filled ? " (added to fill the set)" : "");
    return li;
  }));
}

export function renderAnswer(answer, onSelect) {
  $("stage").textContent = "";
  const mine = answer.claims.filter((c) => c.source === "answer");
  answerText(answer.text, mine);
  correction(answer, onSelect);
  coeReport(answer);
  let n = 0;
  const claims = $("claims");
  claims.replaceChildren(...mine.map((c) => {
    const li = document.createElement("li");
    li.append(...claimItems(c, ++n, onSelect));
    return li;
  }));
  if (!mine.length) claims.innerHTML = "<li class='muted'>The answer makes no claim to check.</li>";
  const stepClaims = answer.claims.filter((c) => c.source === "thought");
  const steps = $("steps");
  steps.replaceChildren(...answer.thoughts.map((t) => {
    const li = document.createElement("li");
    const own = stepClaims.filter((c) => t.includes(c.text));
    if (!own.length) li.textContent = t;
    for (const c of own) li.append(...claimItems(c, ++n, onSelect));
    return li;
  }));
  if (!answer.thoughts.length) steps.innerHTML = "<li class='muted'>No reasoning steps.</li>";
  const u = answer.usage || {};
  const secs = Object.values(u.stages || {}).reduce((s, x) => s + x.seconds, 0);
  const counts = ["supported", "unsupported", "contradicted", "no fact"]
    .filter((v) => v !== "no fact" || answer.claims.some((c) => c.verdict === v))
    .map((v) => `${answer.claims.filter((c) => c.verdict === v).length} ${v}`).join(", ");
  $("usage").textContent = `${answer.claims.length} claims: ${counts}. ${secs.toFixed(1)} s.`;
}
