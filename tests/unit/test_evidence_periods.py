"""Which period a value is given for: a figure stated for other years is no evidence."""

from __future__ import annotations

from gechat.evidence.periods import another_period, dated, listed_by_year


def test_a_value_stated_for_another_year_is_not_evidence() -> None:
    from gechat.evidence.dates import years

    assert years("FY2018 and fiscal 2019, not $2,018 or 120189") == {"2018", "2019"}
    claim = "The FY2018 capital expenditure for 3M was approximately $1.7 billion to $1.9 billion."
    guidance = "The Company expects 2019 capital spending to be approximately $1.7 billion to $1.9 billion."
    assert another_period(claim, guidance, given="What was 3M's FY2018 capital expenditure?") == {"2018"}
    assert not another_period(claim, "Capital spending was $1.7 billion in 2018 and $1.4 billion in 2017.")
    assert not another_period(claim, "Purchases of PP&E (1,700) (1,373)")  # a table row: years in its header
    assert not another_period(claim, "Net sales in 2019 were $32.8 billion.")  # not the claim's value
    # the question's own numbers name things ("3M"), they are not the claim's value
    assert not another_period("3M had 93,000 employees in 2018.", "3M was founded in 1902.", given="How many at 3M?")


def test_in_a_sentence_of_several_years_a_value_belongs_to_the_year_beside_it() -> None:
    both = "The company reported revenue of $5.2 billion in fiscal 2022, up from $4.8 billion in fiscal 2021."
    assert [(q.text, set(ys)) for q, ys in dated(both)] == [("$5.2 billion", {"2022"}), ("$4.8 billion", {"2021"})]
    assert another_period("Revenue in fiscal 2022 was $4.8 billion.", both) == {"2022"}
    assert not another_period("Revenue in fiscal 2022 was $5.2 billion.", both)
    assert not another_period("Revenue in fiscal 2021 was $4.8 billion.", both)
    # a parenthesis, or a colon before the value: beside it too; a comma or another value is a border
    assert another_period("Sales grew 12% in 2021.", "Sales grew 8% (2021); 12% (2022).") == {"2021"}
    assert another_period("Debt was $3 million in 2022.", "2021: $3 million; 2022: $4 million") == {"2022"}
    # words before the value, a name after it, more than two words: another clause, left undated
    assert not another_period("Sales grew 8% in 2022.", "Fiscal 2021 sales grew 8%; in 2022 they grew 12%.")
    assert not another_period("The goal is $600 million by 2021.",
                              "The goal set in fiscal 2018 to reach $600 million by the end of fiscal 2021 stands.")
    assert not another_period("Smith was 59 in 2017.", "Smith 59 Chief Executive Officer 2018, Vice President 2017.")
    # undecided, so no judgement: a figure with no year beside it, or years paired by "respectively"
    assert not another_period("Revenue in 2022 was $5.2 billion.",
                              "In fiscal 2022, compared to fiscal 2021, revenue increased to $5.2 billion.")
    assert not another_period("Revenue in 2022 was $4.8 billion.",
                              "In 2022 and 2021, revenue was $5.2 billion and $4.8 billion, respectively.")
    # a list of values beside a list of years pairs them in order, as a 10-K writes it
    listed = "Cash from operations was $12.0 billion, $17.3 billion, and $18.4 billion in 2015, 2016, and 2017."
    assert all(not ys for _, ys in dated(listed))
    assert not another_period("Cash from operations in 2017 was $18.4 billion.", listed)
    assert not another_period("Debt was $5 million in 2017.", "Debt was $5 million in 2016 and 2017 alike.")
    assert not another_period("Fiscal 2019 had 52 weeks.", "Fiscal 2019 and fiscal 2017 included 52 weeks.")
    assert not another_period("Revenue in 2022 was $4.8 billion.",
                              "As of December 31, 2022, revenue of $4.8 billion was recognised, against 2021's plan.")


def test_a_list_of_values_for_a_list_of_years_pairs_in_order() -> None:
    listed = listed_by_year("Operating income was $2.2 billion, $4.2 billion, and $4.1 billion for 2015, 2016, "
                            "and 2017.")
    assert {y: q.text for y, q in listed.items()} == {"2015": "$2.2 billion", "2016": "$4.2 billion",
                                                      "2017": "$4.1 billion"}
    assert {y: q.text for y, q in listed_by_year("Sales of $1.2 billion and $1.5 billion in 2016 and 2017, "
                                                 "respectively.").items()} == {"2016": "$1.2 billion",
                                                                               "2017": "$1.5 billion"}
    # each value with its own year, lists of unequal length, a year first: no list to pair
    assert listed_by_year("Net sales were $5 billion in 2017 and $6 billion in 2018.") == {}
    assert listed_by_year("Sales were $1.2 billion and $1.5 billion in 2016, 2017 and 2018.") == {}
    assert listed_by_year("In 2016 and 2017 sales were $1.2 billion and $1.5 billion.") == {}
