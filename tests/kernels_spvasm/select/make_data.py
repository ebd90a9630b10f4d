"""Inputs and the numpy-made expected output of select.spvasm (run: python make_data.py)."""
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
WORKGROUPS, SCALE, FLIP = 4, 0.5, 1


def main() -> None:
    rng = np.random.default_rng(20261123)
    a = rng.uniform(-1, 1, (WORKGROUPS, 16, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    c = rng.uniform(-1, 1, (WORKGROUPS, 16, 16)).astype(np.float32)
    product = (a.astype(np.float64) @ b.astype(np.float64) + c).astype(np.float32)
    scaled = c * np.float32(SCALE)
    use_product = (np.arange(WORKGROUPS) & 1) == FLIP
    d = np.where(use_product[:, None, None], product, scaled)
    np.save(HERE / "in_a.npy", a.reshape(-1))
    np.save(HERE / "in_b.npy", b.reshape(-1))
    np.save(HERE / "in_c.npy", c.reshape(-1))
    np.save(HERE / "expected_d.npy", d.reshape(-1))


if __name__ == "__main__":
    main()
