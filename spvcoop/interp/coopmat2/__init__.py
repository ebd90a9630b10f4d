"""The cooperative_matrix2 op family (SPV_NV_cooperative_matrix2, SPV_NV_tensor_addressing).

core.py     tensor layout and view values (per-invocation state), the functions the ops call per element
tensor.py   OpCreateTensorLayoutNV, OpTensorLayoutSet*NV, OpTensorLayoutSliceNV, OpCreateTensorViewNV,
            OpTensorViewSet*NV, and the kind hooks of the two opaque types
addressing.py  the extension's element addressing (matrix coordinate -> view -> span -> tensor element), clamp modes
memory.py   OpCooperativeMatrixLoadTensorNV / StoreTensorNV (decode functions included)
math.py     OpCooperativeMatrixReduceNV, PerElementOpNV, TransposeNV, ConvertNV
family.py   FAMILY, as spvcoop.interp.families lists it

Matrices themselves are the coopmat family's values (coopmat/core.py: CoopMat, coop_info); this package imports
them and never the other way round. docs/interpreter-coopmat.md states the semantics.
"""

# The SPIR-V capabilities whose instructions this family implements (see coopmat/__init__.py).
CAPABILITIES = ("CooperativeMatrixReductionsNV", "CooperativeMatrixConversionsNV",
                "CooperativeMatrixPerElementOperationsNV", "CooperativeMatrixTensorAddressingNV", "TensorAddressingNV")
