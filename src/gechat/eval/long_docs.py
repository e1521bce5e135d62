"""Long documents end to end: add each document, ask each question with the settings in
effect, and score what a user gets (issue 35).

FinanceBench's filings (``gechat bench --documents``) or any JSONL file of rows
``{"question", "answer", "document", "page"}`` (``gechat bench --questions FILE``): the answer
is right when every figure of the gold answer is in it (within 1% after units and scale) or,
for a gold answer with no figure, when the normalised gold answer is in it (a gold answer
opening with "Yes" / "No" is read by that word); no LLM judge. Evidence counts on a gold page
when a supported claim of the answer cites one. The verdict is the answer's: supported when
every claim of the answer is. The failure this product exists to prevent is a wrong answer
shown supported, so it is reported on its own: the share of wrong answers that came out
supported.
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gechat.errors import GechatError
from gechat.eval.bench import FILE_LAYOUT, Bench
from gechat.eval.datasets import DATA, financebench, financebench_split
from gechat.eval.evidence import page_hit
from gechat.evidence.values import Quantity, comparable, quantities
from gechat.settings import Settings
from gechat.types import Answer, Usage

TOLERANCE = 0.01  # a figure is right within 1% of the gold one
_SCALES = (1.0, 1e3, 1e6, 1e9)


@dataclass(frozen=True)
class DocQuestion:
    id: str
    question: str
    answer: str
    document: Path
    pages: tuple[int, ...] = ()  # 1-based gold pages; none: page hit not scored
    split: str = ""  # "dev" / "test" where the set has them
    workspace: str = ""  # the bench workspace it is added to; default: one per document path

    def workspace_name(self) -> str:
        key = hashlib.sha256(str(self.document).encode()).hexdigest()[:8]
        return self.workspace or f"doc-{self.document.stem}-{key}"


@dataclass
class Row:
    """One question's outcome, a line of ``<name>_questions.jsonl``."""

    id: str
    question: str
    gold: str
    answer: str
    document: str
    split: str
    correct: bool
    supported: bool
    page_hit: float | None
    claims: int
    verdicts: list[str] = field(default_factory=list)
    pages_cited: list[int] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)  # "p.47: <text>" of each supported claim's evidence
    seconds: float = 0.0
    llm_tokens: int = 0
    corrected: str | None = None  # the corrected answer, where the settings correct it
    correct_after: bool | None = None  # whether that is right


def read_questions(path: Path) -> list[DocQuestion]:
    """The rows of a JSONL file; ``document`` relative to the file's folder, ``page`` 1-based
    (a number or a list; optional). A bad row is refused with its line number."""
    if not path.is_file():
        raise GechatError(f"no questions file at {path}", hint="a JSONL file, one question per line")
    out = []
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise GechatError(f"{path}:{n}: not JSON ({e.msg})") from None
        lack = [k for k in ("question", "answer", "document") if not str(row.get(k, "")).strip()]
        if lack:
            raise GechatError(f"{path}:{n}: no {', '.join(lack)}",
                              hint='each line: {"question": ..., "answer": ..., "document": ..., "page": ...}')
        doc = (path.parent / str(row["document"])).resolve()
        if not doc.is_file():
            raise GechatError(f"{path}:{n}: no document at {doc}")
        page = row.get("page")
        pages = tuple(int(p) for p in (page if isinstance(page, list) else [page] if page is not None else []))
        out.append(DocQuestion(str(row.get("id", n)), str(row["question"]), str(row["answer"]), doc, pages))
    if not out:
        raise GechatError(f"{path}: no questions")
    return out


def financebench_questions(root: Path = DATA) -> list[DocQuestion]:
    # "fin-<filing>": the workspaces the oracle suite indexed the filings into
    return [DocQuestion(f.id, f.question, f.answer, f.pdf, tuple(sorted({p for _, p in f.evidence})),
                        financebench_split(f, root), workspace=f"fin-{f.pdf.stem}") for f in financebench(root=root)]


def _same(gold: Quantity, got: Quantity) -> bool:
    """Within ``TOLERANCE`` of each other, reading a figure without a scale word in any scale
    (a table "in millions") and a percentage as a fraction; signs aside ("a decline of 3%")."""
    if not comparable(gold, got):
        return False
    a, b = abs(gold.value), abs(got.value)
    if "percent" in (gold.kind, got.kind) and gold.kind != got.kind:
        pct, num = (a, b) if gold.kind == "percent" else (b, a)
        return _close(pct / 100, num) or _close(pct, num)
    # "$1577.00" in a gold answer about a filing "in millions" is $1.577 billion
    scales = _SCALES if 1.0 in (gold.scale, got.scale) else (1.0,)
    return any(_close(a * s, b) or _close(a, b * s) for s in scales)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b), 1e-12)


def _normal(text: str) -> str:
    """Lower case, words and numbers only ("1.9" keeps its point), no "the"."""
    words = re.sub(r"[^\w%$.]+|(?<!\d)\.|\.(?!\d)", " ", text.lower()).split()
    return " ".join(w for w in words if w != "the")


def answer_correct(answer: str, gold: str) -> bool:
    """Every figure of the gold answer stated in the answer (within 1%), or, with no figure,
    the gold answer's normalised text found in the answer; a gold answer opening with yes / no
    is right when the answer opens with the same word."""
    words = _normal(gold).split()
    if words and words[0] in ("yes", "no"):  # the answer's point; the figures after it explain it
        return _normal(answer).split()[:1] == words[:1]
    figures = [q for q in quantities(gold) if q.kind != "year"]
    if figures:
        got = [q for q in quantities(answer) if q.kind != "year"]
        return all(any(_same(g, a) for a in got) for g in figures)
    return bool(words) and _normal(gold) in _normal(answer)


def ask_row(bench: Bench, item: DocQuestion) -> tuple[Row, float | None]:
    """Adds the document to its workspace if it is not there yet, asks, and scores the
    answer; the seconds the add took (None when the document was there already)."""
    ws = bench.workspace(item.workspace_name(), FILE_LAYOUT)
    added = None
    try:
        if not ws.documents():
            t = time.perf_counter()
            ws.add([item.document])
            added = time.perf_counter() - t
        with bench._cost() as cost:
            answer = ws.ask(item.question)
    finally:
        ws.close()
    return score(item, answer, float(cost["seconds"]), int(cost["tokens"])), added


def score(item: DocQuestion, answer: Answer, seconds: float, tokens: int) -> Row:
    claims = [c for c in answer.claims if c.source == "answer"]
    supported = bool(claims) and all(c.verdict == "supported" for c in claims)
    cited = sorted({e.page for c in claims if c.verdict == "supported" for e in c.evidence})
    return Row(id=item.id, question=item.question, gold=item.answer, answer=answer.text, document=item.document.name,
               split=item.split, correct=answer_correct(answer.text, item.answer), supported=supported,
               page_hit=page_hit(cited, item.pages) if item.pages else None, claims=len(claims),
               verdicts=[c.verdict for c in claims], pages_cited=cited, seconds=round(seconds, 2), llm_tokens=tokens,
               evidence=[f"p.{e.page}: {e.text[:400]}" for c in claims if c.verdict == "supported" for e in c.evidence],
               corrected=None if answer.corrected is None else answer.corrected.text,
               correct_after=None if answer.corrected is None else answer_correct(answer.corrected.text, item.answer))


def figures(rows: Sequence[Row], prefix: str) -> dict[str, float]:
    """Flat keys ``<prefix>_<metric>``; where rows carry a split, the test half's figures are
    the plain keys and each split also gets ``_<split>`` keys."""
    def of(rs: Sequence[Row]) -> dict[str, float]:
        wrong = [r for r in rs if not r.correct]
        hits = [r.page_hit for r in rs if r.page_hit is not None]
        m = {"questions": float(len(rs)),
             "answer_accuracy": sum(r.correct for r in rs) / len(rs),
             "supported_rate": sum(r.supported for r in rs) / len(rs),
             "seconds_median": statistics.median(r.seconds for r in rs),
             "llm_tokens_median": statistics.median(r.llm_tokens for r in rs)}
        if wrong:
            m["wrong_supported_rate"] = sum(r.supported for r in wrong) / len(wrong)
        if any(r.correct_after is not None for r in rs):  # an answer left alone is as it was
            m["answer_accuracy_corrected"] = sum(r.correct if r.correct_after is None else r.correct_after
                                                 for r in rs) / len(rs)
        if hits:
            m["page_hit"] = sum(hits) / len(hits)
        return {k: round(v, 4) for k, v in m.items()}

    flat: dict[str, float] = {}
    splits = sorted({r.split for r in rows if r.split})
    for split in splits:
        flat |= {f"{prefix}_{k}_{split}": v for k, v in of([r for r in rows if r.split == split]).items()}
    if rows:
        main = [r for r in rows if r.split == "test"] if "test" in splits else list(rows)
        flat |= {f"{prefix}_{k}": v for k, v in of(main).items()}
    return flat


def run(bench: Bench, items: Sequence[DocQuestion], *, prefix: str, results: Path, name: str,
        meta: dict[str, object], tick: Callable[[str], None] = lambda _: None) -> tuple[dict[str, float], Path]:
    """Asks every question (results rewritten after each, so a stopped run keeps what it
    measured); the documents' add time gives pages per second where a document was added now."""
    from gechat.eval.report import write

    rows: list[Row] = []
    added: dict[str, tuple[int, float]] = {}
    path = results / f"{name}.md"
    earlier = _earlier_ingest(results / f"{name}.json")
    for i, item in enumerate(items):
        tick(f"{name} {i + 1}/{len(items)} ({item.document.name})")
        row, add_seconds = ask_row(bench, item)
        rows.append(row)
        if add_seconds is not None:
            added[item.document.name] = (_pages(item.document), add_seconds)
        flat = figures(rows, prefix)
        done: dict[str, object] = {**meta, "questions done": f"{i + 1}/{len(items)}"}
        if added:
            flat["ingest_pages_per_second"] = round(sum(p for p, _ in added.values())
                                                    / max(1e-9, sum(s for _, s in added.values())), 3)
        kept = None
        if not added and earlier is not None:  # every document was there already: the last measured figure stands
            flat["ingest_pages_per_second"], kept = earlier
            done["ingest measured"] = kept
        results.mkdir(parents=True, exist_ok=True)
        (results / f"{name}_questions.jsonl").write_text("".join(json.dumps(asdict(r)) + "\n" for r in rows))
        path = write(name, flat, markdown(flat, prefix, rows, name, kept), done, results=results)
    return figures(rows, prefix), path


def _earlier_ingest(path: Path) -> tuple[float, str] | None:
    """Pages per second of the earlier results at ``path``, with the date of the run that
    added the documents."""
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(old, dict) or "ingest_pages_per_second" not in old:
        return None
    meta = old.get("meta") or {}
    return float(old["ingest_pages_per_second"]), str(meta.get("ingest measured", meta.get("date", "?")))


def _pages(path: Path) -> int:
    if path.suffix.lower() != ".pdf":
        return 1
    import pymupdf

    doc: pymupdf.Document = pymupdf.open(path)  # type: ignore[no-untyped-call]
    try:
        return int(doc.page_count)
    finally:
        doc.close()  # type: ignore[no-untyped-call]


def markdown(flat: dict[str, float], prefix: str, rows: Sequence[Row], name: str, kept: str | None = None) -> str:
    def g(key: str) -> str:
        v = flat.get(f"{prefix}_{key}")
        return "-" if v is None else f"{v:.3f}"

    parts = sorted({r.split for r in rows if r.split}) or [""]
    lines = ["| split | questions | answer accuracy | evidence on a gold page | answers supported | "
             "wrong answers supported | seconds (median) | LLM tokens (median) |", "|---|---|---|---|---|---|---|---|"]
    for split in parts:
        s = f"_{split}" if split else ""
        lines.append(f"| {split or 'all'} | {g('questions' + s)[:-4]} | {g('answer_accuracy' + s)} | "
                     f"{g('page_hit' + s)} | {g('supported_rate' + s)} | {g('wrong_supported_rate' + s)} | "
                     f"{g('seconds_median' + s)} | {g('llm_tokens_median' + s)[:-4]} |")
    if f"{prefix}_answer_accuracy_corrected" in flat:
        lines += ["", f"Answer accuracy after correction (`correct`): {g('answer_accuracy_corrected')} "
                      f"(before: {g('answer_accuracy')})."]
    if "ingest_pages_per_second" in flat:
        when = f"in the run of {kept} (every document was added already in this one)" if kept else "in this run"
        lines += ["", f"Documents added {when}: {flat['ingest_pages_per_second']:.2f} pages per second."]
    lines += ["", "Right: every figure of the gold answer in the answer within 1% (units and scale read), "
              "else the gold answer's yes / no or its text. Evidence on a gold page: a supported claim of the "
              "answer cites one. Supported: every claim of the answer is. Per-question rows: "
              f"`{name}_questions.jsonl` beside this file."]
    return "\n".join(lines)


def load(questions: Path | None, limit: int | None) -> list[DocQuestion]:
    """The questions of ``gechat bench --questions FILE`` (checked before any model loads), or
    FinanceBench's for ``--documents``."""
    items = read_questions(questions) if questions is not None else financebench_questions()
    return items[:limit] if limit else items


def run_suite(settings: Settings, items: Sequence[DocQuestion], *, own: bool, work: Path, results: Path,
              tick: Callable[[str], None] = lambda _: None) -> tuple[dict[str, float], Path]:
    """Asks ``items`` (``own``: a user's file, else FinanceBench) and writes the results."""
    from gechat.models import build_llm

    name, prefix = ("documents", "documents_e2e") if own else ("long_documents", "financebench_e2e")
    bench = Bench(settings, work, llm=build_llm(settings, Usage()), selectors=[])
    meta: dict[str, object] = {
        "questions": "your questions file" if own else "FinanceBench (test: the filings whose names sort in "
                                                      "the second half)",
        "llm": settings.llm_model, "entailment": f"{settings.entailment}:{settings.entailment_model or 'default'}",
        "settings": settings.model_dump(mode="json", exclude={"models_dir", "cache_dir"})}
    return run(bench, items, prefix=prefix, results=results, name=name, meta=meta, tick=tick)
