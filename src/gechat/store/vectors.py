"""Vector search over one kind of item (sentences or chunks).

Exact (a NumPy matrix product) below ``ann_threshold`` vectors: at 384 dimensions that is
under ~10 ms for 20k vectors on 2 cores and always right. Past the threshold an HNSW index
(usearch, cosine, f32) is built once per store generation and saved beside the database,
so search stays sub-linear for large workspaces and survives restarts. It searches with
``EXPANSION`` candidates: usearch's default (64) found 0.91 of the exact top 10 at 100,000
chunks, 128 finds 0.99 for about half a millisecond more (benchmarks/results/scale.md).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]
EXPANSION = 128
# Parallel inserts race: on a graph of 60 vectors they left the nearest neighbours unreachable
# in 3 of 150 builds, serial inserts in none. Small graphs build serially (cheap); large ones
# on every core (50,000 vectors: 33 s against 68 s serial; recall 0.99 at 100,000, scale.md).
SERIAL_BELOW = 5_000


class MatrixIndex:
    def __init__(self, ids: npt.NDArray[np.int64], matrix: Matrix, ann_threshold: int,
                 index_path: Path | None) -> None:
        self.ids = ids
        self.matrix = matrix
        self._ann = None
        if len(ids) >= ann_threshold and len(ids) > 0:
            self._ann = _load_or_build(ids, matrix, index_path)

    @property
    def exact(self) -> bool:
        return self._ann is None

    def search(self, query: Matrix, k: int) -> list[tuple[int, float]]:
        if len(self.ids) == 0 or k <= 0:
            return []
        q = query.reshape(-1).astype(np.float32)
        k = min(k, len(self.ids))
        if self._ann is not None:
            found = self._ann.search(q, k)
            # usearch's cosine distance is 1 - cos
            return [(int(key), float(1.0 - d)) for key, d in zip(found.keys, found.distances, strict=True)]
        sims = self.matrix @ q
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top])]
        return [(int(self.ids[i]), float(sims[i])) for i in top]


def _load_or_build(ids: npt.NDArray[np.int64], matrix: Matrix, path: Path | None):  # type: ignore[no-untyped-def]
    # onnxruntime first: imported after usearch (2.26), onnxruntime (1.32) crashes the process
    # with a segmentation fault, and the models import it later
    import onnxruntime  # noqa: F401
    from usearch.index import Index

    # the search width is the constructor's, also for an index loaded from a file saved with another
    index = Index(ndim=matrix.shape[1], metric="cos", dtype="f32", expansion_search=EXPANSION)
    if path is not None and path.exists():
        index.load(str(path))
        if len(index) == len(ids):
            return index
        index = Index(ndim=matrix.shape[1], metric="cos", dtype="f32", expansion_search=EXPANSION)
    index.add(ids, matrix, threads=1 if len(ids) < SERIAL_BELOW else 0)
    if path is not None:
        tmp = path.with_suffix(".tmp")
        index.save(str(tmp))
        tmp.replace(path)
    return index
