"""Tools built on the interpreter: they run shaders through `interp.run` (or watch a run through an
`interp.observe.Observer`) and turn what they see into answers for a person. The engine (interp/) takes arrays
and returns arrays and knows none of them; the CLI (commands/) and the pytest plugin print what they return.

debugger.py     the gdb-like command engine behind `spvcoop debug` and `spvcoop dap` (the run in a thread,
                stopped and resumed by commands; replies are text)
debug_run.py    its observer: where a run stops (steps, breakpoints, faults, races, caught non-finite values)
debug_expr.py   its expressions and value text (bounded and total: every failure a DebugError)
debug_views.py  its views of a stopped run: matrices by lane, `info writer`, `@all`, globals, setVariable
coverage.py     line and branch coverage as lcov tracefiles (`run --coverage`, `--spvcoop-coverage`)
portability.py  one shader under every layout model, compared (`spvcoop portability`, `run --layout all`)
"""
