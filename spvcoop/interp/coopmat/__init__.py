"""The cooperative-matrix op family (SPV_NV_cooperative_matrix, SPV_KHR_cooperative_matrix).

core.py      types, values (CoopMat), matrix state, layout lookup, uniformity checks; imported by the others
values.py    null values, composites, Function variables, OpSelect/OpCopyObject, OpCooperativeMatrixLength
math.py      MulAdd, element-wise ops, MatrixTimesScalar, conversions, bitcasts
memory.py    OpCooperativeMatrixLoad/Store
family.py    FAMILY: the op sets and kind hooks above, as spvcoop.interp.families lists them
"""

# The SPIR-V capabilities whose instructions this family implements (its ops; the types are its kinds): a module
# using one of those instructions is run with the family (families.dispatcher_for), and
# tests/interp/test_interp_structure.py checks that the family's op sets define exactly them. Here, not in
# family.py: reading it imports no op module.
CAPABILITIES = ("CooperativeMatrixNV", "CooperativeMatrixKHR", "CooperativeMatrixConversionQCOM")
