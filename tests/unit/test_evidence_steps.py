"""Each step of the evidence chain on its own, with a scripted entailment scorer."""

from __future__ import annotations

from gechat.evidence.base import ClaimInput, EvidencePool
from gechat.evidence.candidates import Candidates
from gechat.evidence.scoring import NliScores
from gechat.evidence.sets import SentenceSets
from gechat.evidence.steps import ClaimState, EvidenceContext, active, in_context, runs
from gechat.evidence.verdict import Verdicts
from gechat.models.embed import HashingEmbedder
from gechat.types import Chunk, Sentence
from tests.unit.test_evidence_objective import TEXT, Scripted, context, pool


def states(*texts: str, source: str = "answer") -> list[ClaimState]:
    return [ClaimState(claim=ClaimInput(text=t, source=source)) for t in texts]  # type: ignore[arg-type]


def scored(ctx: EvidenceContext, *texts: str) -> list[ClaimState]:
    out = states(*texts)
    Candidates(60).run(out, ctx)
    NliScores().run(out, ctx)
    return out


def test_candidates_are_the_sentences_but_headings() -> None:
    ctx = context(Scripted({}))
    (st,) = states("Alpha is red.")
    Candidates(60).run([st], ctx)
    assert [s.text for s in st.candidates] == [s.text for s in ctx.pool.sentences]
    assert st.vector is None and st.verdict is None  # no embedder: nothing ranked


def test_candidates_keep_the_nearest_when_there_are_too_many() -> None:
    ctx = context(Scripted({}))
    ctx.embedder = HashingEmbedder()
    (st,) = states("Beta is small and was built in 1990 by a team.")
    Candidates(1).run([st], ctx)
    assert st.vector is not None
    assert [s.text for s in st.candidates] == ["Beta is small and was built in 1990 by a team."]


def test_a_claim_with_no_candidates_is_finished_unsupported() -> None:
    ctx = context(Scripted({}))
    ctx.pool = ctx.pool.model_copy(update={"sentences": []})
    sts = states("Alpha is red.")
    Candidates(60).run(sts, ctx)
    assert sts[0].verdict == "unsupported" and active(sts) == []


def test_nli_keeps_the_best_entailing_single() -> None:
    p = pool()
    ctx = context(Scripted({p.sentences[0].text: (0.9, 0.0), p.sentences[2].text: (0.3, 0.0)}))
    (st,) = scored(ctx, "Alpha is red.")
    assert st.passes and [e.text for e in st.evidence] == ["Alpha is red."]
    assert st.probs is not None and st.probs.shape == (4, 3)


def test_nli_keeps_the_closest_single_when_none_entails() -> None:
    p = pool()
    ctx = context(Scripted({p.sentences[2].text: (0.3, 0.0)}))
    (st,) = scored(ctx, "Beta is old.")
    assert not st.passes and st.evidence[0].text == p.sentences[2].text


def test_sets_read_two_sentences_as_one_passage_only_when_needed() -> None:
    s = [x.text for x in pool().sentences]
    pair = f"{s[0]} {s[1]}"
    ctx = context(Scripted({s[0]: (0.3, 0.0), s[1]: (0.3, 0.0), pair: (0.9, 0.0)}))
    sts = scored(ctx, "Alpha is big and red.")
    SentenceSets(top=3).run(sts, ctx)
    assert sts[0].passes and [e.text for e in sts[0].evidence] == [pair]
    # a passing single is left alone when sets may not replace it
    ctx2 = context(Scripted({s[0]: (0.9, 0.0), pair: (0.95, 0.0)}))
    sts2 = scored(ctx2, "Alpha is red.")
    SentenceSets(top=3).run(sts2, ctx2)
    assert [e.text for e in sts2[0].evidence] == [s[0]]


def test_sets_keep_out_a_passenger() -> None:
    s = [x.text for x in pool().sentences]
    # the pair "Alpha is red." + "Gamma." entails, but "Gamma." holds no word of the claim
    passenger = f"{s[0]} {TEXT[75:81]}"
    ctx = context(Scripted({s[0]: (0.4, 0.0), passenger: (0.9, 0.0)}))
    with_check = scored(ctx, "Alpha is red.")
    SentenceSets(top=4, contribution=True).run(with_check, ctx)
    assert not with_check[0].passes
    without = scored(ctx, "Alpha is red.")
    SentenceSets(top=4, contribution=False).run(without, ctx)
    assert without[0].passes and "Gamma." in without[0].evidence[-1].text


def test_verdict_supported_contradicted_unsupported() -> None:
    s = [x.text for x in pool().sentences]
    verdicts = []
    for claim, table in (("Alpha is red.", {s[0]: (0.9, 0.0)}), ("Alpha is tiny.", {s[1]: (0.0, 0.95)}),
                         ("The team was Delta.", {})):
        ctx = context(Scripted(table), coverage="facts")  # type: ignore[arg-type]
        (st,) = scored(ctx, claim)
        Verdicts(overlap=True).run([st], ctx)
        verdicts.append(st)
    assert [x.verdict for x in verdicts] == ["supported", "contradicted", "unsupported"]
    assert verdicts[1].evidence[0].text == s[1]  # the sentence stating the conflict is shown
    assert verdicts[2].missing == ["Delta"]  # what the closest sentence lacks


def test_verdict_ignores_contradiction_by_unrelated_text_with_overlap() -> None:
    s = [x.text for x in pool().sentences]
    ctx = context(Scripted({s[3]: (0.0, 0.95)}))
    sts = scored(ctx, "Delta flies.")
    Verdicts(overlap=True).run(sts, ctx)
    assert sts[0].verdict == "unsupported"
    sts = scored(ctx, "Delta flies.")
    Verdicts(overlap=False).run(sts, ctx)
    assert sts[0].verdict == "contradicted"


def test_runs_group_consecutive_sentences_of_a_chunk() -> None:
    s = pool().sentences
    assert [[x.ord for x in r] for r in runs([s[0], s[1], s[3]])] == [[0, 1], [3]]


def test_facts_sets_aside_steps_that_say_only_where_something_is_written() -> None:
    from gechat.evidence.facts import NoFact, states_no_fact

    q = "How big is the graph?"
    assert states_no_fact("This information is directly provided in the first sentence of the introduction.", q)
    assert states_no_fact("The question asks how big the graph is.", q)
    assert states_no_fact("According to excerpt [2], this is stated on page 3.", q)
    assert not states_no_fact("The graph has 280M nodes, as stated on page 3.", q)
    assert not states_no_fact("Revenue was $3.2 billion in 2018.", "What was revenue?")
    ctx = context(Scripted({}))
    sts = [ClaimState(claim=ClaimInput(text="This is stated in the abstract.", source="thought", given=q)),
           ClaimState(claim=ClaimInput(text="This is stated in the abstract.", source="answer", given=q))]
    NoFact().run(sts, ctx)
    assert [s.verdict for s in sts] == ["no fact", None]  # answers are left to the model
    assert active(sts) == [sts[1]]


def test_sets_keep_out_a_sentence_the_model_finds_unneeded() -> None:
    s = [x.text for x in pool().sentences]
    # "Alpha is red." nearly entails alone (0.45, below the 0.5 threshold); with the next
    # sentence the pair passes (0.55), but mostly by what the first already gave
    pair = f"{s[0]} {s[1]}"
    table = {s[0]: (0.45, 0.0), s[1]: (0.1, 0.0), pair: (0.55, 0.0)}
    ctx = context(Scripted(table))
    lenient = scored(ctx, "Alpha is red.")
    SentenceSets(top=4, contribution=False, needed=None).run(lenient, ctx)
    assert lenient[0].passes  # the pair is taken without the check
    strict = scored(ctx, "Alpha is red.")
    SentenceSets(top=4, contribution=False, needed=0.15).run(strict, ctx)
    assert not strict[0].passes  # 0.55 - 0.45 < 0.15: "Alpha is big." is a passenger
    needed = scored(ctx, "Alpha is red.")
    SentenceSets(top=4, contribution=False, needed=0.05).run(needed, ctx)
    assert needed[0].passes and [e.text for e in needed[0].evidence] == [pair]


def test_in_context_adds_only_headings_the_claim_needs() -> None:
    claim = ClaimInput(text="Revenue rose 4% in 2023.", source="answer")
    assert in_context(claim, "It rose 4% in 2023.", "Acme report > Revenue") == (
        "Revenue. It rose 4% in 2023.", "Revenue")
    # the sentence names what the claim needs: read as it stands
    assert in_context(claim, "Revenue rose 4% in 2023.", "Acme report > Revenue")[1] == ""
    # a pronoun leans on its nearest heading even when the heading holds no claim word
    other = ClaimInput(text="The founder was born in 1950.", source="answer")
    assert in_context(other, "He was born in 1950.", "People > John Smith") == (
        "John Smith. He was born in 1950.", "John Smith")
    assert in_context(other, "Sales fell.", "People > John Smith") == ("Sales fell.", "")
    # "pronoun": only what a pronoun leans on; "off": the sentence alone
    assert in_context(claim, "It rose 4% in 2023.", "Acme report > Revenue", "pronoun") == (
        "Revenue. It rose 4% in 2023.", "Revenue")
    assert in_context(claim, "Sales rose 4% in 2023.", "Acme report > Revenue", "pronoun")[1] == ""
    assert in_context(claim, "It rose 4% in 2023.", "Acme report > Revenue", "off") == ("It rose 4% in 2023.", "")


def test_nli_reads_a_sentence_under_its_heading_and_shows_it_verbatim() -> None:
    p = pool()
    sents = [s.model_copy(update={"context": "Alpha"}) if i == 2 else s for i, s in enumerate(p.sentences)]
    read = f"Alpha. {p.sentences[2].text}"
    ctx = context(Scripted({read: (0.9, 0.0)}))
    ctx.pool = p.model_copy(update={"sentences": sents})
    assert not scored(ctx, "Alpha was built in 1990.")[0].passes  # by default read as it stands
    ctx.headings = "claim"
    (st,) = scored(ctx, "Alpha was built in 1990.")
    assert st.passes
    assert st.evidence[0].text == p.sentences[2].text and st.evidence[0].context == "Alpha"


def test_linked_sets_hang_together_through_names_headings_or_chunk() -> None:
    from gechat.evidence.sets import linked
    from gechat.lexical import name_words as fact_keys
    from gechat.types import Sentence

    def sent(i: int, text: str, chunk: int, context: str = "") -> Sentence:
        return Sentence(id=i, doc_id=chunk, chunk_id=chunk, ord=0, page=1, start=0, end=len(text), text=text,
                        context=context)

    anchor = fact_keys("Which office did the actress who played Corliss Archer in Kiss and Tell hold?")
    film = sent(1, "Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer.", 1)
    office = sent(2, "As an adult, she was named Chief of Protocol.", 2, context="Shirley Temple")
    elsewhere = sent(3, "The office of Secretary of State for Constitutional Affairs was created in 2003.", 3)
    assert linked(anchor, [film, office])  # through the heading of the second: the bridge
    assert not linked(anchor, [film, elsewhere])  # nothing ties the value's sentence to the rest
    same_chunk = sent(4, "It was abolished later.", 1)
    assert linked(anchor, [film, same_chunk])
    # no names in the question: the sentences must still be tied to each other
    assert linked(frozenset(), [film, office]) and not linked(frozenset(), [film, elsewhere])
    # in one long document every heading path opens with its title: only the nearest heading ties
    intro = sent(7, "Then we describe how authors are found.", 7, context="The Literature Graph > 1 Introduction")
    nodes = sent(8, "It has 12M nodes of this type.", 8, context="The Literature Graph > 2 Structure")
    assert not linked(frozenset(), [intro, nodes])
    assert not linked(fact_keys("How many nodes does the Literature Graph have?"), [intro, nodes])
    # two sentences of one chunk tell one fact; the question's names may be in the title only
    path = "The Literature Graph in Semantic Scholar > 2 Structure"
    author = sent(9, "Each node of this type is an author.", 8, context=path)
    count = nodes.model_copy(update={"context": path})
    assert linked(fact_keys("How many nodes in Semantic Scholar?"), [author, count])
    # ... but not when nothing of theirs names what is asked about ("It" + "The tower ...")
    other = [x.model_copy(update={"chunk_id": 8, "context": "Other > 2 Structure"}) for x in (author, nodes)]
    assert not linked(fact_keys("How many nodes in Semantic Scholar?"), other)
    # a comparison: each sentence tied to the question on its own
    both = fact_keys("Are Laleli Mosque and Esma Sultan Mansion in the same neighborhood?")
    mosque, mansion = sent(5, "The Laleli Mosque is in Fatih.", 5), sent(6, "The Esma Sultan Mansion is in Ortakoy.", 6)
    assert linked(both, [mosque, mansion])


def test_a_sentence_that_only_repeats_the_others_headings_is_a_passenger() -> None:
    from gechat.evidence.sets import contributes
    from gechat.lexical import content_keys
    from gechat.types import Sentence

    title = "Construction of the Literature Graph in Semantic Scholar > Abstract"
    nodes = Sentence(id=1, doc_id=1, chunk_id=1, ord=0, page=1, start=0, end=1, context=title,
                     text="The resulting literature graph consists of more than 280M nodes.")
    site = Sentence(id=2, doc_id=1, chunk_id=1, ord=1, page=1, start=2, end=3, context=title,
                    text="The methods described in this paper are used to enable semantic features in "
                         "www.semanticscholar.org.")
    claim = content_keys("The literature graph in Semantic Scholar has more than 280M nodes.")
    assert not contributes(claim, [nodes, site])
    bare = [s.model_copy(update={"context": ""}) for s in (nodes, site)]
    assert contributes(claim, bare)  # without the headings it would seem to add "Semantic"


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
    from gechat.lexical import name_groups

    arena, other, team = _bridge_pool().sentences
    names = name_groups("The arena where the Lewiston Maineiacs played can seat how many people?")
    claim = "The arena where the Lewiston Maineiacs played can seat 4,000 people."
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
