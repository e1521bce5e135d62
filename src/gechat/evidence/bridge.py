"""The hop a supported answer's evidence leaves out: the sentence that ties the question to
what the evidence is about.

"Which instrument did the composer of the opera Red Harbour play?" is answered by "She played
the cello in the city orchestra.", a sentence of the paragraph about Mara Lind, whom the
question never names; to check the answer the reader must also see "Red Harbour is a 1931
opera by Mara Lind." The entailment model finds the first sentence (it holds the answer) and
seldom the second (it entails nothing on its own). So when the paragraph the evidence stands
in is about a name the question does not hold, the sentence of another paragraph that names
it and shares the most words with the question is added: preferably one whose own paragraph
the question names. The verdict stays the model's; this only completes what the reader sees.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gechat.evidence.base import EvidencePool
from gechat.evidence.chain import LOWER_OK, capital_run
from gechat.evidence.compare import mentions
from gechat.lexical import STOPWORDS, content_keys
from gechat.types import Sentence

_LOWER_OK = LOWER_OK | {"&"}  # "Tom & Jerry"


def leading_name(text: str) -> str:
    """The capitalised run a sentence opens with ("Kiss and Run is a 1945 film" -> "Kiss and
    Run"; "Mara Lind (1890 – 1960) was" -> "Mara Lind"); "" when it opens otherwise."""
    tokens = re.sub(r"\s*\(.*", "", text.strip()).replace('"', " ").replace("“", " ").replace("”", " ").split()
    name = " ".join(capital_run(tokens, _LOWER_OK, comma_ends=True)).strip(" ,;:")
    first = name.split()[0].lower() if name else ""
    # "In 1931 she ...", "He ...", "The ..." alone: the sentence opens with no name
    return "" if (first in STOPWORDS and first != "the") or name.lower() == "the" else name


def subject(pool: EvidencePool, s: Sentence) -> str:
    """What the paragraph (chunk) of ``s`` is about: the name its first sentence opens with."""
    first = min((x for x in pool.sentences if x.chunk_id == s.chunk_id), key=lambda x: x.ord, default=s)
    return opening_name(first.text)


def opening_name(first: str) -> str:
    """The name a text is about, from its first sentence; "" when that opens with no name."""
    name = leading_name(first)
    return name if content_keys(name) else ""


def name_share(name: str, keys: frozenset[str]) -> float:
    """The share of ``name``'s words that text whose content keys are ``keys`` holds: 1.0 for
    "Brown County, Kansas" in "a protected area in Brown County, Kansas", 2/3 in "in Shawnee
    County, Kansas"; 1.0 for a name without content words (nothing to name)."""
    name_keys = content_keys(name)
    return len(name_keys & keys) / len(name_keys) if name_keys else 1.0


def find(pool: EvidencePool, question: str, evidence: list[Sentence]) -> Sentence | None:
    """The sentence tying the question to the evidence's paragraph, when the question does not
    name what that paragraph is about and the evidence does not already span two paragraphs."""
    if len({s.chunk_id for s in evidence}) != 1:
        return None
    name = subject(pool, evidence[0])
    q_keys = content_keys(question)
    if not name or content_keys(name) <= q_keys:
        return None
    chunk = evidence[0].chunk_id
    # other paragraphs shorten a name: "Henry John Kaiser" is "Henry J. Kaiser" or "Henry Kaiser"
    parts = name.split()
    variants = [name, *([" ".join(parts[:2])] if len(parts) > 2 else []),
                *([f"{parts[0]} {parts[-1]}"] if len(parts) > 2 and parts[0].lower() not in STOPWORDS else [])]
    best: tuple[tuple[int, int], Sentence] | None = None
    for n in variants:
        for t in mentions(pool, n):
            if t.chunk_id == chunk:
                continue
            shared = len((content_keys(t.text) - content_keys(n)) & q_keys)
            home = subject(pool, t)
            named = int(bool(home) and content_keys(home) <= q_keys)
            if shared < (1 if named else 2):
                continue
            key = (named, shared)
            if best is None or key > best[0]:
                best = (key, t)
        if best is not None:
            return best[1]
    return None


def repaired(pool: EvidencePool, question: str, answer: str, pair: list[Sentence]) -> list[Sentence] | None:
    """A two-paragraph set with its hop mended: when neither sentence names in full what the
    other's paragraph is about, the sentence holding the answer is kept and its partner becomes the
    sentence tying that paragraph to the question (:func:`find`), from another paragraph
    than the partner's; None when the pair is linked or no such sentence is found.

    The entailment model scores many pairs alike (a multi-hop claim reads as entailed by the
    answer's sentence plus almost any sentence that repeats the question's words: "Eighteen teams
    played 70 games each" beside "The Colisée seats 3,677" for "the arena where the Maineiacs
    played their home games"), while the hop a reader needs names the answer's paragraph ("The
    team played its home games at the Colisée")."""
    if len(pair) != 2 or pair[0].doc_id == pair[1].doc_id:
        return None
    about = subjects(pool)
    # linked: one sentence names the other's paragraph in full ("Remote" alone does not name
    # Apple Remote Desktop)
    if any(name_share(about(t), content_keys(s.text)) == 1.0 for s, t in (pair, pair[::-1])):
        return None
    keys = content_keys(answer)
    holding = [s for s in pair if keys and keys <= content_keys(s.text)]
    if len(holding) != 1:
        return None
    kept, partner = holding[0], next(s for s in pair if s is not holding[0])
    tie = find(pool, question, [kept])
    # a tie in the partner's own paragraph: that paragraph is the hop already
    if tie is None or tie.doc_id == partner.doc_id:
        return None
    return sorted([kept, tie], key=lambda s: (s.doc_id, s.start))


def subjects(pool: EvidencePool) -> Callable[[Sentence], str]:
    """What the document of a sentence is about: the name its opening chunk's first sentence
    opens with (:func:`opening_name`; "Kasper Hvidt is a Danish goalkeeper."),
    for its later chunks too, which open wherever the chunker cut; "" (about no name) when the
    opening chunk is not among the candidates."""
    openings: dict[int, Sentence] = {}
    for x in pool.sentences:
        chunk = pool.chunks.get(x.chunk_id)
        if chunk is not None and chunk.ord == 0 and (x.doc_id not in openings or x.ord < openings[x.doc_id].ord):
            openings[x.doc_id] = x
    names = {doc: opening_name(x.text) for doc, x in openings.items()}
    return lambda s: names.get(s.doc_id, "")
