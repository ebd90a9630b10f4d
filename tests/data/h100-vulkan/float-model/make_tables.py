"""The measured function tables spvcoop ships (spvcoop/numerics/tables/h100_functions.npz) from this folder's
records: python make_tables.py [OUT.npz].

f32 (diff-encoded as pack.py wrote them: `<name>_first`, `<name>_diff`; cumsum gives the results' bits): `rcp` the
H100's 1/x for x in [1, 2) (2^23 mantissas), `ex2` its exp2 for x in [1, 2), `sqrt` and `rsqrt` for x in [1, 4)
(2^24 patterns), `lg2` and `lg2n` its log2 for x in [1, 2) and [0.5, 1), `sin` its sin of the first quadrant
(2^23 steps of 2^-25 turn). f16: `h_<function>` the uint16 results of all 65,536 inputs (f16_functions.npz; asin,
acos, atan, asinh, acosh and atanh from f16_more.npz)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parents[3] / "spvcoop" / "numerics" / "tables" / "h100_functions.npz"
F32 = {"rcp": "rcp_1_2", "ex2": "exp2_1_2", "sqrt": "sqrt_1_4", "rsqrt": "rsqrt_1_4", "lg2": "log2_1_2",
       "lg2n": "log2_h_1", "sin": "sin_q0"}
F16_MORE = ("asin", "acos", "atan", "asinh", "acosh", "atanh")


def main(out: Path = DEFAULT) -> None:
    arrays = {}
    for name, rec in F32.items():
        d = np.load(HERE / "ranges" / f"range_f32_{rec}.npz")
        arrays[f"{name}_first"], arrays[f"{name}_diff"] = d["first"], d["diff"]
    f16 = np.load(HERE / "f16_functions.npz")
    for name in f16.files:
        arrays[f"h_{name}"] = f16[name]
    more = np.load(HERE / "f16_more.npz")   # measured on the H200 (README): those no rule reproduces
    for name in F16_MORE:
        arrays[f"h_{name}"] = more[name]
    np.savez_compressed(out, **arrays)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT)
