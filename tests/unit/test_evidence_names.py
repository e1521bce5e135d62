"""The sentence-set rules that read names and headings: what a set is about (``naming``), sets
joined by a name (``joined``), bridge pairs, and contributions through a sentence's headings."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.candidates import Candidates
from gechat.evidence.scoring import NliScores
from gechat.evidence.sets import SentenceSets
from gechat.evidence.steps import ClaimState
from gechat.types import Chunk, Sentence
from tests.unit.test_evidence_objective import Scripted, context


def test_a_hop_told_with_a_pronoun_contributes_the_names_of_its_headings() -> None:
    from gechat.evidence.sets import contributes
    from gechat.lexical import content_keys

    married, born = _paragraphs(("Born in Pittsburgh, he married the actress Lillian Russell.", "Alexander Moore"),
                                ("Russell was born in Clinton, Iowa.", "Lillian Russell")).sentences
    claim = content_keys("The wife of Alexander Moore was born in Clinton.")
    assert contributes(claim, [married, born])  # "Alexander Moore" is what "he" names
    assert not contributes(claim, [married.model_copy(update={"context": ""}), born])


def _chain_pool() -> EvidencePool:
    """The question's subject introduced, the hop to her husband told with a pronoun, and the
    husband's birth, each under its article's title."""
    return _paragraphs(("Marie Octavie Coudreau (1867-1938) was an explorer from Anais.", "Octavie Coudreau"),
                       ("Her husband was the geographer Henri Coudreau.", "Octavie Coudreau"),
                       ("Henri Anatole Coudreau (born 1859 in Sonnac) explored Guiana.", "Henri Coudreau"))


def test_a_sentence_opening_with_a_pronoun_states_what_its_heading_names() -> None:
    from gechat.evidence.sets import naming
    from gechat.evidence.steps import leans_back
    from gechat.lexical import name_groups

    assert leans_back("Her husband was ...") and leans_back('"It rose 4%."') and not leans_back("Helen was ...")
    assert leans_back("In 1533, she married Prince Andrey.") and leans_back("Born in Pittsburgh, he married ...")
    # a comma after a long opening, or a name after it, is no pronoun subject
    assert not leans_back("After the death of the regent Elena, Evfrosinia returned to court.")
    assert not leans_back("When the five founders of the band met in school, it was 1987.")
    intro, hop, _ = _chain_pool().sentences
    names = name_groups("Where was the husband of Octavie Coudreau born?")
    assert naming(names, [hop]) == naming(names, [intro]) == 1.0
    assert naming(names, [hop.model_copy(update={"context": "Explorers"})]) == 0.5 / 2  # "Coudreau" in passing


def test_joined_sets_are_tied_by_a_name_the_claim_lacks() -> None:
    from gechat.evidence.sets import joined
    from gechat.lexical import name_words

    intro, hop, born = _chain_pool().sentences
    claim = name_words("The husband of Octavie Coudreau was born in Sonnac.")
    assert joined(claim, [hop, born])  # "Henri Coudreau" is in both
    assert not joined(claim, [intro, born])  # only "Coudreau", which the claim holds


def test_named_sets_prefer_the_chain_to_two_facts_about_its_ends() -> None:
    intro, hop, born = (s.text for s in _chain_pool().sentences)
    # the model likes the subject's introduction with the husband's birth better
    table = {f"{intro} {born}": (0.99, 0.0), f"{hop} {born}": (0.9, 0.0)}
    claim = ClaimInput(text="The husband of Octavie Coudreau was born in Sonnac.", source="answer",
                       given="Where was the husband of Octavie Coudreau born?")
    picked = {named: _set_evidence(table, _chain_pool(), claim, SentenceSets(top=3, named=named))
              for named in (False, True)}
    assert picked[False] == [intro, born]
    assert picked[True] == [hop, born]


def _festival_pool() -> EvidencePool:
    """The question's subject introduced, the hop to her father told with a pronoun, and the
    father's birth; the introduction and the father's sentence share a name the claim lacks."""
    return _paragraphs(("Emily Eavis (born 1979) is co-organiser of the Glastonbury Festival.", "Emily Eavis"),
                       ("She is the youngest daughter of the festival's founder Michael Eavis.", "Emily Eavis"),
                       ("Michael Eavis (born 1935) runs the Glastonbury Festival on his farm in Pilton.",
                        "Michael Eavis"))


def test_a_set_whose_sentence_names_what_the_other_is_about_is_the_hop() -> None:
    from gechat.evidence.sets import hopped, joined
    from gechat.lexical import name_words

    intro, hop, born = _festival_pool().sentences
    claim = name_words("The father of Emily Eavis was born in Pilton.")
    assert joined(claim, [intro, born]) and joined(claim, [hop, born])  # "Glastonbury Festival" ties both
    assert hopped(claim, [hop, born])  # "Michael", the name of the heading "Michael Eavis" the claim lacks
    assert not hopped(claim, [intro, born])
    assert not hopped(claim, [intro, hop])  # one article: its heading names only the claim's names


def test_named_sets_prefer_the_hop_to_a_set_sharing_another_name() -> None:
    intro, hop, born = (s.text for s in _festival_pool().sentences)
    table = {f"{intro} {born}": (0.95, 0.0), f"{hop} {born}": (0.9, 0.0)}
    claim = ClaimInput(text="The father of Emily Eavis was born in Pilton.", source="answer",
                       given="Where was the father of Emily Eavis born?")
    assert _set_evidence(table, _festival_pool(), claim, SentenceSets(top=3, named=True)) == [hop, born]
    assert _set_evidence(table, _festival_pool(), claim, SentenceSets(top=3)) == [intro, born]


def _release_pool() -> EvidencePool:
    """Two films, each introduced without its year and with it (the latter with a pronoun)."""
    return _paragraphs(("Huma Gun Anmogaldi is a Bollywood film directed by Mehboob Khan.", "Huma Gun Anmogaldi"),
                       ("It was released in 1942.", "Huma Gun Anmogaldi"),
                       ("This Night Is Still Ours is a 2008 Italian comedy film.", "This Night Is Still Ours"))


def test_a_choice_by_a_value_rests_on_the_sentences_that_give_each_option_one() -> None:
    from gechat.evidence.sets import valued
    from gechat.lexical import offered

    named, dated, other = _release_pool().sentences
    options = offered("Which film came out earlier, This Night Is Still Ours or Huma Gun Anmogaldi?")
    assert valued(options, [dated, other]) == 1.0  # "1942" under the film's heading, "2008" in the text
    assert valued(options, [named, other]) == 0.5
    assert valued((), [dated, other]) == 0.0
    given = "The film that came out earlier of This Night Is Still Ours or Huma Gun Anmogaldi is "
    claim = ClaimInput(text=given + "Huma Gun Anmogaldi.", source="answer", given=given)
    table = {f"{named.text} {other.text}": (0.9, 0.0), f"{dated.text} {other.text}": (0.6, 0.0)}
    # the model likes the film's introduction better; the set that dates both films is shown
    assert _set_evidence(table, _release_pool(), claim, SentenceSets(top=3, named=True)) == [dated.text, other.text]
    # a choice by no value ("which is a comedy") is left to the model
    plain = ClaimInput(text=claim.text.replace("came out earlier", "is a comedy"), source="answer",
                       given=given.replace("came out earlier", "is a comedy"))
    assert _set_evidence(table, _release_pool(), plain, SentenceSets(top=3, named=True)) == [named.text, other.text]


def _paragraphs(*texts: tuple[str, str]) -> EvidencePool:
    """One document per (sentence, its headings)."""
    sents = [Sentence(id=i + 1, doc_id=i + 1, chunk_id=i + 1, ord=0, page=1, start=0, end=len(t), text=t, context=c)
             for i, (t, c) in enumerate(texts)]
    chunks = {s.chunk_id: Chunk(id=s.chunk_id, doc_id=s.doc_id, ord=0, start=0, end=s.end, text=s.text,
                                sentence_ids=[s.id]) for s in sents}
    return EvidencePool(sentences=sents, chunks=chunks, titles={s.doc_id: f"{s.doc_id}.md" for s in sents})


def _set_evidence(table: dict[str, tuple[float, float]], pool: EvidencePool, claim: ClaimInput,
                  sets: SentenceSets) -> list[str] | None:
    """The texts of the evidence ``sets`` finds for ``claim`` in ``pool`` (None: it does not pass)."""
    ctx = context(Scripted(table))
    ctx.pool = pool
    st = ClaimState(claim=claim)
    Candidates(60).run([st], ctx)
    NliScores().run([st], ctx)
    sets.run([st], ctx)
    return [e.text for e in st.evidence] if st.passes else None


def _named_pool() -> EvidencePool:
    """The lake the question names, another lake, and the county's population, each under its
    article's title."""
    return _paragraphs(("Brown State Fishing Lake is a protected area in Brown County, Kansas.",
                        "Brown State Fishing Lake"),
                       ("Shawnee State Fishing Lake is in Shawnee County, Kansas.", "Shawnee State Fishing Lake"),
                       ("As of the 2010 census, the county population was 9,984.", "Brown County, Kansas"))


def test_naming_counts_the_names_a_set_is_about_and_half_those_in_passing_or_headings() -> None:
    from gechat.evidence.sets import naming
    from gechat.lexical import name_groups

    brown, shawnee, county = _named_pool().sentences
    lake = name_groups("Brown State Fishing Lake is in a county of how many inhabitants?")
    assert naming(lake, [brown, county]) == 1.0
    # the other lake's sentence holds 3 of the name's 4 words; "Brown" in the county's heading
    # is in another sentence, and a name is one thing
    assert naming(lake, [shawnee, county]) == 3 / 4
    # stated in passing: the lake's name in a sentence of another article
    passing, = _paragraphs(("Kansas Lakes lists Brown State Fishing Lake among its lakes.", "Kansas Lakes")).sentences
    assert naming(lake, [passing]) == 0.5
    assert naming((), [brown]) == 0.0


def test_naming_reads_a_name_in_one_sentence_not_its_words_across_two() -> None:
    from gechat.evidence.sets import naming
    from gechat.lexical import name_groups

    son, father, player = _paragraphs(
        ("Kasper Peter Schmeichel (born 1986) is a Danish goalkeeper.", "Kasper Schmeichel"),
        ("Peter Schmeichel was voted the World's Best Goalkeeper in 1992.", "Peter Schmeichel"),
        ("Kasper Hvidt (born 1976) is a Danish handball goalkeeper.", "Kasper Hvidt")).sentences
    names = name_groups("What was the father of Kasper Schmeichel voted in 1992?")
    assert names == (frozenset({"kasper", "schmeichel"}), frozenset({"1992"}))
    assert naming(names, [son, father]) == (2 + 0.5) / 3  # the year stated, not in a heading
    # "Kasper" in one sentence and "Schmeichel" in another name two other men
    assert naming(names, [player, father]) == (1 + 0.5) / 3


def test_named_sets_prefer_the_set_that_names_what_the_question_asks_about() -> None:
    brown, shawnee, county = (s.text for s in _named_pool().sentences)
    # the model likes the other lake's pair better: it reads the pattern, not the names
    table = {f"{brown} {county}": (0.8, 0.0), f"{shawnee} {county}": (0.9, 0.0)}
    question = "Brown State Fishing Lake is in a county that has a population of how many inhabitants?"
    claim = ClaimInput(text="Brown State Fishing Lake is in a county that has a population of 9,984.",
                       source="answer", given=question)
    picked = {named: _set_evidence(table, _named_pool(), claim, SentenceSets(top=3, named=named))
              for named in (False, True)}
    assert picked[False] == [shawnee, county]
    assert picked[True] == [brown, county]


def _bridge_pool() -> EvidencePool:
    """The arena's paragraph, another arena's, and the team's, whose sentence names the
    arena but not the team (its heading does)."""
    return _paragraphs(("The Androscoggin Bank Colisée is a 4,000 capacity arena in Lewiston, Maine.", ""),
                       ("The Robins Center is a 7,201-seat arena in Richmond, Virginia.", ""),
                       ("The team played its home games at the Androscoggin Bank Colisée.", "Lewiston Maineiacs"))


def test_name_words_are_whole_capitalised_words_and_numbers() -> None:
    from gechat.lexical import name_words

    assert name_words("The Lewiston Maineiacs' arena seats 3,677.") >= {"lewiston", "maineiacs", "3677"}
    assert "maine" not in name_words("The Lewiston Maineiacs")
    assert name_words("Kasper's father") == {"kasper"}
    from gechat.lexical import name_groups

    assert name_groups("Did Bank of America and Acme Corp report revenue for FY2022?") == (
        frozenset({"bank", "america"}), frozenset({"acme", "corp"}), frozenset({"fy"}), frozenset({"2022"}))


def test_bridges_pair_an_anchor_with_the_hop_about_the_question_subject() -> None:
    from gechat.evidence.sets import bridges
    from gechat.lexical import name_groups, name_words

    arena, other, team = _bridge_pool().sentences
    names = name_groups("The arena where the Lewiston Maineiacs played can seat how many people?")
    claim = name_words("The arena where the Lewiston Maineiacs played can seat 4,000 people.")
    pairs = bridges([arena], [arena, other, team], claim, names)
    assert [(a.id, b.id) for a, b in pairs] == [(arena.id, team.id)]  # joined by "Androscoggin", "Colisée"
    assert bridges([other], [arena, other, team], claim, names) == []  # nothing shared but the claim's words
    assert bridges([arena], [arena, other, team], claim, names, per_anchor=0) == []


def test_a_bridge_pair_is_scored_though_its_hop_is_not_among_the_strongest() -> None:
    arena, other, team = (s.text for s in _bridge_pool().sentences)
    table = {f"{arena} {team}": (0.9, 0.0), arena: (0.3, 0.0), other: (0.3, 0.0)}
    question = "The arena where the Lewiston Maineiacs played can seat how many people?"
    claim = ClaimInput(text="The arena where the Lewiston Maineiacs played can seat 4,000 people.",
                       source="answer", given=question)
    # the team's sentence is third by relevance, out of the top 2
    found = {n: _set_evidence(table, _bridge_pool(), claim, SentenceSets(top=2, bridges=n)) for n in (0, 1)}
    assert found[0] is None
    assert found[1] == [arena, team]


def _older_pool() -> EvidencePool:
    """Each person's introduction, and a sentence about one that names the other in passing."""
    return _paragraphs(("Ann Lee (born 1970) is an American model.", "Ann Lee"),
                       ("She has been photographed by Tom Ray.", "Ann Lee"),
                       ("Tom Ray (born 1965) is an American photographer.", "Tom Ray"))


def test_a_set_about_more_of_the_question_replaces_a_passing_single() -> None:
    ann, photographed, tom = (s.text for s in _older_pool().sentences)
    # the model passes the passing mention alone and likes the two introductions hardly more
    table = {photographed: (0.7, 0.0), f"{ann} {tom}": (0.75, 0.0)}
    claim = ClaimInput(text="Tom Ray is older than Ann Lee.", source="answer",
                       given="Who is older, Ann Lee or Tom Ray?")
    picked = {named: _set_evidence(table, _older_pool(), claim, SentenceSets(top=3, gain=0.1, named=named))
              for named in (False, True)}
    assert picked[False] == [photographed]  # the set entails less than 0.1 more
    assert picked[True] == [ann, tom]


def _served_pool() -> EvidencePool:
    """The president's term, the hop that ties the question's subject to him (told with a
    pronoun under the subject's article), and another man's career."""
    return _paragraphs(("Richard Nixon was President of the United States from 1969 until 1974.", "Richard Nixon"),
                       ("His roles included Assistant Secretary for Health under Richard Nixon.", "Roger Egeberg"),
                       ("Before that, he served in the Clinton Administration.", "Lee Bolton"))


def test_a_sentence_that_ties_the_set_to_the_question_subject_is_needed() -> None:
    term, hop, other = (s.text for s in _served_pool().sentences)
    # without the hop the term alone entails nearly as much; the other man's career pleases the model
    table = {term: (0.45, 0.0), f"{term} {hop}": (0.6, 0.0), f"{term} {other}": (0.9, 0.0)}
    claim = ClaimInput(text="Roger Egeberg served under a president who was in office from 1969 until 1974.",
                       source="answer", given="Roger Egeberg served under a president in office during what years?")
    picked = {named: _set_evidence(table, _served_pool(), claim, SentenceSets(top=3, needed=0.2, named=named))
              for named in (False, True)}
    assert picked[False] == [term, other]  # the hop is read as a passenger: the term entails nearly as much
    assert picked[True] == [term, hop]


def test_a_sentence_that_only_states_the_name_its_partners_headings_hold_does_not_replace_a_single() -> None:
    # every sentence of 3M's 10-K sits under its title: the figure's sentence is about 3M
    # already, and a sentence that states "3M" beside it is a passenger the model happens to like
    title = "10-K - 02/07/2019 - 3M Company > PART II"
    pool = _paragraphs(("3M's strong balance sheet and liquidity provide the Company with flexibility.", title),
                       ("Research, development and related expenses totaled $1.821 billion in 2018.", title))
    passenger, figure = (s.text for s in pool.sentences)
    table = {figure: (0.87, 0.0), f"{passenger} {figure}": (0.93, 0.0)}
    q = "How much did 3M spend on research and development in 2018?"
    claim = ClaimInput(text=f'The answer to the question "{q}" is: $1.821 billion', source="answer", given=q)
    assert _set_evidence(table, pool, claim, SentenceSets(top=3, gain=0.1, named=True)) == [figure]
    # without the title, the sentence that names 3M still ties the figure to the question
    bare = _paragraphs(*((s.text, "PART II") for s in pool.sentences))
    assert _set_evidence(table, bare, claim, SentenceSets(top=3, gain=0.1, named=True)) == [passenger, figure]


def test_a_set_of_two_facts_needs_two_things_the_question_names_not_a_year_and_a_heading_word() -> None:
    from gechat.evidence.sets import linked

    rd, capex = _paragraphs(
        ("Research, development and related expenses totaled $1.821 billion in 2018.", "10-K 3M Company > PART I"),
        ("The Company expects 2019 capital spending to be about $1.7 billion as 3M continues to invest.",
         "10-K 3M Company > PART II")).sentences
    anchor = frozenset({"3", "2018"})  # "3M" and "2018" of the question, as name words
    # "PART I" and "PART II" share a word but are two headings: no tie; 2018 is no thing named
    assert not linked(anchor, [rd, capex])
    # the same heading ties them; so does a name of one in the other
    assert linked(anchor, [rd, capex.model_copy(update={"context": "10-K 3M Company > PART I"})])
    assert linked(frozenset({"3"}), [rd.model_copy(update={"text": rd.text + " 3M spent it."}), capex])


def test_a_locator_ties_no_sentences_of_a_set() -> None:
    from gechat.evidence.sets import linked

    catalog, share = _paragraphs(
        ("In Table 2, we catalog the wide spectrum of human evaluation setups in the surveyed papers.", "2 Survey"),
        ("In our survey (Table 9), the type of annotators used is often not specified (16 / 43 papers).",
         "B Human evaluation details")).sentences
    # a question without names: the sentences need only be tied, and "Table" is where, not what
    assert not linked(frozenset(), [catalog, share])
    assert linked(frozenset(), [catalog, share.model_copy(update={"text": share.text + " Most use PubMed."})]) is False
    pubmed = catalog.model_copy(update={"text": catalog.text + " Most use PubMed."})
    assert linked(frozenset(), [pubmed, share.model_copy(update={"text": share.text + " Most use PubMed."})])


def test_a_set_replaces_a_passing_single_for_entailing_more_only_when_it_holds_it() -> None:
    pool = _paragraphs(("The effective tax rate for 2018 was 23.4 percent.", "Note 10"),
                       ("Excluding the measurement period adjustment, the rate was 20.1 percent in 2018.", "MD&A"),
                       ("Effective worldwide tax rate | 23.4 % | 2017: 35.5 %", "Note 10"))
    rate, adjusted, row = (s.text for s in pool.sentences)
    q = "What was the effective tax rate in 2018?"
    claim = ClaimInput(text=f'The answer to the question "{q}" is: 23.4%', source="answer", given=q)
    # the model likes the adjusted rate beside the row better than the sentence that states it
    table = {rate: (0.7, 0.0), f"{adjusted} {row}": (0.81, 0.0), adjusted: (0.1, 0.0), row: (0.3, 0.0)}
    assert _set_evidence(table, pool, claim, SentenceSets(top=3, gain=0.1)) == [rate]
    # a set that holds the single and entails clearly more tells what the single told in part
    pool = _paragraphs(("The effective tax rate was 23.4 percent.", "Note 10"),
                       ("All rates in this note are for 2018.", "Note 10"))
    part, year = (s.text for s in pool.sentences)
    table = {part: (0.7, 0.0), year: (0.1, 0.0), f"{part} {year}": (0.85, 0.0)}
    assert _set_evidence(table, pool, claim, SentenceSets(top=3, gain=0.1)) == [part, year]
