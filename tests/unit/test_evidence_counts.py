"""A count is a count of something: "100 bibliography entries" is not held by "100 LATEX parses"."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput
from gechat.evidence.counts import miscounted
from gechat.evidence.steps import holds
from tests.unit.test_evidence_objective import Scripted, context

SAMPLE = ("For bibliography linking, we randomly sample S2ORC papers (500 GROBID PDF parses and 100 LATEX "
          "parses) and select one linked bibliography entry from each sampled paper.")
ENTRIES = "S2ORC contains 100 bibliography entries."


def test_a_figure_on_another_thing_does_not_count_what_the_claim_counts() -> None:
    assert miscounted(ENTRIES, "", SAMPLE) == ["100"]
    assert not miscounted("S2ORC sampled 100 LATEX parses.", "", SAMPLE)  # the same thing
    # a share or an amount is no count of things
    assert miscounted(ENTRIES, "", "The categories do not sum to 100%. Papers have bibliography entries.") == ["100"]


def test_a_count_is_held_where_the_words_around_it_meet_the_claims() -> None:
    # the thing named before the figure ("employed ... people") counts
    assert not miscounted("3M had 93,516 employees.", "",
                          "As of December 31, 2022, the Company employed 93,516 people; employees are key.")
    assert not miscounted("PubMed holds 30M papers.", "", "PubMed, which contains 30M papers at the time of writing.")
    # a bare figure, or a text that never names what the claim counts, is left to the model
    assert not miscounted("The survey covered 162 papers.", "", "Papers surveyed: 162.")
    assert not miscounted("The company had 12 stores.", "", "We closed 12 locations in 2022.")
    # shares and bare answers are the typed checks' business
    assert not miscounted("The margin rose 12.5 percentage points.", "", "The margin rose 12.5%.")
    assert not miscounted("The answer is: 12.5", "", "It rose 12.5%.")
    # a table row's header says what its figure counts: that is the row checks' business
    row = "Total fiscal 2023 | Total Number of Shares Purchased: 7,138,475 | Average Price Paid per Share: $ 76.91"
    assert not miscounted("The company repurchased 7,138,475 shares.", "", row)


def test_a_count_of_a_kind_the_text_never_names_is_not_held() -> None:
    # "12M nodes of this type" was said of authors; the set that "supported" 12M paper nodes
    # took "unique" from a sentence about entities
    authors = ("The literature graph has 12M nodes of this type. Each node of this type represents a unique "
               "scientific concept discussed in the literature.")
    assert miscounted("The Semantic Scholar literature graph has 12M unique paper nodes.", "", authors) == ["12M"]
    assert not miscounted("The literature graph has 12M author nodes.", "", f"Authors. {authors}")
    # the kind named anywhere in the text, an adjective, or a name in front: left to the other checks
    assert not miscounted("The graph has 37 million paper nodes.", "", "It holds 37M unique paper nodes.")
    assert not miscounted("SPECTER uses 684K training triples.", "", "It yields about 684K training triples.")  # no "K"
    assert not miscounted("Best Buy had 1,138 store locations.", "", "We operated 1,138 stores at year end.")
    assert not miscounted("Best Buy ran 1,138 retail stores.", "", "We operated 1,138 stores at year end.")


def test_a_miscounted_figure_fails_the_checks_with_its_reason() -> None:
    claim = ClaimInput(text=ENTRIES, source="answer", given="How many bibliography entries does S2ORC contain?")
    assert not holds(claim, SAMPLE)
    assert holds(ClaimInput(text="S2ORC sampled 100 LATEX parses.", source="answer"), SAMPLE)
    ctx = context(Scripted({SAMPLE: (0.93, 0.01)}), coverage="facts")
    assert not ctx.covers(claim, SAMPLE)
    assert ctx.missing(claim, SAMPLE)[-1] == "100 (the text counts something else with it)"
