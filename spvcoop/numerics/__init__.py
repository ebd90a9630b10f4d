"""Cooperative-matrix MulAdd numerics: the parametric model family (`model.py`), the probe tiles that
reveal a device's parameters (`tiles.py`) and fitting the family to measured results (`fit.py`).

Below the interpreter (which applies a model in MulAdd) and the GPU layer (which measures tiles); it
imports numpy and nothing of spvcoop above the base layer.
"""
