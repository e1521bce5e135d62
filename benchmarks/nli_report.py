"""The grounding model benchmark's report (``benchmarks/nli.py``): its figures as the tables of
``results/nli.md``."""

from __future__ import annotations


def markdown(flat: dict[str, float], counts: dict[str, int], subset: int, threshold: float) -> str:
    def g(key: str) -> str:
        return f"{flat[key]:.3f}" if key in flat else "-"

    rows = [("MNLI dev-mismatched (gold), 3-way acc", "mnli_mismatched_accuracy"),
            ("ANLI r1-r3 test, 3-way acc", "anli_test_accuracy"),
            ("ANLI r1 / r2 / r3", None),
            ("SciTail test, entail vs not, acc", "scitail_test_accuracy"),
            ("SICK test, 3-way acc", "sick_test_accuracy"),
            ("HaluEval-QA, balanced acc", "halueval_qa_balanced_accuracy"),
            ("HaluEval-QA, AUROC", "halueval_qa_auroc"),
            ("HaluEval-QA, verdict rule (+ names and numbers in the premise), balanced acc",
             "halueval_qa_verdict_balanced_accuracy"),
            ("ExpertQA claims, balanced acc", "expertqa_balanced_accuracy"),
            ("ExpertQA claims, AUROC", "expertqa_auroc"),
            ("ExpertQA claims, verdict rule, balanced acc", "expertqa_verdict_balanced_accuracy"),
            ("HaluEval-QA, the evidence step's verdict (default Settings), balanced acc",
             "halueval_qa_evidence_step_balanced_accuracy"),
            ("ExpertQA claims, the evidence step's verdict, balanced acc", "expertqa_evidence_step_balanced_accuracy"),
            ("HaluEval-QA rows 4000 on (test half), the evidence step's verdict, balanced acc",
             "halueval_qa_test_evidence_step_balanced_accuracy"),
            ("ExpertQA questions 76 on (test half), the evidence step's verdict, balanced acc",
             "expertqa_test_evidence_step_balanced_accuracy")]
    body = "## Cross-encoder, every pair\n\n| set | pairs | int8 (shipped) | fp32 |\n|---|---|---|---|\n"
    for label, key in rows:
        if key is None:
            body += f"| {label} | | {g('anli_r1_test_accuracy')} / {g('anli_r2_test_accuracy')} / " \
                    f"{g('anli_r3_test_accuracy')} | |\n"
            continue
        n = "" if "_test_evidence_" in key else next((c for k, c in counts.items() if key.startswith(k + "_")), "")
        body += f"| {label} | {n} | {g(key)} | {g('fp32_' + key)} |\n"
    body += (f"\nBinary decisions: P(entailment) >= {threshold} (the calibrated \"supported\" threshold). "
             "The verdict rule is the evidence step's (`evidence_coverage = \"facts\"`): that, and every name and "
             "number of the claim that its question lacks found in the premise. "
             f"Throughput: {flat['pairs_per_second']} pairs/s batched on MNLI pairs; model files "
             f"{flat['model_megabytes']} MB.\n")
    if "halueval_qa_evidence_step_balanced_accuracy" in flat:
        body += ("\nThe evidence step's rows are what a user sees: each claim grounded by the nli-objective selector "
                 "with the default Settings, its premise cut into sentences as a loader cuts a document "
                 "(the default evidence steps: sentence sets, names and numbers, values), *supported* against "
                 "the gold label; seconds per claim "
                 f"{flat.get('halueval_qa_evidence_step_seconds_per_claim', '-')} (HaluEval-QA), "
                 f"{flat.get('expertqa_evidence_step_seconds_per_claim', '-')} (ExpertQA).\n")
    body += (f"\n## Same pairs, LLM scorer vs cross-encoder (first {subset} rows of each set; ANLI: "
             f"{subset // 3} per round)\n\n| metric | cross-encoder | LLM 1.5B | LLM 0.5B |\n|---|---|---|---|\n")
    for label, key in [("MNLI-mm 3-way acc", "mnli_mismatched_accuracy"), ("ANLI 3-way acc", "anli_test_accuracy"),
                       ("HaluEval-QA balanced acc", "halueval_qa_balanced_accuracy"),
                       ("HaluEval-QA AUROC", "halueval_qa_auroc"),
                       ("ExpertQA balanced acc", "expertqa_balanced_accuracy"), ("ExpertQA AUROC", "expertqa_auroc")]:
        body += f"| {label} | {g('subset_' + key)} | {g('llm_1_5b_' + key)} | {g('llm_0_5b_' + key)} |\n"
    body += ("\nThe LLM scorer reads P(yes/no/unknown) for \"does the passage support the claim?\"; "
             "binary decisions at 0.5, long ExpertQA passages given whole (up to 384 tokens). The cross-encoder "
             "scores long passages as their best 3-sentence window.\n")
    return body
