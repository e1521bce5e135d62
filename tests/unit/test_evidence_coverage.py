"""The coverage rule: a supported claim's names and numbers are in its evidence (or the question)."""

from __future__ import annotations

from gechat.answer.base import Draft
from gechat.answer.claims import make_claims
from gechat.evidence import SELECTORS
from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.lexical import fact_keys, missing_words, number_keys, uncovered
from gechat.models.entail.fake import FakeEntailment
from gechat.settings import Settings
from tests.unit.test_evidence_objective import TEXT, Scripted, pool, selector


def test_numbers_match_across_formats() -> None:
    assert number_keys("1,844 and 8.70, 3.50% and 280M") == {"1844", "8.7", "3.5", "280"}
    assert number_keys("1844 and 8.7 and 280 million") == {"1844", "8.7", "280"}
    assert number_keys("no digits") == frozenset()
    # counts in words are numbers too, from two on ("one of them" is no count)
    assert number_keys("four titles, Twenty-two players and one of them") == {"4", "22"}
    assert uncovered("The Pistons won four NBA titles.", "The Pistons have won three NBA titles.") == {"4"}
    assert missing_words("They won four titles.", "They won three titles.") == ["four"]
    assert uncovered("The Pistons won four NBA titles.", "The Pistons have won 4 NBA titles.") == frozenset()


def test_fact_keys_are_names_and_numbers() -> None:
    assert fact_keys("The graph of Semantic Scholar has 280M nodes.") == {"seman", "schol", "280"}
    assert fact_keys("the graph has nodes") == frozenset()
    # a sentence's first word is capitalised anyway: a name only when its shape says so
    assert fact_keys("Yes. Gross margin fell in FY2023. No, it rose.") == {"fy", "2023"}
    assert fact_keys("The answer is: Yes, it rose by 3%.") == {"3"}
    assert fact_keys("JnJ sold it. USA too.") == {"jnj", "usa"}
    # a name with a capital inside is one word, as written: not "Xiv" of "arXiv"
    assert fact_keys("Sources come from arXiv and the iPhone, not d'Alembert.") == {"arxiv", "iphon", "alemb"}


def test_a_name_written_in_mixed_case_is_covered_by_itself() -> None:
    evidence = "We process 1.5M papers from LATEX source derived from arXiv, all of which are in S2ORC."
    assert uncovered("Yes, S2ORC includes LaTeX sources from arXiv.", evidence) == frozenset()
    assert uncovered("Apple sold the iPhone 14 in eBay stores.", "Apple sold the iPhone 14.") == {"ebay"}


def test_uncovered_by_mode_and_given() -> None:
    claim = "The graph of Semantic Scholar has over 280 million nodes."
    evidence = "The resulting literature graph consists of more than 280M nodes."
    question = "How many nodes does the literature graph in Semantic Scholar have?"
    assert uncovered(claim, evidence, given=question) == frozenset()
    assert uncovered(claim, evidence) == {"seman", "schol"}  # the names come from the question only
    assert uncovered(claim, "The graph consists of 28M nodes.", given=question) == {"280"}
    assert uncovered(claim, evidence, given=question, mode="all") == {"over", "milli"}
    assert uncovered(claim, "", mode="off") == frozenset()


def test_a_name_of_several_words_is_not_covered_by_its_words_in_two_places() -> None:
    question = "What is the fight song of the university whose main campus is in Lawrence, Kansas?"
    claim = f"The answer to {question} is: Kansas Song"
    campus = "The main campus in Lawrence is one of the largest college towns in Kansas."
    # "song" is in the question, "Kansas" in the evidence, but the name is one thing
    assert uncovered(claim, campus, given=question) == {"song"}
    assert uncovered(claim, "Kansas Song is a fight song of the University of Kansas.", given=question) == set()
    # a name the question holds whole needs no evidence
    assert uncovered("Mount Oread is in Lawrence.", "Lawrence lies below Oread.",
                     given="Where is Mount Oread?") == frozenset()
    assert uncovered("Mount Oread is in Lawrence.", "Lawrence lies below Oread.") == {"mount"}


def test_missing_words_are_the_claims_own_words() -> None:
    claim = "In 1975 Steven Spielberg directed Jaws, and Jaws won 3 Oscars."
    assert missing_words(claim, "Jaws is a 1975 film.") == ["Steven", "Spielberg", "3", "Oscars"]
    given = "Who directed Jaws? Spielberg"
    assert missing_words(claim, "Jaws is a 1975 film.", given=given) == ["Steven", "3", "Oscars"]
    assert missing_words(claim, "Jaws is a 1975 film.", mode="off") == []


def test_a_passing_sentence_without_the_claims_number_does_not_support_it() -> None:
    p = pool()
    s = [x.text for x in p.sentences]
    claims = [ClaimInput(text="Beta was built in 1985.", source="answer")]
    scorer = Scripted({s[2]: (0.9, 0.0)})  # "... built in 1990 ...": the model misses the year
    assert selector(scorer).select(claims, p)[0].verdict == "supported"
    (claim,) = selector(scorer, coverage="facts").select(claims, p)
    assert claim.verdict == "unsupported" and claim.evidence[0].text == s[2]  # still shown: the reader sees why
    assert claim.missing == ["1985"]
    right = [ClaimInput(text="Beta was built in 1990.", source="answer")]
    assert selector(scorer, coverage="facts").select(right, p)[0].verdict == "supported"


def test_coverage_prefers_the_sentence_that_holds_the_name() -> None:
    p = pool()
    s = [x.text for x in p.sentences]
    claims = [ClaimInput(text="It is Gamma.", source="answer", given="What is it?")]
    # "Alpha is red." scores higher, but only "Gamma." holds the name the claim asserts
    scorer = Scripted({s[0]: (0.95, 0.0), s[3]: (0.6, 0.0)})
    assert [e.text for e in selector(scorer).select(claims, p)[0].evidence] == [s[0]]
    (claim,) = selector(scorer, coverage="facts").select(claims, p)
    assert claim.verdict == "supported" and [e.text for e in claim.evidence] == [s[3]]


def test_a_set_passes_only_when_it_covers_the_claim() -> None:
    p = pool()
    s = [x.text for x in p.sentences]
    claims = [ClaimInput(text="The Gamma of 1990 is Alpha.", source="answer")]
    red_big = TEXT[0:27]  # passes, but holds neither "Gamma" nor "1990"
    beta_gamma = TEXT[28:81]  # passes too, but lacks "Alpha"
    hop = f"{s[0]} {beta_gamma}"
    scorer = Scripted({s[0]: (0.4, 0.0), s[2]: (0.3, 0.0), s[3]: (0.3, 0.0), red_big: (0.9, 0.0),
                       beta_gamma: (0.5, 0.0), hop: (0.9, 0.0)})
    assert selector(scorer, set_top=4, set_max=2).select(claims, p)[0].verdict == "supported"
    (claim,) = selector(scorer, set_top=4, set_max=2, coverage="facts").select(claims, p)
    assert claim.verdict == "unsupported"  # every passing pair lacks a name or the year
    (three,) = selector(scorer, set_top=4, set_max=3, coverage="facts").select(claims, p)
    assert three.verdict == "supported" and [e.text for e in three.evidence] == [s[0], TEXT[28:81]]


def test_settings_turn_coverage_on_by_default_and_claims_carry_the_question() -> None:
    s = Settings.load("test")
    assert SELECTORS.create("nli-objective", s, scorer=FakeEntailment()).context.coverage == "facts"  # type: ignore[attr-defined]
    off = s.model_copy(update={"evidence_coverage": "off"})
    assert SELECTORS.create("nli-objective", off, scorer=FakeEntailment()).context.coverage == "off"  # type: ignore[attr-defined]
    draft = Draft(text="The graph has 280M nodes.", thoughts=["Semantic Scholar built the graph."], raw="")
    claims = make_claims(draft, from_thoughts=True, question="How big is the graph?")
    assert [c.given for c in claims] == ["How big is the graph?"] * 2


def test_last_size_sets_that_cannot_cover_the_claim_are_not_scored() -> None:
    p = pool()
    s = [x.text for x in p.sentences]
    claims = [ClaimInput(text="The Gamma of 1990 is Alpha.", source="answer")]
    table = {s[0]: (0.4, 0.0), s[2]: (0.3, 0.0), s[3]: (0.3, 0.0)}
    plain, checked = Scripted(table), Scripted(table)
    assert selector(plain, set_top=4, set_max=2).select(claims, p)[0].verdict == "unsupported"
    assert selector(checked, set_top=4, set_max=2, coverage="facts").select(claims, p)[0].verdict == "unsupported"
    # 4 singles, then pairs: none of the pairs holds "Alpha", "Gamma" and "1990" together
    assert (plain.calls, checked.calls) == (4 + 6, 4)


def test_a_fragment_answer_is_checked_as_the_answer_to_the_question() -> None:
    q = "What was the capital expenditure in FY2018?"
    draft = Draft(text="$1,577 million. Capital expenditure was $1,577 million in 2018.", thoughts=["$1,577 million"],
                  raw="")
    claims = make_claims(draft, from_thoughts=True, question=q)
    assert [c.text for c in claims] == [f'The answer to the question "{q}" is: $1,577 million.',
                                        "Capital expenditure was $1,577 million in 2018."]
    # a bare figure is the answer too; a bare word or a figure in a reasoning step is not
    bare = make_claims(Draft(text="6,701", thoughts=["1,577"], raw=""), from_thoughts=True, question=q)
    assert [c.text for c in bare] == [f'The answer to the question "{q}" is: 6,701']
    assert make_claims(Draft(text="Yes.", thoughts=[], raw=""), from_thoughts=False, question=q) == []
    # so is a bare name: "Carlo Rovelli" had no claim, and so no verdict at all
    who = "Who wrote Seven Brief Lessons on Physics?"
    name = make_claims(Draft(text="Carlo Rovelli", thoughts=["Rovelli"], raw=""), from_thoughts=True, question=who)
    assert [c.text for c in name] == [f'The answer to the question "{who}" is: Carlo Rovelli']
    assert make_claims(Draft(text="rovelli", thoughts=[], raw=""), from_thoughts=False, question=who) == []
    # a figure and a plural ending in -es ("stores" reads like a verb) is no sentence either
    stores = make_claims(Draft(text="168 stores", thoughts=[], raw=""), from_thoughts=False, question=q)
    assert [c.text for c in stores] == [f'The answer to the question "{q}" is: 168 stores']
    # without a question there is nothing to read it against: kept as written
    assert make_claims(Draft(text="$1,577 million.", thoughts=[], raw=""), from_thoughts=False)[0].text == \
        "$1,577 million."


def test_a_numbered_answers_list_mark_is_not_part_of_its_claims() -> None:
    draft = Draft(text="1. The balance sheet shows $8,738 million.\n2) Net income was $5,349 million.", thoughts=[])
    assert [c.text for c in make_claims(draft, from_thoughts=False)] == [
        "The balance sheet shows $8,738 million.", "Net income was $5,349 million."]
    # a year that opens a sentence stays
    assert make_claims(Draft(text="2018 was the best year for sales.", thoughts=[]), from_thoughts=False)[0].text == \
        "2018 was the best year for sales."


def test_a_title_written_out_holds_its_initials_and_a_passenger_lending_them_is_no_part() -> None:
    from gechat.evidence.sets import contributes
    from gechat.lexical import acronyms, content_keys, uncovered

    cert = "Certification of Jeffrey P. Bezos, Chairman and Chief Executive Officer of Amazon.com, Inc."
    assert {"ceo", "sec", "aws"} <= acronyms(f"{cert} to the Securities and Exchange Commission; Amazon Web Services")
    assert not uncovered("Jeffrey P. Bezos is the CEO of Amazon.com.", cert)
    # the initials of a claim's own name ask nothing of the evidence
    assert not uncovered("Jeffrey P. Bezos founded it.", "Mr. Jeffrey P. Bezos founded it.", mode="all")
    # "Andrew R. Jassy 50 CEO Amazon Web Services" lent "CEO" to the certification: no more
    jassy, bezos = EvidencePool.from_texts(["Andrew R. Jassy 50 CEO Amazon Web Services", cert]).sentences
    assert not contributes(content_keys("The excerpts state that Jeffrey P. Bezos is the CEO of Amazon.com."),
                           [jassy, bezos])


def test_a_locators_number_is_no_figure_of_the_text() -> None:
    claim = "The margin used in SPECTER's triplet loss is 1."
    figure = "Figure 1: Overview of SPECTER. We then train the model using the following triplet margin loss function:"
    assert uncovered(claim, figure, mode="facts") == {"1"}
    assert not uncovered(claim, "For SPECTER we use a margin m=1 (Figure 1).", mode="facts")
    assert not uncovered("Table 2 lists 44 papers.", "Table 2: the 44 papers we read.", mode="facts")


def test_the_option_a_claim_chooses_is_not_covered_by_the_question_offering_it() -> None:
    asked = "Which of Amcor's segments, Flexibles or Rigid Packaging, had the highest net sales in fiscal 2023?"
    evidence = "In fiscal year 2023, Flexibles accounted for approximately 76% of consolidated net sales."
    assert uncovered("Rigid Packaging had the highest net sales in fiscal 2023.", evidence, given=asked) == {"rigid",
                                                                                                         "packa"}
    assert not uncovered("Flexibles had the highest net sales in fiscal 2023.", evidence, given=asked)
    # the options the claim does not choose, and the question's other names, stay covered by it
    assert not uncovered("Of Amcor's segments, Flexibles had the highest net sales.", evidence, given=asked)
    # a claim that quotes its question is read for what it adds
    quoted = f'The answer to the question "{asked}" is: '
    assert uncovered(quoted + "Rigid Packaging", evidence, given=quoted) == {"rigid", "packa"}
    assert not uncovered(quoted + "Flexibles", evidence, given=quoted)
    # numbers offered as options too
    assert uncovered("The lease ends in 2026.", "The lease ends in 2025.", given="Does the lease end in 2025 or 2026?")


def test_a_sentence_about_it_is_named_by_its_heading() -> None:
    from gechat.evidence.steps import holds

    claim = ClaimInput(text="Ma and Pa Kettle is the sequel to The Egg and I.", source="answer")
    sentence = 'It is the sequel to the 1947 film" The Egg and I".'
    assert not holds(claim, sentence)
    assert holds(claim, sentence, names="Ma and Pa Kettle (film)")


def test_a_lists_marks_in_a_sentence_and_fy_for_fiscal_ask_nothing() -> None:
    claim = "Best Buy acquired two companies in FY 2022: (1) Current Health Ltd and (2) Two Peaks."
    evidence = "In fiscal 2022, we acquired all of the outstanding shares of Current Health Ltd and Two Peaks, Best Buy"
    assert missing_words(claim, evidence) == []
    assert missing_words(claim, evidence.replace("fiscal ", "")) == ["FY"]
    # an accounting negative before its scale is a figure still
    assert missing_words("The loss was (1) million.", "The loss was 2 million.") == ["1"]
    # a list's number on a line of its own, as a claim cut from a list ends
    assert missing_words("His style has several traits, such as:\n\n1.", "His style has several traits.") == []


def test_an_answer_that_is_a_sentence_is_its_own_claim() -> None:
    from gechat.answer.claims import stands_alone
    from gechat.eval.bench import answer_claim

    q = "What industry does Amcor primarily operate in?"
    claim = answer_claim(q, "Amcor is a global leader in packaging production for various use cases.")
    assert claim.text == "Amcor is a global leader in packaging production for various use cases." and claim.given == q
    assert answer_claim(q, "Packaging").text == f'The answer to the question "{q}" is: Packaging'
    # a long name without a verb is still a fragment
    assert not stands_alone("The Greatest Show on Earth (1952 film)") and stands_alone(claim.text)


def test_a_fragment_answer_says_the_fragment_beyond_the_whole_question() -> None:
    """As the product makes claims: the question with its instructions is given, and what a
    fragment answer says is the fragment alone (a choice the question offers is the answer's
    choice, not both options the quoted question names)."""
    from gechat.eval.bench import answer_claim
    from gechat.lexical import beyond, chosen, content_keys

    q = "How much did Acme pay in dividends in FY2020? Answer in USD millions."
    claim = answer_claim(q, "$389.00")
    assert claim.given == q and claim.answer() == "$389.00"
    assert make_claims(Draft(text="$389.00"), from_thoughts=False, question=q)[0].answer() == "$389.00"
    assert beyond(f"{q} It paid 389.", q) == " It paid 389." and beyond("Acme paid 389.", q) == "Acme paid 389."
    pick = "Which writer was from England, Henry Roth or Robert Erskine Childers?"
    said = content_keys("Robert Erskine Childers")
    assert chosen(answer_claim(pick, "Robert Erskine Childers").text, pick) == said
