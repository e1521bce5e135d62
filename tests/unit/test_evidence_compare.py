""""Which came first, A or B?": the answer is judged by the order of the options' dates."""

from __future__ import annotations

import re

import pytest

from gechat.evidence import compare
from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.types import Chunk, Sentence
from tests.unit.test_evidence_objective import Scripted, selector

PEOPLE = [
    "Alpha Smith (born 3 May 1950) is a painter. She lives in Leeds.",
    "Beta Jones (1 June 1940 – 2 March 2001) was a poet. Jones wrote about Alpha Smith in 1990.",
]
FILMS = [
    "Red Sky is a 1990 film directed by Carol White and starring Dan Brown.",
    "Carol White (12 July 1961 – 4 May 2020) was a director.",
    "Blue Moon is a 1950 film starring Eve Black. It was directed by Hugo Grey.",
    "Hugo Grey (born 1935) is a director. Dan Brown (born 1920) is an actor.",
]


def docs_pool(docs: list[str]) -> EvidencePool:
    """One chunk per document, split into sentences at ". "."""
    sents, chunks = [], {}
    for d, text in enumerate(docs, 1):
        spans = [(m.start(), m.end()) for m in re.finditer(r"[^ ].*?\.(?= |$)", text)]
        ids = []
        for k, (a, b) in enumerate(spans):
            sents.append(Sentence(id=len(sents) + 1, doc_id=d, chunk_id=d, ord=k, page=1, start=a, end=b,
                                  text=text[a:b]))
            ids.append(len(sents))
        chunks[d] = Chunk(id=d, doc_id=d, ord=0, start=0, end=len(text), text=text, sentence_ids=ids)
    return EvidencePool(sentences=sents, chunks=chunks, titles={d: f"doc{d}" for d in chunks})


def test_parse_reads_options_direction_event_and_role() -> None:
    c = compare.parse("Who is younger, Alpha Smith or Beta Jones?")
    assert c == compare.Comparison(("Alpha Smith", "Beta Jones"), latest_wins=True, death=False, role=None)
    c = compare.parse("Which film has the director died first, Red Sky or Blue Moon?")
    assert c == compare.Comparison(("Red Sky", "Blue Moon"), latest_wins=False, death=True, role="director")
    c = compare.parse("Was David Fennario or Peter Falck born first?")
    assert c is not None and c.options == ("David Fennario", "Peter Falck") and not c.latest_wins
    # the question's own words, not the options', give the direction
    c = compare.parse("Which magazine was started first, Arthur's Magazine or First for Women?")
    assert c is not None and c.options == ("Arthur's Magazine", "First for Women") and not c.latest_wins
    # an option may hold a comma ("Now, Voyager"), also inside a claim that quotes the question
    c = compare.parse('The answer to the question "Which film has the director born later, A Demon For Trouble '
                      'or Now, Voyager?" is: Now, Voyager')
    assert c == compare.Comparison(("A Demon For Trouble", "Now, Voyager"), latest_wins=True, death=False,
                                   role="director")
    c = compare.parse("Which film has the director who died later, The More The Merrier or Sleep, My Love?")
    assert c is not None and c.options == ("The More The Merrier", "Sleep, My Love") and c.death
    # "which author": the options are authors, not works with one
    c = compare.parse("Which author was born first, Lorraine Hansberry or Sandra Gulland?")
    assert c == compare.Comparison(("Lorraine Hansberry", "Sandra Gulland"), latest_wins=False, death=False, role=None)
    # no comma after the word of order, before a capital
    c = compare.parse("Who was born first Neil LaBute or H. Bruce Humberstone?")
    assert c is not None and c.options == ("Neil LaBute", "H. Bruce Humberstone")
    assert compare.parse("Which came first the film or the book?") is None
    assert compare.parse("Who directed Jaws?") is None
    assert compare.parse("Which is larger, Alpha or Beta?") is None  # not an order in time
    assert compare.parse("Who lived longer, Alpha Smith or Beta Jones?") is None


def test_dates_and_the_event_date() -> None:
    assert [d for _, d in compare.dates("18 May 1836, May 15, 1954, March 1901 and 1975.")] == [
        (1836, 5, 18), (1954, 5, 15), (1901, 3, 0), (1975, 0, 0)]
    assert compare.dates("Marco 2002 and 12345") == [(6, (2002, 0, 0))]
    span = "Herbert Leeds (1900 – May 15, 1954) was a director."
    assert compare.event_date(span, death=False) == (1900, 0, 0)
    assert compare.event_date(span, death=True) == (1954, 5, 15)
    assert compare.event_date("In 2007 he died in Geneva in 2011.", death=True) == (2011, 0, 0)
    assert compare.event_date("Made in 1990, she was born in 1961.", death=False) == (1961, 0, 0)
    assert compare.event_date("Born in 1950.", death=True) is None
    assert compare.event_date("No dates here.", death=False) is None
    # an initial is not "died"
    assert compare.event_date("John D. Hale (born 1901) met him in 1950.", death=True) is None
    assert compare.event_date("Bernard Ray (November 18, 1895 - December 10, 1964) was.", death=True) == (1964, 12, 10)
    assert compare.event_date("Nietzchka Keene (1952–2004) was.", death=True) == (2004, 0, 0)
    assert compare.event_date("Anne-Marie Ray (1900) was.", death=True) is None


def test_order_of_dates() -> None:
    assert compare.order((1950, 5, 3), (1940, 6, 1)) == 1
    assert compare.order((1950, 5, 3), (1950, 6, 1)) == -1
    assert compare.order((1950, 0, 0), (1950, 6, 1)) == 0  # same year, month unknown: cannot tell
    assert compare.order((1950, 6, 1), (1950, 6, 1)) == 0


def test_which_option_a_claim_names() -> None:
    question = "Who is younger, Alpha Smith or Beta Jones?"
    c = compare.parse(question)
    assert c is not None

    def claimed(text: str, given: str = question) -> int | None:
        return compare.claimed_option(ClaimInput(text=text, source="answer", given=given), c)

    assert claimed("Alpha Smith is younger.") == 0
    assert claimed("Beta Jones is older.") == 0  # named, but as the other end of the order
    assert claimed("The answer is Beta Jones.", given="The answer is ") == 1
    # both named: it is said of the first
    assert claimed("Alpha Smith is younger than Beta Jones.") == 0
    assert claimed("Beta Jones was born earlier than Alpha Smith.") == 0
    assert claimed("Beta Jones is younger than Alpha Smith.") == 1
    assert claimed("Alpha Smith and Beta Jones are painters.") is None
    assert claimed("Alpha Smith was born in 1950.") is None  # a fact about one option, not the answer
    assert claimed("Nobody knows.") is None
    later = compare.parse("Which was started later, Arthur's Magazine or First for Women?")
    assert later is not None
    claim = ClaimInput(text="It is First for Women.", source="answer", given="")
    assert compare.claimed_option(claim, later) == 1  # its "first" is part of the name


def test_the_answer_is_judged_by_the_order_of_the_dates() -> None:
    p = docs_pool(PEOPLE)
    given = "Who is younger, Alpha Smith or Beta Jones?"
    claims = [ClaimInput(text=t, source="answer", given=given) for t in ("Alpha Smith is younger.", "Beta Jones.")]
    right, wrong = selector(Scripted({}), compare=True).select(claims, p)
    assert right.verdict == "supported" and wrong.verdict == "contradicted"
    for claim in (right, wrong):
        assert [e.text for e in claim.evidence] == [PEOPLE[0].split(" She")[0], PEOPLE[1].split(" Jones wrote")[0]]
        assert claim.note == "Alpha Smith: 3 May 1950; Beta Jones: 1 June 1940; the later is Alpha Smith"
    # without the rule the entailment model decides, and here it sees nothing that entails
    assert selector(Scripted({}), compare=False).select(claims[:1], p)[0].verdict == "unsupported"
    # a reasoning step is a fact, not the answer: the model judges it
    step = ClaimInput(text="Alpha Smith is younger.", source="thought", given=given)
    assert selector(Scripted({}), compare=True).select([step], p)[0].note == ""


def test_a_person_of_each_option_is_found_through_it() -> None:
    p = docs_pool(FILMS)
    given = "Which film has the director born later, Red Sky or Blue Moon?"
    claims = [ClaimInput(text="Red Sky", source="answer", given=given)]
    (claim,) = selector(Scripted({}), compare=True).select(claims, p)
    assert claim.verdict == "supported"
    # the director's date, not the actor's nor the film's; "It was directed by" is the next sentence
    assert claim.note == "Red Sky: 12 July 1961; Blue Moon: 1935; the later is Red Sky"
    texts = [e.text for e in claim.evidence]
    assert texts[0] == FILMS[0] and "Carol White (12 July 1961" in texts[1]
    assert "Blue Moon is a 1950 film starring Eve Black. It was directed by Hugo Grey." in texts
    assert any(t.startswith("Hugo Grey (born 1935)") for t in texts)
    assert not any("Dan Brown (born" in t for t in texts)


def test_a_name_of_stopwords_only_is_found_nowhere() -> None:
    assert compare.mentions(docs_pool(PEOPLE), "The Who") == []


@pytest.mark.parametrize("docs", [
    PEOPLE[:1],  # no sentence about the second option: the model decides
    ["Alpha Smith (born 1950) is a painter.", "Beta Jones (born in 1950) was a poet."],  # same year: cannot tell
])
def test_no_verdict_from_dates_it_cannot_order(docs: list[str]) -> None:
    given = "Who is younger, Alpha Smith or Beta Jones?"
    claim = ClaimInput(text="Alpha Smith is younger.", source="answer", given=given)
    (out,) = selector(Scripted({}), compare=True).select([claim], docs_pool(docs))
    assert out.note == "" and out.verdict == "unsupported"


def test_two_people_of_one_name_leave_it_to_the_model() -> None:
    docs = [*PEOPLE, "Kenton Beta Jones (born 26 July 1999) is a footballer."]
    given = "Who is younger, Alpha Smith or Beta Jones?"
    claim = ClaimInput(text="Alpha Smith is younger.", source="answer", given=given)
    (out,) = selector(Scripted({}), compare=True).select([claim], docs_pool(docs))
    assert out.note == ""
    # a book named after him is not a second person: it gives no life date
    docs = [*PEOPLE, "Eve x Beta Jones is a 2011 photo-book."]
    (out,) = selector(Scripted({}), compare=True).select([claim], docs_pool(docs))
    assert out.verdict == "supported" and "Beta Jones: 1 June 1940" in out.note


def test_the_document_about_the_option_tells_its_date_first() -> None:
    # eight sentences name "Carl Moss" as written before his own opening sentence, which
    # writes his middle name; one of them is followed by a year that is no birth date
    season = [f"In week {i}, Carl Moss was hired again as coach." for i in range(2, 10)]
    docs = [" ".join(["The 1989 Falcons season was a poor one.", *season, "It ended in 1989."]),
            "Carl Andrew Moss (born October 14, 1941) is a former coach.",
            "Dora Finch (born 17 January 1961) is a former player."]
    p = docs_pool(docs)
    found = compare.find(p, "Carl Moss", compare.Comparison(("Carl Moss", "Dora Finch"), True, False, None))
    assert found is not None and found.value == (1941, 10, 14)
