"""Step ``verdict``: supported, contradicted or unsupported, from what the model read.

Supported when the evidence found passes (entails the claim and holds its names and
numbers). Otherwise contradicted when some candidate's P_contradiction reaches the
contradicted threshold; with ``overlap``, only a candidate that shares a word with the claim
counts, since an NLI model calls unrelated text a contradiction (a different scene
"contradicts" in its training pairs) and a reader could not check such a verdict; words about
documents and reading are no shared word ("The excerpt clearly states ..." and "IN THE SUPREME
COURT OF THE UNITED STATES"); and not
when a candidate about the claim's quantity states the claim's value. Otherwise
unsupported, with the closest sentence still shown and the names and numbers it lacks.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gechat.documents.headings import nearest_heading
from gechat.documents.tables import row_label
from gechat.evidence.base import ClaimInput, fragment_of
from gechat.evidence.conflicts import off_topic_figures, stated_elsewhere
from gechat.evidence.steps import ClaimState, EvidenceContext, active, headings_of
from gechat.evidence.subjects import about_keys, before_verb, subject_of
from gechat.lexical import META, content_keys, name_groups, name_words, number_keys, words
from gechat.models.entail.base import CONTRADICTION
from gechat.types import Sentence


class Verdicts:
    name = "verdict"

    def __init__(self, overlap: bool = True) -> None:
        self.overlap = overlap

    def run(self, states: list[ClaimState], ctx: EvidenceContext) -> None:
        for state in active(states):
            if state.passes:
                state.verdict = "supported"
                continue
            if state.probs is not None and len(state.candidates):
                contra = state.probs[:, CONTRADICTION].astype(np.float64)
                if self.overlap:  # read only what could contradict: the check parses sentences
                    shares = _sharing(state.claim)
                    contra = np.where([c >= ctx.contradicted and shares(s)
                                       for c, s in zip(contra, state.candidates, strict=True)], contra, -1.0)
                contra = np.where(off_topic_figures(state), -1.0, contra)
                worst = int(np.argmax(contra))
                # the model reads a row by its digits: "Net income ... basic | 2018: 9.09"
                # contradicts "net income was $5,349 million" beside the row that states it
                if contra[worst] >= ctx.contradicted and not stated_elsewhere(state):
                    assert state.f is not None
                    state.verdict = "contradicted"
                    state.evidence = [ctx.evidence(state.claim, [state.candidates[worst]], state.probs[worst],
                                                   float(state.f[worst]))]
            if state.verdict is None:
                state.verdict = "unsupported"
            ev = state.evidence
            # a table row alone is checked as a row (its quantity in its label or headings)
            shown = ev[0].text if len(ev) == 1 and row_label(ev[0].text) is not None \
                else " ".join(f"{e.context} {e.text}" for e in ev)
            state.missing = ctx.missing(state.claim, shown, headings_of([s for e in ev for s in e.sentences]))


def _sharing(claim: ClaimInput) -> Callable[[Sentence], bool]:
    """Whether a candidate speaks of what the claim does, so that its contradiction is one a
    reader can check: a word of the claim beyond words about documents and, where the claim
    names something, one of its names (in the candidate's words or nearest heading). "The BERT
    model architecture ... uses multiple layers" shares only "uses" with "SPECTER uses SciBERT
    as its foundation", and "contradicted" it at 0.71. And it names what the claim is about:
    the subject of what the claim says ("subjects.about_keys"), or a name the claim repeats
    from the question. "Ma and Pa Kettle at Waikiki is a 1955 American comedy film directed by
    Lee Sholem" is no contradiction of "Malibu Express is directed by Lee Sholem", nor "She is
    a film director" (under "Dana Blankstein") of "Michael Rubbo received the National Film
    Board of Canada Award"; "Revolver is a 2005 ... film ... directed by Guy Ritchie" is one of
    "Steven Spielberg directed Revolver" asked who directed Revolver. The claim's words are read once."""
    said = claim.answer()
    about = about_keys(said)
    question = frozenset(words(claim.given))
    asked = [g for g in name_groups(said) if g <= question]
    # a name inside what the claim is about ("The auditor of Acme Corp resigned in 2020") says
    # whose auditor, not that a sentence about Acme speaks of the auditor; a sentence about a
    # film had contradicted a claim about where the film's director died (0.84)
    if fragment_of(claim.given, claim.text) is None:
        inside = frozenset(words(before_verb(said))) if about else frozenset()
        asked = [g for g in asked if not g <= inside]
    keys = content_keys(claim.text) - META
    names = name_words(claim.text) - number_keys(claim.text)
    # a sentence whose subject is a pronoun or the document ("The document provides specific
    # instructions for sending comments, including ... fax, and mail") names what it is about
    # nowhere: only a candidate that states one of its names speaks of the same thing (a
    # definition of confidential business information had "contradicted" that step at 0.62)
    unsaid = not about and not asked and fragment_of(claim.given, claim.text) is None

    def shares(s: Sentence) -> bool:
        if not keys & content_keys(s.text) or (unsaid and not names & frozenset(words(s.text))):
            return False
        # the nearest heading, not the title above it: every sentence of a paper sits under its name
        heading = nearest_heading(s.context)
        read = f"{heading} {s.text}"
        if names and not names & frozenset(words(read)):
            return False
        topic = f"{heading} {subject_of(s.text)}"
        named = frozenset(words(topic))
        return about <= content_keys(topic) or any(g <= named for g in asked)

    return shares
