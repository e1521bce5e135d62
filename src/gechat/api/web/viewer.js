// The document view: PDF pages as images with evidence rectangles laid over them, or the
// text of other documents with the evidence marked by offsets.

import { call, imageUrl, offsetMapper } from "./api.js";

const SCALE = 1.5; // page image pixels per PDF point: sharp on a laptop screen, small to send

export class Viewer {
  constructor(root, title, onError) {
    this.root = root;
    this.title = title;
    this.onError = onError;
    this.ws = null;
    this.doc = null; // {id, kind, title, pages, text}
    this.observer = new IntersectionObserver((entries) => {
      for (const e of entries) if (e.isIntersecting) this.loadPage(e.target);
    }, { root: this.root, rootMargin: "800px 0px" });
  }

  clear(message = "No document open") {
    this.doc = null;
    this.observer.disconnect();
    this.root.replaceChildren();
    this.title.textContent = message;
  }

  async open(ws, doc) {
    if (this.doc && this.doc.id === doc.id && this.ws === ws) return;
    this.clear(doc.title);
    this.ws = ws;
    const base = `/v1/workspaces/${encodeURIComponent(ws)}/documents/${doc.id}`;
    const { pages } = await call("GET", `${base}/pages`);
    const opened = { id: doc.id, kind: doc.kind, title: doc.title, pages, text: null };
    if (doc.kind === "pdf" && pages.every((p) => p.width > 0)) {
      for (const p of pages) this.root.append(this.pageFrame(base, p, pages.length));
    } else {
      opened.text = (await call("GET", `${base}/text`)).text;
      const div = document.createElement("div");
      div.className = "text-doc";
      div.textContent = opened.text;
      this.root.append(div);
    }
    this.doc = opened;
    this.root.scrollTop = 0;
  }

  pageFrame(base, p, total) {
    const frame = document.createElement("div");
    frame.className = "page";
    frame.dataset.page = p.number;
    frame.dataset.src = `${base}/pages/${p.number}.png?scale=${SCALE}`;
    frame.style.aspectRatio = `${p.width} / ${p.height}`;
    frame.dataset.width = p.width;
    frame.dataset.height = p.height;
    const img = document.createElement("img");
    img.alt = `Page ${p.number}`;
    const label = document.createElement("span");
    label.className = "page-no";
    label.textContent = `${p.number} / ${total}`;
    frame.append(img, label);
    this.observer.observe(frame);
    return frame;
  }

  async loadPage(frame) {
    if (frame.dataset.loaded) return;
    frame.dataset.loaded = "1";
    this.observer.unobserve(frame);
    try {
      frame.querySelector("img").src = await imageUrl(frame.dataset.src);
    } catch (e) {
      frame.dataset.loaded = "";
      this.onError(e);
    }
  }

  // Highlights the sentences of one evidence item and scrolls to the first of them.
  async show(ws, doc, evidence) {
    await this.open(ws, doc);
    for (const el of this.root.querySelectorAll(".hl")) el.remove();
    const first = this.doc.text === null ? this.markBoxes(evidence) : this.markText(evidence);
    if (first) first.scrollIntoView({ block: "center", behavior: "instant" });
  }

  markBoxes(evidence) {
    let first = null;
    for (const s of evidence.sentences) {
      for (const b of s.boxes) {
        const frame = this.root.querySelector(`.page[data-page="${b.page}"]`);
        if (!frame) continue;
        const w = Number(frame.dataset.width), h = Number(frame.dataset.height);
        const hl = document.createElement("div");
        hl.className = "hl";
        hl.dataset.sentence = s.id;
        hl.dataset.page = b.page;
        hl.title = s.text;
        Object.assign(hl.style, {
          left: `${(100 * b.x0) / w}%`, top: `${(100 * b.y0) / h}%`,
          width: `${(100 * (b.x1 - b.x0)) / w}%`, height: `${(100 * (b.y1 - b.y0)) / h}%`,
        });
        frame.append(hl);
        this.loadPage(frame);
        first = first || hl;
      }
    }
    // a sentence without boxes (text the PDF did not place) still brings its page into view
    return first || this.root.querySelector(`.page[data-page="${evidence.page}"]`);
  }

  markText(evidence) {
    const text = this.doc.text;
    const at = offsetMapper(text);
    const spans = (evidence.sentences.length ? evidence.sentences : [evidence])
      .map((s) => [at(s.start), at(s.end), s.id]).sort((a, b) => a[0] - b[0]);
    const div = this.root.querySelector(".text-doc");
    div.replaceChildren();
    let pos = 0;
    let first = null;
    for (const [start, end, id] of spans) {
      if (start < pos) continue;
      div.append(text.slice(pos, start));
      const mark = document.createElement("mark");
      mark.className = "hl";
      if (id !== undefined) mark.dataset.sentence = id;
      mark.textContent = text.slice(start, end);
      div.append(mark);
      first = first || mark;
      pos = end;
    }
    div.append(text.slice(pos));
    return first;
  }
}
