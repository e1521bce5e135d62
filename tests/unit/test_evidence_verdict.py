"""The verdict step: a contradiction only from a sentence about what the claim is about."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.candidates import Candidates
from gechat.evidence.scoring import NliScores
from gechat.evidence.steps import ClaimState
from gechat.evidence.verdict import Verdicts
from tests.unit.test_evidence_objective import Scripted, context


def test_a_contradiction_must_name_what_the_claim_is_about() -> None:
    # the NLI model calls a neighbouring film's director a contradiction; a reader could not check it
    kettle = "Ma and Pa Kettle at Waikiki is a 1955 American comedy film directed by Lee Sholem."
    roth = "Henry Roth was an American novelist and short story writer."
    revolver = "Revolver is a 2005 British crime thriller film directed by Guy Ritchie."
    heinz = "Heinz in the Moon is a 1934 German comedy film directed by Robert A. Stemmle."
    cbi = "CBI is commercial or financial information that is treated as private by its owner."
    fee = "The Federal fee for sending comments by mail is $5."
    sunset = "Midnight Road is an American romantic drama film."
    # a title the parse reads as a clause is the subject: the sentence is about the song
    song = "\"These Boots Are Made for Walkin' is a hit song written by Lee Hazlewood and recorded by Nancy Sinatra."
    ctx = context(Scripted({kettle: (0.01, 0.8), roth: (0.01, 0.7), revolver: (0.01, 0.8), heinz: (0.01, 0.8),
                            cbi: (0.03, 0.62), fee: (0.01, 0.7), sunset: (0.01, 0.8), song: (0.02, 0.74)}))
    steps = "The document provides instructions for sending comments, including the Federal Portal, fax, and mail."
    cases = (("Malibu Express is directed by Lee Sholem.", "", kettle, "unsupported"),
             # named in passing: the sentence is about the film, not about its director
             ("Robert A. Stemmle died in 1967.", "", heinz, "unsupported"),
             ("Lee Hazlewood died in 2007.", "", song, "unsupported"),
             ("Henry Roth was from England.", "", roth, "contradicted"),
             # the wrong answer is the subject; the film the question names is what it is about
             ("Steven Spielberg directed Revolver.", "Who directed Revolver?", revolver, "contradicted"),
             ("Steven Spielberg directed Revolver.", "", revolver, "unsupported"),
             # the asked film inside what the claim is about only says whose composer it is
             ("The composer of film Midnight Road studied in Vienna.", "Where did the composer of film Midnight "
              "Road study?", sunset, "unsupported"),
             # a claim about the document names what it is about nowhere: a candidate must
             # state one of its names
             (steps, "How can comments be sent?", cbi, "unsupported"),
             (steps, "How can comments be sent?", fee, "contradicted"))
    for claim, question, premise, verdict in cases:
        ctx.pool = EvidencePool.from_texts([premise])
        ctx.pool.sentences[0].context = "Proposed Rules Federal Register"  # names "Federal"
        st = ClaimState(claim=ClaimInput(text=claim, source="answer", given=question))
        Candidates(60).run([st], ctx)
        NliScores().run([st], ctx)
        Verdicts(overlap=True).run([st], ctx)
        assert st.verdict == verdict, claim
