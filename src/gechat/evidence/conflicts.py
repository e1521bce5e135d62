"""Step ``values``: a claim whose value differs from the one a sentence states for the same
thing is contradicted, and the reader sees both values.

An entailment model reads "$35.0 billion" against "Net sales were $32.8 billion in 2018" as
merely not entailed; a reader calls it wrong. For a claim no evidence supports, a candidate
sentence (one the model has read) conflicts when it speaks of the same thing (it holds most
of the claim's content words and every year the claim names, and names nothing the claim
does not: "Net sales in Asia" is a part) and states values of the same kind (amounts,
percentages, counts), none agreeing with the claim's (``gechat.evidence.values.agree``:
forms, rounding and hedges allowed); and no sentence about the same thing states the claim's
value. Years are not compared: they say which value. A table row is read as its label and
the columns of the claim's years ("Net income | 2017: $ 4,869" of a three-year row); a
line of many figures with no column headers could be another row's value and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gechat.documents.headings import SEPARATOR
from gechat.documents.tables import row_label, row_unit
from gechat.evidence.base import ClaimInput
from gechat.evidence.dates import years
from gechat.evidence.framing import as_changes, states_change
from gechat.evidence.steps import ClaimState, EvidenceContext, active
from gechat.evidence.values import Quantity, agree, claimed, comparable, narrow, quantities, stated
from gechat.lexical import CLAUSE_NUMBER, LOCATOR, META, content_keys, fact_keys, number_keys, spelled_keys
from gechat.types import Sentence

MIN_SHARE = 0.6  # of the claim's content words the sentence must hold to speak of the same thing
MAX_VALUES = 4  # a sentence with more comparable values than this is a table row of many


class ValueConflicts:
    name = "values"

    def run(self, states: list[ClaimState], ctx: EvidenceContext) -> None:
        for state in active(states):
            if state.probs is None or state.f is None:
                continue
            found = conflict(state)
            # a passage that supports the claim but is not about its quantity loses to the one
            # that is and states another value: "3.2 ... uncured thirty (30) days after written
            # notice" is no evidence that invoices are due within 30 days where "2.2 Invoices
            # are due within forty-five (45) days" says otherwise
            if found is None or (state.passes and not _aside(state)):
                continue
            i, claimed, theirs = found
            state.verdict = "contradicted"
            state.evidence = [ctx.evidence(state.claim, [state.candidates[i]], state.probs[i], float(state.f[i]))]
            state.note = (f"the claim says {claimed.text}; the source says "
                          f"{' / '.join(q.text for q in theirs)}")


def conflict(state: ClaimState) -> tuple[int, Quantity, list[Quantity]] | None:
    """The candidate that states another value for the claim's quantity (its index), the
    claim's value and the sentence's values; the one sharing the most words first. None when
    any sentence about the same thing states the claim's value."""
    return conflict_in(state.claim, [s.text for s in state.candidates], known_names(state.candidates))


def conflict_in(claim: ClaimInput, texts: Sequence[str],
                known: frozenset[str] = frozenset()) -> tuple[int, Quantity, list[Quantity]] | None:
    """``conflict`` among ``texts``: the one of them that states another value for the claim's
    quantity (its index), the claim's value and the text's values. ``known``: words that name
    nothing the claim must say (``known_names``)."""
    values, about = _about(claim, texts)
    said = content_keys(claim.text) | known
    # a level is not read against a change: "Net sales increased by $150 million" says nothing
    # of net sales of $14,694 million
    level = not states_change(claim.answer())
    best: tuple[float, int, Quantity, list[Quantity]] | None = None
    for i, text, share in about:
        if _names_more(text, said):
            continue
        changes = as_changes(text) if level else frozenset()
        said_there = tuple(q for q in stated(text) if q.key not in changes)
        if any(agree(c, q) for c in values for q in said_there):
            return None  # some sentence about the same thing states the claim's value
        # a value the sentence writes as a word of its own ("3M" in "attributable to 3M") is a name there
        found = _differs([c for c in values if c.text not in text], said_there)
        if found is not None and (best is None or share > best[0]):
            best = (share, i, *found)
    return None if best is None else best[1:]  # type: ignore[return-value]


def _aside(state: ClaimState) -> bool:
    """Whether no sentence of the claim's evidence speaks of the claim's quantity. A table row
    is read by the checks of its label, columns and values, not by its words' share: "Net sales |
    2023: $ 14,694" speaks of Amcor's net sales in fiscal 2023."""
    shown = [s.text for e in state.evidence for s in e.sentences]
    return not any(row_label(t) is not None for t in shown) and not _about(state.claim, shown)[1]


def stated_elsewhere(state: ClaimState) -> bool:
    """Whether a candidate about the claim's quantity states the claim's value: then no other
    sentence's reading makes it wrong."""
    values, about = _about(state.claim, [s.text for s in state.candidates])
    return any(agree(c, q) for _, text, _ in about for c in values for q in stated(text))


def _about(claim: ClaimInput, texts: Sequence[str]) -> tuple[list[Quantity], list[tuple[int, str, float]]]:
    """The claim's values, and the texts that speak of its quantity (most of its content
    words, every year it names): index, the text as read (a table row: the columns of the
    claim's years), the share of the claim's content words it holds."""
    values = claimed(claim.answer(), claim.given)
    wanted = topic(claim.text)
    if not values or not wanted:
        return values, []
    when = years(claim.text)
    about = []
    for i, t in enumerate(texts):
        text = narrow(t, when)
        share = len(wanted & content_keys(text)) / len(wanted)
        if share >= MIN_SHARE and when <= years(text):
            about.append((i, text, share))
    return values, about


def topic(claim: str) -> frozenset[str]:
    """What ``claim`` speaks of: its content words, not its numbers, not the words of its
    values ("million" of "$4,331 million": a sentence of other millions is not thereby about
    the same thing), nor words about documents and reading, nor numbers in words ("two" of
    "two (2) months": a sentence of "twelve (12) months" may speak of the same thing)."""
    worded = content_keys(" ".join(q.text for q in quantities(claim))) | spelled_keys(claim)
    return frozenset(k for k in content_keys(claim) - META - worded if not k[:1].isdigit())


def off_topic_figures(state: ClaimState) -> list[bool]:
    """Per candidate: whether it states values of the kind the claim states without speaking
    of the claim's quantity (``_about``). The entailment model reads such a sentence by its
    digits ("Changes in foreign exchange rates impacted operating income by $264 million ..."
    contradicted AWS's operating income of $4,331 million at 0.53), so its contradiction is no
    verdict a reader could check; the value check decides for the sentences that are about it.
    A candidate that states no value at all cannot show the claim's value wrong either: a
    table's header line ("Action Labor cost Parts cost Cost per product") "contradicted" "Parts
    cost: $0" at 0.6."""
    values, about = _about(state.claim, [s.text for s in state.candidates])
    if not values:
        return [False] * len(state.candidates)
    near = {i for i, _, _ in about}
    told = [stated(s.text) for s in state.candidates]
    return [not said or (i not in near and any(comparable(c, q) for c in values for q in said))
            for i, said in enumerate(told)]


# a term the text defines: '(the "Agreement")', '("Provider")', '(each, a "Party")'
_DEFINES = re.compile(r"\((?:the |an? |each,? an? |collectively,? the )?[\"“]([A-Z][^\"”()]{0,40})[\"”]\)")


def known_names(sents: Sequence[Sentence]) -> frozenset[str]:
    """Words that name nothing a claim must say: those of the documents' titles (every sentence
    of a document is about it: "The Agreement renews ..." under "Master Services Agreement")
    and of the terms the text defines ('... (the "Agreement")', '("Provider")')."""
    titles = {s.context.split(SEPARATOR)[0] for s in sents if s.context}
    defined = [m.group(1) for s in sents for m in _DEFINES.finditer(s.text)]
    return frozenset().union(*(content_keys(t) for t in [*titles, *defined]))


def _names_more(text: str, said: frozenset[str]) -> bool:
    """Whether a sentence names something the claim does not ("Net sales in Asia"): then it
    speaks of a part or another thing, whose value may differ. A table's unit ("(Dollars in
    millions)") names nothing."""
    # "Section 4", "Table 2" and a clause's own number say where something is written, not what
    # it is about (and "5.1 Except for ..." opens its sentence with "Except")
    text = CLAUSE_NUMBER.sub("", LOCATOR.sub(" ", text.removesuffix(row_unit(text))))
    return bool(fact_keys(text) - number_keys(text) - said)


def _differs(claimed: list[Quantity], theirs: tuple[Quantity, ...]) -> tuple[Quantity, list[Quantity]] | None:
    """The claim's first value with values of its kind in the sentence (none agreeing)."""
    for c in claimed:
        # of values of the claim's own kind where it has some: "4%" for "10%", not the "(60)" days beside it
        same_kind = [q for q in theirs if q.kind == c.kind] or [q for q in theirs if comparable(c, q)]
        if same_kind and len(same_kind) <= MAX_VALUES:
            return c, same_kind
    return None
