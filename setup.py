"""Only the optional compiled kernel; everything else about the package is in pyproject.toml.

spvcoop.numerics._intsum_kernel speeds up the bit-exact MulAdd models (numerics/intsum.py). It is optional:
where no C compiler is found the build says so and the install goes on, and intsum.py runs the same
arithmetic in numpy (bit-identical, slower).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("spvcoop.numerics._intsum_kernel", ["spvcoop/numerics/_intsum_kernel.c"],
                             optional=True)])
