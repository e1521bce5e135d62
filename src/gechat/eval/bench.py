"""The evidence benchmark: every selector on the same questions, oracle and end to end.

Oracle mode measures evidence selection on its own: the gold answer, phrased as a claim, is
grounded in all sentences of the question's paragraphs; a wrong answer (another question's)
is grounded too, and must not come out supported, which gives the verdict balanced accuracy.
End-to-end mode: retrieval, the LLM's answer and reasoning steps, then each selector on the
same claims and the same retrieved sentences (the answer is generated once: the LLM cache).
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from gechat.answer.claims import make_claims, stands_alone
from gechat.eval.datasets import FinanceItem, QAItem, financebench_split
from gechat.eval.evidence import page_hit, prf, token_recall
from gechat.eval.negatives import changed_number, same_kind
from gechat.eval.qa import answer_f1, exact_match
from gechat.evidence import SELECTORS, ClaimInput, EvidencePool, EvidenceSelector
from gechat.evidence.base import as_answer_to
from gechat.models.llm.cache import CachedLLM
from gechat.pipeline import Workspace
from gechat.settings import Settings
from gechat.types import Claim, Sentence

SELECTOR_KEYS = {"nli-objective": "nli", "reflection": "reflection", "quote": "quote"}

# (?<!\s) and possessive runs: a long run of spaces is read once (linear)
_OR = re.compile(r"(?<!\s)\s++or\s++")


def _options(question: str) -> tuple[str, str] | None:
    """"..., A or B?" -> (A, B): what follows the last line's first comma or colon, split at
    the first " or ". Code rather than one pattern: a pattern tried from every comma reads the
    rest of the line each time (quadratic)."""
    line = question.rstrip().rsplit("\n", 1)[-1]
    cuts = [i for i in (line.find(","), line.find(":")) if i >= 0]
    if not line.endswith("?") or not cuts:
        return None
    body = line[min(cuts) + 1 : -1].strip()
    m = _OR.search(body)
    if m is None or not body[: m.start()].strip() or not body[m.end() :].strip():
        return None
    return body[: m.start()].strip(), body[m.end() :].strip()


def wrong_answers(questions: Sequence[str], answers: Sequence[str], rng: random.Random | None = None,
                  passages: Sequence[str] | None = None) -> list[str]:
    """A wrong answer per question, as hard as the data allows: the other option of an "A or
    B?" question, the opposite of yes / no, with ``passages`` (one text per question) a year,
    figure or name of the same kind from them (``negatives.same_kind``), else another
    question's answer (the next different one, or a random one with ``rng``). A claim with it
    must not come out supported."""
    out = []
    for i, (q, a) in enumerate(zip(questions, answers, strict=True)):
        key = a.strip().lower()
        if key in ("yes", "no"):
            out.append("no" if key == "yes" else "yes")
            continue
        options = _options(q)
        if options and key in (options[0].lower(), options[1].lower()):
            out.append(options[1] if key == options[0].lower() else options[0])
            continue
        near = same_kind(a, q, passages[i], q) if passages is not None else None
        if near is not None:
            out.append(near)
            continue
        choices = [b for b in answers if b.strip().lower() not in (key, "yes", "no")]
        if rng is not None:
            out.append(rng.choice(choices))
            continue
        later = [b for b in [*answers[i + 1 :], *answers[:i]] if b.strip().lower() not in (key, "yes", "no")]
        out.append(later[0] if later else a)
    return out


def as_claim(question: str, answer: str) -> str:
    """The gold answer phrased as a claim (the same template as benchmarks/nli.py and as a
    fragment answer is checked in the product)."""
    return as_answer_to(question, answer)


def answer_claim(question: str, answer: str) -> ClaimInput:
    """The claim to ground, as the product makes it: a fragment answer as the answer to the
    question, an answer that is a sentence of its own as written (``stands_alone``; read in the
    template, "The answer to the question ... is: Amcor is a global leader in packaging ..."
    scored 0.004 by the verifier against the sentence that states it, 0.41 as written).
    The whole question is given, its instructions too ("Answer in USD millions." says the unit
    of "$1577.00"), so only the answer's names and numbers must be in the evidence
    (``evidence_coverage``)."""
    text = answer.strip() if stands_alone(answer) else as_claim(question, answer)
    return ClaimInput(text=text, source="answer", given=question)


@dataclass
class Result:
    """One selector on one question."""

    dataset: str
    mode: str
    selector: str
    question_id: str
    f1: float = 0.0
    precision: float = 0.0
    recall: float = 0.0
    evidence_text: str = ""
    gold_text: str = ""
    verdicts: list[tuple[bool, bool]] = field(default_factory=list)  # (gold supported, predicted supported)
    quotes: int = 0
    fabricated: int = 0
    shown: int = 0  # evidence spans shown to the reader
    not_verbatim: int = 0  # of those, spans whose text is not the source's text at their offsets
    seconds: float = 0.0
    llm_tokens: int = 0
    answer_em: float | None = None
    answer_f1: float | None = None
    page_hit: float | None = None
    token_recall: float | None = None
    split: str = ""  # "dev" or "test" where the data set is split so
    confidence: list[tuple[bool, float]] = field(default_factory=list)  # (claim true, P_entail of its evidence)


# What the bench's documents hold, part of every bench workspace's name: "h1", sentences
# stored with their heading path, and a question's paragraphs written as Markdown files with
# their title as a "#" heading (as the article they come from shows it).
LAYOUT = "h1"
# Documents added from files (filings, a user's own): "t5", table rows written with their
# column headers, found also above a statement's captions ("t2" missed them), chunks of
# rows embedded under their table's title ("t3" without), and each row's context holding
# its table's title and caption ("t4" without). Part of those workspaces' names, so they
# are read again when it changes.
FILE_LAYOUT = "t5"


class Bench:
    def __init__(self, settings: Settings, work: Path, *, llm: CachedLLM, selectors: Sequence[str]) -> None:
        self.settings, self.work, self.llm = settings, work, llm
        self.workspace0 = Workspace(work / "_models", settings, llm=llm)
        self.embedder, self.scorer = self.workspace0.embedder, self.workspace0.scorer
        self._counted: dict[str, Counter[str]] = {}
        self.selectors: dict[str, EvidenceSelector] = {
            name: SELECTORS.create(name, settings, scorer=self.scorer, embedder=self.embedder, llm=llm)
            for name in selectors}

    def workspace(self, name: str, layout: str = LAYOUT) -> Workspace:
        """A bench workspace, kept between runs; its name ends in ``layout``, so a run never
        reads documents stored by code that read them differently."""
        return Workspace(self.work / re.sub(r"[^\w.-]+", "_", f"{name}.{layout}"), self.settings, llm=self.llm,
                         embedder=self.embedder, scorer=self.scorer)

    # --- multi-hop QA: each question's paragraphs form its own workspace ---
    def qa_workspace(self, item: QAItem) -> tuple[Workspace, set[int]]:
        """The workspace of the question's paragraphs, and the ids of our sentences that are gold."""
        ws = self.workspace(item.id)
        return ws, add_paragraphs(ws, item)

    def chosen(self, with_llm: bool) -> dict[str, EvidenceSelector]:
        """All selectors, or only those that need no LLM (the bench caps LLM selectors)."""
        return {n: s for n, s in self.selectors.items() if with_llm or not getattr(s, "uses_llm", False)}

    def oracle_qa(self, dataset: str, item: QAItem, wrong_answer: str, *, with_llm: bool = True,
                  split: str = "") -> Iterator[Result]:
        ws, gold = self.qa_workspace(item)
        _, pool = ws.whole_pool()
        claims = [answer_claim(item.question, item.answer),
                  answer_claim(item.question, wrong_answer)]
        for name, sel in self.chosen(with_llm).items():
            with self._cost() as cost:
                right, wrong = sel.select(claims, pool)
            r = self._sentences(Result(dataset, "oracle", name, item.id, split=split), [right], gold,
                                item.gold_text())
            r.shown, r.not_verbatim = _verbatim([right, wrong], pool)
            r.verdicts = [(True, right.verdict == "supported"), (False, wrong.verdict == "supported")]
            r.confidence = [(True, _confidence(right)), (False, _confidence(wrong))]
            yield self._finish(r, sel, cost)
        ws.close()

    def end_to_end_qa(self, dataset: str, item: QAItem, *, with_llm: bool = True) -> Iterator[Result]:
        ws, gold = self.qa_workspace(item)
        hits = ws.retriever.retrieve(item.question, self.settings.top_k_chunks)
        with self._cost() as answer_cost:
            draft = ws.answerer.answer(item.question, hits)
        claims = make_claims(draft, from_thoughts=True, question=item.question)
        pool = ws.evidence_pool(hits)
        for name, sel in self.chosen(with_llm).items():
            with self._cost() as cost:
                grounded = sel.select(claims, pool) if claims else []
            r = Result(dataset, "e2e", name, item.id, answer_em=exact_match(draft.text, item.answer),
                       answer_f1=answer_f1(draft.text, item.answer))
            r = self._sentences(r, grounded, gold, item.gold_text())
            r.shown, r.not_verbatim = _verbatim(grounded, pool)
            cost["seconds"] += answer_cost["seconds"]
            cost["tokens"] += answer_cost["tokens"]
            yield self._finish(r, sel, cost)
        ws.close()

    def retrieved_qa(self, dataset: str, item: QAItem, wrong_answer: str,
                     strategies: Sequence[str]) -> Iterator[Result]:
        """The nli-objective on what each retrieval strategy finds: the question retrieves
        top_k chunks, the (gold) claim searches again as a reasoning step would
        (``for_evidence``: the graph strategies add each step's chunks), then the claim is grounded."""
        from gechat.retrieve import RETRIEVERS

        ws, gold = self.qa_workspace(item)
        if any(s != "vector" for s in strategies):
            ws.build_graph(extractor="fast")  # a no-op where the graph is complete
        claims = [answer_claim(item.question, item.answer),
                  answer_claim(item.question, wrong_answer)]
        sel = self.selectors["nli-objective"]
        for strategy in strategies:
            retriever = RETRIEVERS.create(strategy, self.settings, store=ws.store, embedder=self.embedder)
            with self._cost() as cost:
                hits = retriever.retrieve(item.question, self.settings.top_k_chunks)
                hits = retriever.for_evidence([claims[0].text], hits, self.settings.top_k_chunks)
                pool = ws.evidence_pool(hits)
                right, wrong = sel.select(claims, pool)
            r = self._sentences(Result(dataset, "retrieved", f"nli_{strategy}", item.id), [right], gold,
                                item.gold_text())
            r.shown, r.not_verbatim = _verbatim([right, wrong], pool)
            r.verdicts = [(True, right.verdict == "supported"), (False, wrong.verdict == "supported")]
            yield self._finish(r, sel, cost)
        ws.close()

    # --- FinanceBench: questions over one long PDF; retrieval is needed even in oracle mode ---
    def oracle_finance(self, item: FinanceItem, *, with_llm: bool = True) -> Iterator[Result]:
        """The gold answer as a claim, and a hard wrong one (its figure changed by 5-50%,
        ``eval.negatives``) when it has a figure; both must be read right."""
        ws = self.workspace("fin-" + item.pdf.stem, FILE_LAYOUT)
        if not ws.documents():
            ws.add([item.pdf])
        claim = answer_claim(item.question, item.answer)
        wrong_answer = changed_number(item.answer, item.id)
        claims = [claim] + ([answer_claim(item.question, wrong_answer)] if wrong_answer else [])
        # retrieved by the answer read with its question, as the claim was before it stood alone
        hits = ws.retriever.retrieve(as_claim(item.question, item.answer), max(self.settings.top_k_chunks, 5))
        # and, as for an answer's claims, the table rows that state each claim's figures
        pool = ws.evidence_pool(hits, [c.text for c in claims])
        gold_text = " ".join(t for t, _ in item.evidence)
        for name, sel in self.chosen(with_llm).items():
            with self._cost() as cost:
                c, *wrong = sel.select(claims, pool)
            r = Result("financebench", "oracle", name, item.id, gold_text=gold_text, split=financebench_split(item))
            r.evidence_text = " ".join(e.text for e in c.evidence if c.verdict == "supported")
            r.page_hit = page_hit([e.page for e in c.evidence], [p for _, p in item.evidence])
            r.token_recall = token_recall(r.evidence_text, gold_text)
            r.verdicts = [(True, c.verdict == "supported")] + [(False, w.verdict == "supported") for w in wrong]
            r.confidence = [(True, _confidence(c))] + [(False, _confidence(w)) for w in wrong]
            r.shown, r.not_verbatim = _verbatim([c, *wrong], pool)
            yield self._finish(r, sel, cost)
        ws.close()

    # --- helpers ---
    @staticmethod
    def _sentences(r: Result, claims: list[Claim], gold: set[int], gold_text: str) -> Result:
        picked = supported_sentences(claims)
        score = prf(set(picked), gold)
        r.precision, r.recall, r.f1 = score.precision, score.recall, score.f1
        r.evidence_text = " ".join(s.text for s in sorted(picked.values(), key=lambda s: (s.doc_id, s.start)))
        r.gold_text = gold_text
        return r

    @contextmanager
    def _cost(self) -> Iterator[Counter[str]]:
        """Seconds and LLM tokens of the block as on a cold LLM cache: a cache hit counts the
        original call's tokens and seconds, so a warm re-run reports the same cost."""
        cold, spent = self.llm.cold, self.llm.spent_seconds
        tokens, seconds = cold["tokens"], cold["seconds"]
        cost: Counter[str] = Counter()
        t = time.perf_counter()
        yield cost
        wall = time.perf_counter() - t - (self.llm.spent_seconds - spent)
        cost["seconds"] += wall + cold["seconds"] - seconds  # type: ignore[assignment]
        cost["tokens"] += int(cold["tokens"] - tokens)

    def _finish(self, r: Result, sel: EvidenceSelector, cost: Counter[str]) -> Result:
        stats: Counter[str] = Counter(getattr(sel, "stats", Counter()))  # running totals of the selector
        last = self._counted.get(r.selector, Counter())
        r.quotes, r.fabricated = stats["quotes"] - last["quotes"], stats["fabricated"] - last["fabricated"]
        self._counted[r.selector] = stats
        r.seconds, r.llm_tokens = float(cost["seconds"]), int(cost["tokens"])
        return r


def add_paragraphs(ws: Workspace, item: QAItem) -> set[int]:
    """Adds the question's paragraphs (one document each, if not there yet); our gold sentence ids."""
    folder = ws.path / "paragraphs"
    folder.mkdir(parents=True, exist_ok=True)
    gold_spans: dict[str, list[tuple[int, int]]] = {}
    files = []
    for n, p in enumerate(item.paragraphs):
        slug = re.sub(r"[^\w]+", "_", p.title)[:60]
        name = f"{n:02d}-{slug}"  # the loader titles a document by its file stem
        head = "# " + " ".join(p.title.split()) + "\n\n"
        text, spans, pos = head, [], len(head)
        for i, raw in enumerate(p.sentences):
            piece = raw if i == 0 or raw.startswith(" ") else " " + raw
            text += piece
            if (p.title, i) in item.gold:
                spans.append((pos + len(piece) - len(piece.lstrip()), pos + len(piece)))
            pos += len(piece)
        (folder / f"{name}.md").write_text(text + "\n", encoding="utf-8")
        gold_spans[name] = spans
        files.append(folder / f"{name}.md")
    ws.add(files)
    gold: set[int] = set()
    for doc in ws.documents():
        spans = gold_spans.get(doc.title, [])
        for sent in ws.store.sentences_of_chunks(ws.store.chunk_ids(doc.id)):
            if any(_overlaps(sent.start, sent.end, a, b) for a, b in spans):
                gold.add(sent.id)
    return gold


def supported_sentences(claims: Sequence[Claim]) -> dict[int, Sentence]:
    """The evidence sentences of the supported claims, by id: what sentence F1 scores."""
    return {s.id: s for c in claims if c.verdict == "supported" for e in c.evidence for s in e.sentences}


def _verbatim(claims: Sequence[Claim], pool: EvidencePool) -> tuple[int, int]:
    """(spans shown, spans not verbatim): a span's text must be its chunk's text at its offsets,
    sentence by sentence. Our selectors only ever return stored sentences, so this checks the
    "no fabricated evidence" guarantee on every answer of the bench rather than trusting it."""
    shown = bad = 0
    for c in claims:
        for e in c.evidence:
            shown += 1
            if any(s.chunk_id not in pool.chunks or pool.span_text(s, s) != s.text for s in e.sentences):
                bad += 1
    return shown, bad


def _confidence(c: Claim) -> float:
    """How sure the verdict is that the claim holds: its evidence's P_entail (0 when
    contradicted, or with no evidence)."""
    return 0.0 if c.verdict == "contradicted" else max((e.p_entail for e in c.evidence), default=0.0)


def _overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    """Overlap of at least half of the shorter span: splitters may cut a sentence differently."""
    inter = min(a1, b1) - max(a0, b0)
    return inter > 0 and inter >= 0.5 * min(a1 - a0, b1 - b0)
