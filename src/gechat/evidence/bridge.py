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
from gechat.lexical import STOPWORDS, content_keys, words
from gechat.types import Sentence

_LOWER_OK = LOWER_OK | {"&"}  # "Tom & Jerry"
_COPULAS = frozenset(["is", "was", "are", "were"])

# From the first "(" on; (?<!\s) and the possessive \s*+ read a run of spaces once (linear).
_FROM_PAREN = re.compile(r"(?<!\s)\s*+\(.*")


def leading_name(text: str) -> str:
    """The capitalised run a sentence opens with ("Kiss and Run is a 1945 film" -> "Kiss and
    Run"; "Mara Lind (1890 – 1960) was" -> "Mara Lind"); "" when it opens otherwise."""
    tokens = _FROM_PAREN.sub("", text.strip()).replace('"', " ").replace("“", " ").replace("”", " ").split()
    run = capital_run(tokens, _LOWER_OK, comma_ends=True)
    name = " ".join(run + _lower_tail(tokens, len(run))).strip(" ,;:")
    first = name.split()[0].lower() if name else ""
    # "In 1931 she ...", "He ...", "The ..." alone: the sentence opens with no name
    return "" if (first in STOPWORDS and first != "the") or name.lower() == "the" else name


def _lower_tail(tokens: list[str], n: int) -> list[str]:
    """The lower-case word that ends a name, when the sentence goes straight on to say what
    the name is: "Silene menziesii is a species" (a species is not its genus, Silene), "Silene
    latifolia (formerly ...", "Silene tomentosa, the Gibraltar campion, is"."""
    if not 0 < n < len(tokens) or tokens[n - 1].endswith(",") or not content_keys(" ".join(tokens[:n])):
        return []  # "The opera was ..." opens with no name
    word = tokens[n].rstrip(",")
    after = tokens[n + 1].lower() if n + 1 < len(tokens) else ""
    said = tokens[n].endswith(",") or after in _COPULAS or n + 1 == len(tokens)
    return [tokens[n]] if said and word.isalpha() and word.islower() and word not in STOPWORDS else []


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
    name what that paragraph is about and the evidence does not already span two paragraphs:
    one of another paragraph naming it, else the hop the other way (:func:`_named_by`)."""
    if len({s.chunk_id for s in evidence}) != 1:
        return None
    chunk = evidence[0].chunk_id
    first = min((x for x in pool.sentences if x.chunk_id == chunk), key=lambda x: x.ord)
    name = opening_name(first.text)  # what the paragraph is about (as :func:`subject`)
    q_keys = content_keys(question)
    if not name or content_keys(name) <= q_keys:
        return None
    # a person's page opens "Richard Milhous Nixon (January 9, 1913 – ...)": others may name
    # him by his last name alone ("during the Nixon administration")
    person = re.match(rf"{re.escape(name)},?\s*\([^)]*\b(?:1\d|20)\d\d\b", first.text) is not None
    best: tuple[tuple[int, int], Sentence] | None = None
    for n in _variants(name) + ([name.split()[-1]] if person and len(name.split()) > 1 else []):
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
    return _named_by(pool, q_keys, evidence[0])


def _named_by(pool: EvidencePool, q_keys: frozenset[str], ev: Sentence) -> Sentence | None:
    """The hop the other way: the evidence names someone ("initiated by Mikhail Gorbachev")
    whom the question only describes ("a former Soviet statesman"); the sentence of that
    person's own document sharing the most words with the question, at least two."""
    about, text = subjects(pool), content_keys(ev.text)
    names = {s.doc_id: about(s) for s in pool.sentences if s.doc_id != ev.doc_id}
    # a name's first two words alone ("The Office" of the Office of Population Affairs) name
    # nothing
    forms = {d: [content_keys(v) for v in _variants(name, first_two=False)] for d, name in names.items() if name}
    # a name the question holds is no hop it leaves out
    hops = {d for d, keys in forms.items() if not any(k <= q_keys for k in keys) and any(k <= text for k in keys)}
    best: tuple[int, Sentence] | None = None
    for t in (s for s in pool.sentences if s.doc_id in hops):
        shared = len((content_keys(t.text) - content_keys(names[t.doc_id])) & q_keys)
        if shared >= 2 and (best is None or shared > best[0]):
            best = (shared, t)
    return None if best is None else best[1]


def _variants(name: str, first_two: bool = True) -> list[str]:
    """A name as other texts shorten it: "Henry John Kaiser" is "Henry J. Kaiser" or "Henry
    Kaiser" (first two words, first and last)."""
    parts = name.split()
    return [name, *([" ".join(parts[:2])] if len(parts) > 2 and first_two else []),
            *([f"{parts[0]} {parts[-1]}"] if len(parts) > 2 and parts[0].lower() not in STOPWORDS else [])]


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


def same_name(name: str, option: str) -> bool:
    """Whether ``name`` is the option's name: the same words, or the option's first and last
    words around more ("Giuseppe Fortunino Francesco Verdi" for Giuseppe Verdi)."""
    have, want = words(name), words(option)
    if not want or not content_keys(name):
        return False
    if content_keys(name) == content_keys(option):
        return True
    return len(want) >= 2 and have[:1] == want[:1] and have[-1:] == want[-1:] and set(want) <= set(have)


def docs_named(pool: EvidencePool, name: str) -> set[int]:
    """The documents about ``name`` by name: their opening sentence opens with it, or with it in
    full (:func:`same_name`), not with a longer name holding it ("Teatro Giuseppe Verdi")."""
    about = subjects(pool)
    docs = {s.doc_id: about(s) for s in pool.sentences}
    return {d for d, subject_name in docs.items() if same_name(subject_name, name)}
