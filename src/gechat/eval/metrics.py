"""Scores computed from predictions and gold labels (benchmarks, calibration)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Bools = Sequence[bool] | npt.NDArray[np.bool_]
Ints = Sequence[int] | npt.NDArray[np.int64]
Floats = Sequence[float] | npt.NDArray[np.floating]


def balanced_accuracy(pred: Bools, gold: Bools) -> float:
    """Mean of the recall on positives and the recall on negatives; a class that is absent counts as 0.5,
    so a constant predictor always scores 0.5."""
    p, g = np.asarray(pred, dtype=bool), np.asarray(gold, dtype=bool)
    if p.shape != g.shape:
        raise ValueError(f"{p.shape} predictions for {g.shape} labels")
    tpr = float((p & g).sum() / g.sum()) if g.any() else 0.5
    tnr = float((~p & ~g).sum() / (~g).sum()) if (~g).any() else 0.5
    return (tpr + tnr) / 2


def accuracy(pred: Ints, gold: Ints) -> float:
    p, g = np.asarray(pred), np.asarray(gold)
    if p.shape != g.shape:
        raise ValueError(f"{p.shape} predictions for {g.shape} labels")
    return float((p == g).mean()) if len(g) else 0.0


def best_threshold(scores: Floats, gold: Bools,
                   grid: npt.NDArray[np.float64] | None = None) -> tuple[float, float]:
    """(threshold, balanced accuracy) maximising the balanced accuracy of ``score >= threshold``.

    On a plateau of equal scores the middle threshold is taken, not an edge of it."""
    s, g = np.asarray(scores, dtype=np.float64), np.asarray(gold, dtype=bool)
    grid = np.round(np.arange(0.01, 1.0, 0.01), 2) if grid is None else grid
    values = np.array([balanced_accuracy(s >= t, g) for t in grid])
    best = np.flatnonzero(values >= values.max() - 1e-12)
    mid = best[len(best) // 2]
    return float(grid[mid]), float(values[mid])


def auroc(scores: Floats, gold: Bools) -> float:
    """Probability that a random positive outscores a random negative (ties count half)."""
    s, g = np.asarray(scores, dtype=np.float64), np.asarray(gold, dtype=bool)
    pos, neg = s[g], s[~g]
    if not len(pos) or not len(neg):
        return 0.5
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    ranks = np.empty(len(order))
    allv = np.concatenate([pos, neg])[order]
    # average ranks over ties
    i = 0
    while i < len(allv):
        j = i
        while j + 1 < len(allv) and allv[j + 1] == allv[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def reliability(confidence: Floats, gold: Bools, bins: int = 10) -> list[tuple[float, float, float, int]]:
    """Per equal-width bin of confidence that a claim is true: (bin's lower edge, mean
    confidence, share of its claims that are true, claims); empty bins left out."""
    c, g = np.asarray(confidence, dtype=np.float64), np.asarray(gold, dtype=bool)
    which = np.minimum((c * bins).astype(int), bins - 1)
    return [(b / bins, float(c[which == b].mean()), float(g[which == b].mean()), int((which == b).sum()))
            for b in range(bins) if (which == b).any()]


def expected_calibration_error(confidence: Floats, gold: Bools, bins: int = 10) -> float:
    """Mean |confidence - share true| over the bins, weighted by their claims (0: calibrated)."""
    rows = reliability(confidence, gold, bins)
    n = sum(k for *_, k in rows)
    return float(sum(k * abs(conf - true) for _, conf, true, k in rows) / n) if n else 0.0
