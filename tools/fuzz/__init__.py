"""Standalone fuzzing driver for spvcoop: mutated inputs per entry point, run in capped worker
processes, classified (clean rejection, accepted, traceback, exit 3, leak of a planted secret, hang,
memory, ...) and tabulated.

    python -m tools.fuzz --entry all --count 2000 --seed 1 --jobs 2 --time-limit 10 --mem-limit 4G

Modules: corpus (seed files), mutators, cases (per-entry input generation), execute (one input
in-process + classification), differential (entry points comparing two answers: CPU vs GPU encoding,
spvcoop vs spirv-as, --device values, template round trips), worker (capped subprocess loop), campaign
(pool + watchdog), report (table, JSON, reproducers). See docs/reliability.md.
"""
